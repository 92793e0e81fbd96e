import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Problem } from '../core/problem.js';
import { resolveExecutable } from '../runner/executable.js';
import { freshPycache } from '../runner/pycache.js';
import { runCommand } from '../runner/run.js';
import type { CheckDef } from '../spec/model.js';
import { classify, suggestedInputs, type TracedFiles } from '../trace/classify.js';
import { fileEvents } from '../trace/strace-log.js';
import { trustState, type TrustState } from '../trust/trust.js';
import type { EngineContext } from './context.js';
import { ALL_GROUPS, computeFingerprint, INPUT_GROUPS } from './fingerprint.js';
import { TreeReader } from './tree-reader.js';
import { CAPTURE_WINDOW, resolveCwd, runEnvironment } from './verify.js';

/** What one traced run of a check found. */
export interface Trace {
  readonly check: CheckDef;
  /** The tracer that ran it. */
  readonly tracer: string;
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  readonly durationMs: number;
  /** What it used outside its proof. */
  readonly files: TracedFiles;
  /** The inputs: globs that would cover the workspace files (the check's own first). */
  readonly inputs: readonly string[];
}

export type TraceResult =
  | { readonly kind: 'traced'; readonly trace: Trace }
  | { readonly kind: 'not_allowed'; readonly trust: Exclude<TrustState['kind'], 'allowed'> }
  | { readonly kind: 'trust_error'; readonly problem: Problem }
  /** No tracer here, or it cannot trace (ptrace forbidden): why, in words. */
  | { readonly kind: 'no_tracer'; readonly why: string }
  | { readonly kind: 'cannot_run'; readonly why: string };

/**
 * The calls traced: every one that takes a file name (open, exec, stat,
 * access, readlink... whatever this architecture calls them), one log per
 * process (-ff) so no call is split, descriptors printed with their paths
 * (-y) and strings long enough for a path (-s).
 */
const STRACE_ARGS = ['-f', '-ff', '-qq', '-y', '-s', '4096', '-e', 'trace=%file'];

/**
 * Runs a check once under strace, as `vouch verify` would run it (its argv,
 * cwd, the environment and PATH the person allowed, a fresh Python cache),
 * in the workspace itself, not hermetic: what it reads is what is to be
 * found. Records no receipt: a traced run is slower and can behave
 * otherwise (ptrace changes timing; some programs refuse to be traced), and
 * strace is not a program the person pinned. Runs nothing unless the spec
 * is allowed.
 */
export async function traceCheck(
  ctx: EngineContext,
  check: CheckDef,
  options: { readonly tracer?: string; readonly signal?: AbortSignal } = {},
): Promise<TraceResult> {
  const trust = trustState(ctx.home, ctx.workspace.root, ctx.spec.sha256);
  if (!trust.ok) return { kind: 'trust_error', problem: trust.error };
  if (trust.value.kind !== 'allowed') return { kind: 'not_allowed', trust: trust.value.kind };
  const tracer = options.tracer ?? resolveExecutable('strace', ctx.workspace.root, `/usr/bin:/bin:/usr/local/bin:${ctx.env.PATH ?? ''}`);
  if (tracer === null) return { kind: 'no_tracer', why: 'strace is not installed (looked in /usr/bin, /bin, /usr/local/bin and on PATH)' };
  const root = ctx.workspace.root;
  const cwd = resolveCwd(root, check.cwd);
  if (!cwd.ok) return { kind: 'cannot_run', why: cwd.judgement.detail ?? "the check's cwd is not a directory of the workspace" };

  const reader = new TreeReader(ctx);
  const dir = mkdtempSync(join(tmpdir(), 'vouch-trace-'));
  const pycache = freshPycache(check.env);
  try {
    const before = await computeFingerprint(reader.snapshot(), check, INPUT_GROUPS);
    const trusted = { ...ctx, trusted: { pins: trust.value.record.pins, toolConfigs: ctx.spec.toolConfigs } };
    const env = runEnvironment(trusted, check, pycache?.dir);
    const log = join(dir, 'trace');
    const outcome = await runCommand({
      argv: check.run,
      shell: check.shell,
      cwd: cwd.path,
      env,
      timeoutMs: check.timeout * 1000,
      captureWindow: CAPTURE_WINDOW,
      wrap: (command) => [tracer, ...STRACE_ARGS, '-o', log, '--', ...command],
      ...(options.signal && { signal: options.signal }),
    });
    if (outcome.kind === 'spawn_error') return { kind: 'no_tracer', why: `${tracer} could not be started (${outcome.code})` };
    const events = readdirSync(dir)
      .filter((name) => name.startsWith('trace.'))
      .flatMap((name) => fileEvents(readFileSync(join(dir, name), 'utf8'), cwd.path));
    // The traced command's own exec is the first call of every trace: without one, nothing was traced (or run).
    if (!events.some((event) => event.how === 'exec')) {
      // strace names itself by its path: "/usr/bin/strace: ptrace(PTRACE_TRACEME, ...): Operation not permitted".
      const said =
        outcome.stderr
          .text()
          .head.split('\n')
          .reverse()
          .find((line) => /^\S*strace: /.test(line))
          ?.replace(/^\S*strace: /, '') ?? `it exited ${String(outcome.exitCode)} and traced nothing`;
      return {
        kind: 'no_tracer',
        why: `${tracer} cannot trace here: ${said.slice(0, 300)} (ptrace may be forbidden: a container without CAP_SYS_PTRACE, kernel.yama.ptrace_scope=3, or vouch itself run under a tracer)`,
      };
    }
    const after = await computeFingerprint(reader.snapshot(), check, ALL_GROUPS);
    const proof = new Set([...before.manifest.files, ...after.manifest.files].map((file) => file[0]));
    const files = classify(events, { root, home: env.HOME, proof, own: [dir, ...(pycache ? [pycache.dir] : [])] });
    const inputs = [...new Set([...check.inputs, ...suggestedInputs(files.workspace)])];
    return { kind: 'traced', trace: { check, tracer, exitCode: outcome.exitCode, timedOut: outcome.timedOut, durationMs: outcome.durationMs, files, inputs } };
  } finally {
    reader.close();
    pycache?.remove();
    rmSync(dir, { recursive: true, force: true });
  }
}
