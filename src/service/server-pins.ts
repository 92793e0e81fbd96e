import { lstatSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256, type Sha256 } from '../core/digest.js';
import type { Problem } from '../core/problem.js';
import { err, ok, type Result } from '../core/result.js';
import type { Reason } from '../core/status.js';
import { scanScopes } from '../scope/scan.js';
import { Snapshot } from '../scope/snapshot.js';
import type { CheckDef, Spec } from '../spec/model.js';
import { hasInputs, inputDrift, inputRequest, pinInputs, type InputPin } from '../trust/input-pins.js';
import { runsPackageScripts, TOOL_CONFIG_NAMES } from '../trust/pins.js';
import { serviceTrustDir } from './server-trust.js';

/**
 * What the operator pinned, beside a spec's hash, when they allowed it on
 * this server (`vouch serve allow FILE --tree DIR`): for every check, the
 * digest of each tool config its programs would read from the tree (the
 * names `vouch allow` pins, on the check's cwd chain up to the root, by
 * workspace-relative path) and, for a check that declares `inputs:`, every
 * file they match. A job runs a check only when its upload holds exactly
 * these; otherwise the check gets a signed UNKNOWN (tool_config_changed,
 * input_changed) and nothing runs. The client's own trust never counts
 * here: an upload is whatever reached the server (a forwarder between
 * client and server can add a file).
 */
export interface ServerPins {
  readonly v: 1;
  readonly spec_sha256: Sha256;
  /** The tree the pins were taken from, as the operator named it. */
  readonly tree: string;
  readonly pinned_at: string;
  /** By check id: workspace-relative tool config path to its SHA-256, or "absent". */
  readonly tool_configs: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** By check id, for the checks that declare inputs. */
  readonly inputs: Readonly<Record<string, InputPin>>;
}

/** Why a check of a job does not run: its upload is not what the operator pinned. */
export interface PinRefusal {
  readonly reason: Extract<Reason, 'tool_config_changed' | 'input_changed'>;
  readonly detail: string;
}

/** The pins of a spec's checks as `tree` holds them now. */
export async function serverPinsFor(spec: Pick<Spec, 'sha256' | 'checks' | 'toolConfigs'>, tree: string, now = new Date()): Promise<ServerPins> {
  const tool_configs: Record<string, Record<string, string>> = {};
  for (const check of spec.checks) tool_configs[check.id] = configDigests(tree, toolConfigPaths(check, spec.toolConfigs));
  const pinned = spec.checks.filter(hasInputs);
  const scans = await scanScopes(new Snapshot(tree, { readStart: new Date() }), pinned.map(inputRequest));
  const inputs = Object.fromEntries(pinned.map((check, i) => [check.id, pinInputs(check, scans[i]!)]));
  return { v: 1, spec_sha256: spec.sha256, tree, pinned_at: now.toISOString(), tool_configs, inputs };
}

/**
 * Whether one check of a job may run on its upload (`upload`: the unpacked
 * archive, whole): its tool configs and inputs as pinned, or why not.
 */
export async function pinRefusal(pins: ServerPins, check: CheckDef, toolConfigs: readonly string[], upload: string): Promise<PinRefusal | undefined> {
  const pinnedConfigs = pins.tool_configs[check.id] ?? {};
  const now = configDigests(upload, toolConfigPaths(check, toolConfigs));
  const changed = [...new Set([...Object.keys(now), ...Object.keys(pinnedConfigs)])]
    .filter((path) => (now[path] ?? 'absent') !== (pinnedConfigs[path] ?? 'absent'))
    .sort();
  if (changed.length > 0)
    return {
      reason: 'tool_config_changed',
      detail: `tool config ${listed(changed)} in the upload is not what the server's operator pinned (appeared, changed or went away); ${ACCEPT}`,
    };
  if (!hasInputs(check)) return undefined;
  const [scan] = await scanScopes(new Snapshot(upload, { readStart: new Date() }), [inputRequest(check)]);
  const drift = inputDrift(check, pins.inputs[check.id], scan!);
  if (!drift) return undefined;
  if (drift.kind === 'unpinned') return { reason: 'input_changed', detail: `the inputs of \`${check.id}\` were not pinned on this server; ${ACCEPT}` };
  return {
    reason: 'input_changed',
    detail: `input ${listed(drift.changes.map(({ path, change }) => `${path} (${change})`))} of \`${check.id}\` in the upload is not what the server's operator pinned; ${ACCEPT}`,
  };
}

const ACCEPT = "nothing ran. The server's operator reads the upload's files and runs `vouch serve allow FILE --tree DIR` to accept them";

function listed(items: readonly string[]): string {
  return items.slice(0, 3).join(', ') + (items.length > 3 ? ` and ${items.length - 3} more` : '');
}

/** The tool configs a check's programs look for, workspace-relative: each name in its cwd and every directory above it. */
function toolConfigPaths(check: CheckDef, extraConfigs: readonly string[]): string[] {
  const names = [...TOOL_CONFIG_NAMES, ...(runsPackageScripts(check) ? ['package.json'] : []), ...extraConfigs.filter((name) => !name.startsWith('~/'))];
  const paths: string[] = [];
  const parts = check.cwd === '.' ? [] : check.cwd.split('/');
  for (let depth = parts.length; depth >= 0; depth--) {
    const dir = parts.slice(0, depth).join('/');
    for (const name of names) paths.push(dir === '' ? name : `${dir}/${name}`);
  }
  return paths;
}

function configDigests(tree: string, paths: readonly string[]): Record<string, string> {
  const digests: Record<string, string> = {};
  for (const path of paths) digests[path] = digestOrAbsent(join(tree, path));
  return digests;
}

/** A file's SHA-256; "absent"; "link" for a symbolic link (never followed: an upload holds none, and an operator's tree should not). */
function digestOrAbsent(path: string): string {
  try {
    if (lstatSync(path).isSymbolicLink()) return 'link';
    return sha256(readFileSync(path));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'absent' : `unreadable:${code ?? 'error'}`;
  }
}

function pinsPath(home: string, sha: string): string {
  return join(serviceTrustDir(home), `${sha}.pins.json`);
}

/** Keeps the pins beside the allowed spec (same directory, 0600). */
export function writeServerPins(home: string, pins: ServerPins): Result<void, Problem> {
  const path = pinsPath(home, pins.spec_sha256);
  try {
    const temp = `${path}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(pins, null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, path);
    return ok(undefined);
  } catch (error) {
    return err({ code: 'trust_store', message: `cannot write the server's pins: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, where: path });
  }
}

/** The pins of an allowed spec; undefined when it was allowed before the server pinned anything (or they cannot be read). */
export function readServerPins(home: string, sha: string): ServerPins | undefined {
  try {
    const pins = JSON.parse(readFileSync(pinsPath(home, sha), 'utf8')) as ServerPins;
    return pins.v === 1 && pins.spec_sha256 === sha ? pins : undefined;
  } catch {
    return undefined;
  }
}

export function removeServerPins(home: string, sha: string): void {
  rmSync(pinsPath(home, sha), { force: true });
}
