import { chmodSync, closeSync, constants, fstatSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { digestJson, sha256, type Sha256 } from '../core/digest.js';
import type { Problem } from '../core/problem.js';
import { err, ok, type Result } from '../core/result.js';
import { definitionDigest } from '../spec/definition.js';
import type { CheckDef } from '../spec/model.js';
import type { ProofSnapshot, ScriptUse } from './model.js';

/** Where a card's proof scripts live: written by the verifier, never the worker (the agent gate denies a worker's writes there). */
export const CARDS_DIR = '.vouch/cards';

/** A script's file name: no directory, no glob, nothing that could leave its card's folder. */
export const SCRIPT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The largest proof script vouch reads: a proof is a program, not a data set. */
const MAX_SCRIPT_BYTES = 1 << 20;

export function scriptPath(card: string, name: string): string {
  return `${CARDS_DIR}/${card}/${name}`;
}

type ScriptProof = Extract<ProofSnapshot, { kind: 'script' }>;

/** A proof script as read now: its exact bytes and their SHA-256. */
export interface ScriptBytes {
  readonly bytes: Buffer;
  readonly sha256: Sha256;
}

/**
 * Reads the proof script once, by descriptor: a regular file, not a link,
 * with a #! line (it is run directly, so it says its own interpreter). The
 * bytes read are the bytes hashed and the bytes run.
 */
export function readScript(root: string, proof: ScriptProof): Result<ScriptBytes, Problem> {
  const absolute = join(root, proof.path);
  const unusable = (message: string): Result<ScriptBytes, Problem> =>
    err({
      code: 'card_script_unusable',
      message: `the proof script ${proof.path} ${message}`,
      where: absolute,
      expected: "a regular file starting with a #! line (for example #!/bin/sh), written by the verifier from the card's done-when",
      hint: 'the verifier writes it (VOUCH_ROLE=verifier, or a subagent named verifier); the worker may not',
    });
  let fd: number;
  try {
    fd = openSync(absolute, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return unusable(code === 'ENOENT' ? 'does not exist yet' : code === 'ELOOP' ? 'is a symbolic link' : `cannot be opened (${code ?? String(error)})`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return unusable('is not a regular file');
    if (stat.size > MAX_SCRIPT_BYTES) return unusable(`is ${stat.size} bytes, more than ${MAX_SCRIPT_BYTES}`);
    const bytes = readFileSync(fd);
    if (!bytes.subarray(0, 2).equals(Buffer.from('#!'))) return unusable('has no #! line saying what runs it');
    return ok({ bytes, sha256: sha256(bytes) });
  } catch (error) {
    return unusable(`cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  } finally {
    closeSync(fd);
  }
}

/** What the card's events say about the script's hash: the bound one, and a revise-script decision waiting to be used. */
export interface ScriptBinding {
  readonly bound: Sha256 | null;
  readonly pending: { readonly decision: string; readonly sha256: Sha256 } | null;
}

/**
 * Whether this run may use the script as it is now: the first run binds its
 * hash; after that only the bound hash runs, or the one new hash a
 * revise-script decision authorised (used once: it becomes the bound one).
 */
export function useScript(proof: ScriptProof, binding: ScriptBinding, current: Sha256): Result<ScriptUse, Problem> {
  if (binding.bound === null) return ok({ name: proof.name, sha256: current, binding: 'first', decision: null });
  if (current === binding.bound) return ok({ name: proof.name, sha256: current, binding: 'same', decision: null });
  if (binding.pending && binding.pending.sha256 === current) {
    return ok({ name: proof.name, sha256: current, binding: 'revised', decision: binding.pending.decision });
  }
  return err({
    code: 'card_script_changed',
    message: `the proof script ${proof.path} changed since its hash was bound, and no revise-script decision authorised the new one`,
    expected: binding.pending
      ? `sha256 ${binding.bound} (bound) or ${binding.pending.sha256} (authorised by decision ${binding.pending.decision})`
      : `sha256 ${binding.bound} (bound)`,
    found: current,
    hint: 'a coordinator or the owner reviews the new script and records `vouch card decide ID revise-script --why TEXT`; nothing else makes it count',
  });
}

/** The id a script proof's receipts carry: never a spec check id (those cannot hold a colon). */
export function scriptCheckId(card: string, name: string): string {
  return `card:${card}:${name}`;
}

/**
 * The check a script proof runs as: the script's own bytes (copied where
 * nothing can change them between hashing and running), no shell, the
 * workspace root as cwd, the frozen scope as sources. Its definition digest
 * binds the script's path and SHA-256, so an edited script makes an old PASS
 * STALE (definition_changed).
 */
export function scriptCheck(card: string, proof: ScriptProof, script: Sha256, runAs: string = proof.path): CheckDef {
  const fields = {
    run: [proof.path],
    shell: false,
    cwd: '.',
    timeout: proof.timeout,
    env: [],
    sources: [...proof.scope],
    tests: [],
    artifacts: [],
    inputs: [],
    exclude: [],
    expect: { kind: 'exit' as const, code: 0 },
    allowMissing: false,
    hermetic: false,
    network: false,
  };
  return {
    id: scriptCheckId(card, proof.name),
    ...fields,
    run: [runAs],
    block: true,
    // A card's proof script runs every time it is asked: the card's verdict is its own run.
    cache: false,
    tier: null,
    proves: `The proof script ${proof.path} (sha256 ${script.slice(0, 16)}…), written by the verifier, exited 0 on ${proof.scope.join(', ')}.`,
    definitionDigest: digestJson({ v: 1, script: proof.path, sha256: script, definition: definitionDigest(fields) }),
  };
}

/**
 * A private copy of the script's exact bytes, executable, removed by the
 * returned function. It lives under .vouch/ (which the agent gate guards and
 * which sits on the workspace's own file system, so it is not on a noexec
 * /tmp).
 */
export function stageScript(script: ScriptBytes, name: string, stateDir: string): { readonly path: string; readonly remove: () => void } {
  const base = join(stateDir, 'run');
  mkdirSync(base, { recursive: true, mode: 0o700 });
  const dir = mkdtempSync(join(base, 'proof-'));
  const path = join(dir, name);
  writeFileSync(path, script.bytes, { mode: 0o500, flag: 'wx' });
  chmodSync(path, 0o500);
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
