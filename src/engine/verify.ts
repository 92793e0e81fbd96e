import { lstatSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { Problem } from '../core/problem.js';
import type { Reason } from '../core/status.js';
import type { ReceiptSink } from '../ledger/ledger.js';
import { agentRun } from '../clients/agent-run.js';
import type { Actor, GateStamp, LogRecord, ReceiptDraft, SandboxRecord, ServiceRecord, StoredReceipt } from '../receipt/receipt.js';
import type { HermeticProblem } from '../hermetic/session.js';
import { encodeLog } from '../logs/log-file.js';
import { writeLog } from '../logs/store.js';
import { checkEnvironment } from '../runner/env.js';
import { runCommand, type RunOutcome } from '../runner/run.js';
import { freshPycache, PYCACHE_VARIABLE } from '../runner/pycache.js';
import { identitiesOf, movedBetween } from '../scope/run-identity.js';
import { isInside } from '../scope/scan.js';
import { gitPathspecs } from '../scope/git-pathspecs.js';
import type { CheckDef, RetentionPolicy, ScopeLimits, Spec } from '../spec/model.js';
import type { Workspace } from '../workspace/find.js';
import { executableDrift, toolConfigDetail, toolConfigDrift, type Pins } from '../trust/pins.js';
import { checkPinsDigest } from '../trust/pins-digest.js';
import { hasInputs, inputDetail, inputDrift } from '../trust/input-pins.js';
import type { ScanResult } from '../scope/scan-types.js';
import type { Manifest } from '../scope/manifest.js';
import { trustState, type TrustState } from '../trust/trust.js';
import { VERSION } from '../version.js';
import type { EngineContext, VerifyEvent } from './context.js';
import { streamRecord } from './excerpt.js';
import { resolveExecutable } from '../runner/executable.js';
import { ALL_GROUPS, computeFingerprint, fingerprintsAndInputs, INPUT_GROUPS, type Fingerprint } from './fingerprint.js';
import { gitForReceipts, scopedGit, type GitFacts, type GitState } from './git.js';
import { judgeBeforeRun, judgeRun, type Judgement } from './verdict.js';
import { judgeWithTests } from './test-verdict.js';
import { newId } from '../core/ids.js';
import { signingKeyFor } from '../crypto/select.js';
import { signerFor } from '../crypto/signature.js';
import type { Signer } from '../ledger/ledger.js';
import { TreeReader, type TreeReaderContext } from './tree-reader.js';
import { originOf, provenPass, reuseDetail, type Reuse } from './reuse.js';
import { dedupingSink } from './dedupe.js';
import { defaultJobs, runSideBySide } from './side-by-side.js';

/** Bytes kept from the start and from the end of each output stream while a check runs. */
export const CAPTURE_WINDOW = 1 << 20;

export interface VerifyOptions {
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: VerifyEvent) => void;
  /** The ledger to append to (created if needed), asked for only once trust is settled; the caller's, never closed here. */
  readonly openLedger: () => Promise<ReceiptSink>;
  /** Set: a check whose state an accepted earlier PASS proved is not run again (reuse.ts). */
  readonly reuse?: Reuse;
  /** How many checks run at once (`serial: true` ones always alone); absent: defaultJobs() (side-by-side.ts). */
  readonly jobs?: number;
}

/**
 * How the verifier service runs a job's checks: the record every receipt
 * carries (job, sandbox), and a wrapper that starts each command confined.
 */
export interface ServiceRun {
  readonly record: ServiceRecord;
  readonly wrap?: (command: readonly string[], cwd: string) => readonly string[];
  /**
   * Asked after each run: why it met a bound the service sets on the whole
   * job (memory, processes, the job directory's size), or could not be put
   * under them; null when it did not. Such a run is UNKNOWN/job_bound.
   */
  readonly boundReached?: () => string | null;
  /**
   * Set when the upload is not what the server's operator pinned for this
   * check (its tool configs, its inputs): the check does not run, and its
   * signed receipt says why, as a local pin drift does.
   */
  readonly refuse?: { readonly reason: Reason; readonly detail: string };
}

export type VerifyResult =
  | { readonly kind: 'not_allowed'; readonly trust: Exclude<TrustState['kind'], 'allowed'> }
  /** The trust record, or the signing key the spec selects, cannot be used: nothing ran. */
  | { readonly kind: 'trust_error'; readonly problem: Problem }
  | { readonly kind: 'ran'; readonly receipts: readonly StoredReceipt[] };

/**
 * Runs checks, side by side up to `jobs`, and appends one receipt per
 * execution. Runs nothing unless the spec's exact bytes were allowed for
 * this workspace.
 */
export async function verifyChecks(ctx: EngineContext, checks: readonly CheckDef[], options: VerifyOptions): Promise<VerifyResult> {
  const trust = trustState(ctx.home, ctx.workspace.root, ctx.spec.sha256);
  if (!trust.ok) return { kind: 'trust_error', problem: trust.error };
  if (trust.value.kind !== 'allowed') return { kind: 'not_allowed', trust: trust.value.kind };
  // git reads every tracked file's stat, on both cores: started as soon as the spec is known allowed, it runs
  // while the signing key is read, the ledger opens and the first check's files are fingerprinted.
  const git = scopedGit(ctx.workspace.root, (prefix) => checks.flatMap((check) => gitPathspecs(check, prefix)));
  // An unusable signing key stops the run before anything starts: a receipt
  // that cannot be signed as the spec asks would count for nothing.
  const key = signingKeyFor(ctx.home, ctx.env, ctx.spec, ctx.workspace.root);
  if (!key.ok) return { kind: 'trust_error', problem: key.error };
  const sign = key.value ? signerFor(key.value) : undefined;

  const trusted = { pins: trust.value.record.pins, toolConfigs: ctx.spec.toolConfigs };
  const receipts = await runChecks({ ...ctx, trusted }, checks, await options.openLedger(), {
    git,
    ...(sign && { sign }),
    ...(options.signal && { signal: options.signal }),
    ...(options.onEvent && { onEvent: options.onEvent }),
    ...(options.reuse && { reuse: options.reuse }),
    jobs: options.jobs ?? defaultJobs(),
  });
  return { kind: 'ran', receipts };
}

/**
 * What running a check needs from its caller: where, with which settings,
 * for whom, and how to read the files (with VOUCH_HOME, through the stat cache).
 */
export interface RunContext extends TreeReaderContext {
  readonly workspace: Pick<Workspace, 'root' | 'stateDir'>;
  /** The spec the definitions come from: its hash is recorded, its excerpt size applied, its whole logs kept unless it says not to (absent: kept). */
  readonly spec: Pick<Spec, 'sha256' | 'excerptBytes'> & {
    readonly retention?: Pick<RetentionPolicy, 'logs'>;
    readonly limits?: ScopeLimits;
    readonly dedupeWindowSeconds?: number;
  };
  readonly actor: Actor;
  readonly env: NodeJS.ProcessEnv;
  readonly now?: () => Date;
  /** Set when the agent gate runs the checks to answer a stop: its receipts say so (see provenance). */
  readonly gate?: GateStamp;
  /**
   * What the person allowed to run (trust/pins.ts): commands resolve on its
   * PATH and must be the files pinned, tool configs must be as pinned.
   * Absent where another trust decides (the verifier service's own list).
   */
  readonly trusted?: { readonly pins: Pins; readonly toolConfigs: readonly string[] };
}

export interface RunOptions {
  readonly sign?: Signer;
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: VerifyEvent) => void;
  /** Set by the verifier service, which has checked the spec against its own trust list and signs with its own key. */
  readonly service?: ServiceRun;
  /**
   * The git facts to record, given by the caller (or on their way); git is
   * then not run here. The verifier service passes the client's claim:
   * running git in an uploaded tree would run the upload's .git/config
   * (core.fsmonitor...). verifyChecks passes the git it started early.
   */
  readonly git?: GitFacts;
  /** Set: a check whose state an accepted earlier PASS proved is not run again (reuse.ts). */
  readonly reuse?: Reuse;
  /** How many checks run at once; absent: 1, one after another (a task card's proof, the verifier service's job). */
  readonly jobs?: number;
}

/**
 * Runs the given check definitions, up to `jobs` side by side (a `serial`
 * one alone), and appends one receipt per execution, in the order the runs
 * end. Each run has its own process group, capture buffers and log, so one
 * check's output never mixes with another's; the ledger's append is one
 * transaction, so receipts appended at once chain one after the other. It
 * decides nothing about trust or keys: callers do (verifyChecks for the
 * spec as it is now; a task card for the definitions it froze when it
 * opened, from a spec allowed then). The receipts come back in the order
 * of `checks`, without the checks a stop (the signal) kept from starting.
 */
export async function runChecks(ctx: RunContext, checks: readonly CheckDef[], sink: ReceiptSink, options: RunOptions = {}): Promise<StoredReceipt[]> {
  // Reruns that found what the run before them found say so (dedupe.ts); each is appended all the same.
  const ledger = dedupingSink(sink, ctx.spec.dedupeWindowSeconds);
  // Untracked files matter only in each check's scope (git.ts); the verifier service passes the client's facts instead.
  const git = gitForReceipts(options.git, () => scopedGit(ctx.workspace.root, (prefix) => checks.flatMap((check) => gitPathspecs(check, prefix))));
  const reader = new TreeReader(ctx);
  try {
    return await runSideBySide(
      checks,
      options.jobs ?? 1,
      async (check, index) => {
        options.onEvent?.({ kind: 'check_started', check, index, total: checks.length });
        const receipt = await verifyOne(ctx, check, ledger, reader, git, options);
        options.onEvent?.({ kind: 'check_finished', check, receipt });
        return receipt;
      },
      options.signal,
    );
  } finally {
    reader.close();
  }
}

async function verifyOne(
  ctx: RunContext,
  check: CheckDef,
  ledger: ReceiptSink,
  reader: TreeReader,
  git: (manifest: Manifest) => Promise<GitState | null>,
  options: RunOptions,
): Promise<StoredReceipt> {
  const { signal, sign, service, reuse } = options;
  const append = { ...(sign && { sign }) };
  const now = ctx.now ?? (() => new Date());
  const root = ctx.workspace.root;
  const startedAt = now();
  // The inputs alone too, in the same walk, when they are to be as the person allowed them.
  const scanned = await fingerprintsAndInputs(reader.snapshot(), [{ check, groups: INPUT_GROUPS }], ctx.trusted && hasInputs(check) ? [check] : []);
  const before = scanned.fingerprints[0]!;
  const cwd = resolveCwd(root, check.cwd, ctx.refuseLinks === true);

  const refusal =
    judgeBeforeRun(before.problems) ??
    tooLarge(ctx.spec.limits, before.manifest.files) ??
    (cwd.ok ? undefined : cwd.judgement) ??
    pinnedJudgement(ctx, check, scanned.inputs.get(check.id)) ??
    (service?.refuse && { verdict: 'UNKNOWN', ...service.refuse });
  if (refusal !== undefined || !cwd.ok) {
    const judgement = refusal ?? { verdict: 'UNKNOWN', reason: 'cwd_invalid', detail: null };
    return ledger.appendReceipt(
      draft(ctx, check, {
        startedAt,
        finishedAt: now(),
        fingerprint: before,
        judgement,
        git: await git(before.manifest),
        run: null,
        executable: null,
        service: service?.record,
      }),
      () => before.manifest,
      append,
    );
  }

  if (reuse && service === undefined) {
    // The names a run would have (its pycache variable included, whatever its directory): env_names must compare with a run's.
    const names = runEnvironment(ctx, check, check.env.includes(PYCACHE_VARIABLE) ? undefined : '');
    const base = draft(ctx, check, {
      startedAt,
      finishedAt: now(),
      fingerprint: before,
      judgement: { verdict: 'PASS', reason: 'ok', detail: null },
      git: await git(before.manifest),
      run: null,
      executable: null,
      env: names,
      service: undefined,
    });
    const earlier = await provenPass(reuse, check, base);
    if (earlier) {
      const receipt: ReceiptDraft = {
        ...base,
        executable: earlier.body.executable,
        detail: reuseDetail(earlier, before.digest),
        reused_from: originOf(earlier),
      };
      return ledger.appendReceipt(receipt, () => before.manifest, append);
    }
  }

  // A hermetic check sees a private copy of the bytes fingerprinted above, and nothing else of the workspace
  // (src/hermetic). The verifier service's runs are hermetic already: its job tree holds only the declared files.
  // Loaded only for a hermetic check: status and the hooks share this bundle and never need it.
  const hermetic =
    check.hermetic === true && service === undefined
      ? (await import('../hermetic/session.js')).startHermetic({ root, stateDir: ctx.workspace.stateDir, check, cwd: cwd.path, files: before.manifest.files })
      : undefined;
  if (hermetic && !hermetic.ok) {
    const judgement: Judgement = { verdict: 'UNKNOWN', reason: hermetic.error.reason, detail: hermetic.error.detail };
    return ledger.appendReceipt(
      draft(ctx, check, {
        startedAt,
        finishedAt: now(),
        fingerprint: before,
        judgement,
        git: await git(before.manifest),
        run: null,
        executable: null,
        service: service?.record,
      }),
      () => before.manifest,
      append,
    );
  }
  const sandbox = hermetic?.value;
  try {
    // Python compiles from the sources fingerprinted above, never from a __pycache__ in the tree (pycache.ts); a hermetic run's goes to its private /tmp.
    const pycache = sandbox ? undefined : freshPycache(check.env);
    const env = runEnvironment(ctx, check, pycache?.dir, sandbox?.env);
    const executable = check.shell
      ? null
      : ctx.refuseLinks === true
        ? executableInJob(check.run[0]!, root, cwd.path, env.PATH)
        : resolveExecutable(check.run[0]!, cwd.path, env.PATH);
    const wrap = sandbox?.wrap ?? service?.wrap;
    // Which version of each covered file the run starts with: one swapped in and back while it runs moves it (run-identity.ts).
    const covered = before.manifest.files.map(([path]) => path);
    const relative = ctx.cwdIsRoot === true;
    const watched = identitiesOf(root, covered, relative);
    const outcome = await runCommand({
      argv: check.run,
      shell: check.shell,
      cwd: cwd.path,
      env,
      timeoutMs: check.timeout * 1000,
      captureWindow: CAPTURE_WINDOW,
      // Not on the verifier service: its client cannot read a log there, and
      // the job directory is writable by the check, which could point
      // .vouch/logs anywhere the worker (outside the sandbox) may write.
      keepLog: service === undefined,
      ...(signal && { signal }),
      ...(wrap && { wrap }),
      ...(sandbox && { passFds: sandbox.passFds }),
    }).finally(() => pycache?.remove());
    const bound = service?.boundReached?.() ?? null;
    const moved = movedBetween(watched, identitiesOf(root, covered, relative));
    // Before the second snapshot: a hermetic run's outputs come back to the workspace, where they are hashed as any run's.
    const confined = sandbox?.finish(outcome);
    // A new snapshot: the run may have changed anything the first one saw.
    const after = await computeFingerprint(reader.snapshot(), check, ALL_GROUPS);
    // A hermetic run's file_exists is judged in its copy: the file must be this run's.
    // A PASS whose test runner ran no test, or skipped more than before, is no PASS (test-verdict.ts).
    const judged = hermeticJudgement(confined, outcome) ?? judgeRun(outcome, before, after, check.expect, sandbox?.copyRoot ?? root, bound, moved);
    const judgement = await judgeWithTests(judged, check, outcome.kind === 'exited' ? outcome.tests : null, ledger);
    // Judged: the copy goes while the log and the receipt are written.
    void sandbox?.dispose();
    const id = newId(startedAt.getTime());
    // A sandbox that never started ran nothing: the receipt says so (no exit code, output or log of bubblewrap's).
    const ran = judgement.reason === 'sandbox_unavailable' ? null : outcome;
    // Written before the receipt is appended, so a receipt never names a log that was not there.
    const log = ran && keepsLogs(ctx.spec) ? storeLog(ctx.workspace.stateDir, id, check.id, ran) : undefined;
    return await ledger.appendReceipt(
      draft(ctx, check, {
        id,
        startedAt,
        finishedAt: now(),
        fingerprint: after,
        judgement,
        git: await git(after.manifest),
        run: ran,
        executable,
        env,
        service: service?.record,
        sandbox: ran ? sandbox?.record : undefined,
        log: log ?? undefined,
      }),
      () => after.manifest,
      append,
    );
  } finally {
    await sandbox?.dispose();
  }
}

/**
 * What a hermetic run's sandbox says of it: a run that timed out or was
 * interrupted is judged as such; otherwise a sandbox that never started,
 * a private copy touched during the run, or an output that could not come
 * back decides before the exit code does.
 */
function hermeticJudgement(problem: HermeticProblem | undefined, outcome: RunOutcome): Judgement | undefined {
  if (problem === undefined) return undefined;
  if (outcome.kind === 'exited' && (outcome.timedOut || outcome.interrupted) && problem.reason !== 'changed_during_run') return undefined;
  return { verdict: 'UNKNOWN', reason: problem.reason, detail: problem.detail };
}

/**
 * What a check's command is given: the fixed names, the ones its env:
 * lists, VOUCH_CHECK_ID, the PATH the person allowed with (never the
 * caller's: what runs is the person's choice), and where Python keeps its
 * compiled modules for this run.
 */
export function runEnvironment(
  ctx: RunContext,
  check: CheckDef,
  pycache: string | undefined,
  overrides: Readonly<Record<string, string>> = {},
): Record<string, string> {
  return checkEnvironment(ctx.env, check.env, {
    VOUCH_CHECK_ID: check.id,
    ...(ctx.trusted && { PATH: ctx.trusted.pins.path }),
    ...(pycache !== undefined && { [PYCACHE_VARIABLE]: pycache }),
    ...overrides,
  });
}

/** A check whose command, tool configs or inputs are not what the person allowed does not run (UNKNOWN). */
function pinnedJudgement(ctx: RunContext, check: CheckDef, inputs: ScanResult | undefined): Judgement | undefined {
  if (!ctx.trusted) return undefined;
  const moved = executableDrift(ctx.trusted.pins, check, ctx.workspace.root);
  if (moved !== null) return { verdict: 'UNKNOWN', reason: 'executable_changed', detail: moved };
  const configs = toolConfigDrift(ctx.trusted.pins, [check], ctx.workspace.root, ctx.trusted.toolConfigs, ctx.env).get(check.id);
  if (configs) return { verdict: 'UNKNOWN', reason: 'tool_config_changed', detail: toolConfigDetail(configs) };
  const drift = inputs && inputDrift(check, ctx.trusted.pins.inputs?.[check.id], inputs);
  if (drift) return { verdict: 'UNKNOWN', reason: 'input_changed', detail: inputDetail(check.id, drift) };
  return undefined;
}

export type Cwd = { ok: true; path: string } | { ok: false; judgement: Judgement };

export function resolveCwd(root: string, cwd: string, refuseLinks = false): Cwd {
  const absolute = cwd === '.' ? root : join(root, cwd);
  // On the verifier service a link on the way was made by a check: the worker never resolves one (SnapshotOptions.refuseLinks).
  const link = refuseLinks ? linkOnTheWay(root, cwd) : undefined;
  if (link !== undefined)
    return {
      ok: false,
      judgement: { verdict: 'UNKNOWN', reason: 'cwd_invalid', detail: `cwd ${cwd}: ${link} is a symbolic link, which the verifier service never follows` },
    };
  try {
    const real = realpathSync(absolute);
    if (!isInside(root, real)) {
      return { ok: false, judgement: { verdict: 'UNKNOWN', reason: 'path_escape', detail: `cwd ${cwd} resolves outside the workspace, to ${real}` } };
    }
    if (!statSync(real).isDirectory()) throw Object.assign(new Error(), { code: 'ENOTDIR' });
    return { ok: true, path: real };
  } catch (error) {
    return {
      ok: false,
      judgement: { verdict: 'UNKNOWN', reason: 'cwd_invalid', detail: `cwd ${cwd} is not a directory (${(error as NodeJS.ErrnoException).code ?? 'error'})` },
    };
  }
}

/**
 * The executable as a verifier service's receipt names it: a program of the
 * job's tree by its path in the tree (the job directory's place on the
 * host is not recorded), and only when no link lies on the way (a check may
 * have made one: the worker never resolves it); one found on the PATH
 * outside the tree as the system has it.
 */
function executableInJob(command: string, root: string, cwd: string, path: string | undefined): string | null {
  const outside = (path ?? '')
    .split(':')
    .filter((dir) => isAbsolute(dir) && !isInside(root, dir))
    .join(':');
  if (!command.includes('/')) return resolveExecutable(command, cwd, outside);
  if (isAbsolute(command)) return isInside(root, command) ? null : resolveExecutable(command, cwd, outside);
  const inTree = relative(root, resolve(cwd, command));
  if (inTree.startsWith('..') || linkOnTheWay(root, inTree) !== undefined) return null;
  return resolveExecutable(command, cwd, outside) === null ? null : inTree;
}

/** The first component of `cwd` (below `root`) that is a symbolic link, or undefined. */
function linkOnTheWay(root: string, cwd: string): string | undefined {
  let path = root;
  for (const part of cwd.split('/').filter((p) => p !== '' && p !== '.')) {
    path = join(path, part);
    try {
      if (lstatSync(path).isSymbolicLink()) return relative(root, path);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * Stores the run's whole output (redacted, compressed) and returns what the
 * receipt records of it. The log is a convenience for people, not evidence
 * (the receipt hashes the raw output): a log that cannot be written leaves
 * the receipt without one rather than losing the receipt.
 */
/** A scope past the spec's `limits:` is not run: UNKNOWN scope_too_large, naming the limit and what was found. */
function tooLarge(limits: ScopeLimits | undefined, files: Fingerprint['manifest']['files']): Judgement | undefined {
  if (!limits) return undefined;
  let bytes = 0;
  for (const file of files) bytes += file[2];
  if (files.length > limits.maxFiles)
    return { verdict: 'UNKNOWN', reason: 'scope_too_large', detail: `${files.length} files in scope, more than limits.max_files (${limits.maxFiles})` };
  if (bytes > limits.maxBytes)
    return { verdict: 'UNKNOWN', reason: 'scope_too_large', detail: `${bytes} bytes in scope, more than limits.max_bytes (${limits.maxBytes})` };
  return undefined;
}

/** `excerpt_bytes: 0` or `retention.logs: false`: hashes (and excerpts) only, no whole log. */
function keepsLogs(spec: RunContext['spec']): boolean {
  return spec.excerptBytes > 0 && spec.retention?.logs !== false;
}

function storeLog(stateDir: string, id: string, checkId: string, outcome: RunOutcome): LogRecord | undefined {
  if (outcome.kind !== 'exited' || !outcome.logs) return undefined;
  try {
    return writeLog(stateDir, encodeLog(id, checkId, outcome.logs.stdout.finish(), outcome.logs.stderr.finish()));
  } catch {
    return undefined;
  }
}

interface DraftInput {
  /** The receipt's id; a new one when absent. */
  readonly id?: string;
  /** The environment the command was given (its names are recorded); absent for a check that never ran. */
  readonly env?: Readonly<Record<string, string>>;
  readonly startedAt: Date;
  readonly finishedAt: Date;
  readonly fingerprint: Fingerprint;
  readonly judgement: Judgement;
  readonly git: GitState | null;
  readonly run: RunOutcome | null;
  readonly executable: string | null;
  readonly service: ServiceRecord | undefined;
  /** A hermetic run's sandbox. */
  readonly sandbox?: SandboxRecord | undefined;
  readonly log?: LogRecord | undefined;
}

function draft(ctx: RunContext, check: CheckDef, input: DraftInput): ReceiptDraft {
  const run = input.run;
  const exited = run?.kind === 'exited' ? run : undefined;
  return {
    v: 1,
    kind: 'receipt',
    id: input.id ?? newId(input.startedAt.getTime()),
    check_id: check.id,
    definition_digest: check.definitionDigest,
    spec_sha256: ctx.spec.sha256,
    argv: check.run,
    shell: check.shell,
    cwd: check.cwd,
    timeout_s: check.timeout,
    env_names: Object.keys(input.env ?? runEnvironment(ctx, check, undefined)).sort(),
    executable: input.executable,
    ...(ctx.trusted && { pins_digest: checkPinsDigest(ctx.trusted.pins, check, ctx.workspace.root) }),
    ran: run !== null,
    started_at: (run?.startedAt ?? input.startedAt).toISOString(),
    finished_at: input.finishedAt.toISOString(),
    duration_ms: run?.durationMs ?? 0,
    exit_code: exited?.exitCode ?? null,
    signal: exited?.signal ?? null,
    timed_out: exited?.timedOut ?? false,
    stdout: exited ? streamRecord(exited.stdout, ctx.spec.excerptBytes) : null,
    stderr: exited ? streamRecord(exited.stderr, ctx.spec.excerptBytes) : null,
    ...(input.log && { log: input.log }),
    ...(exited?.tests && { tests: exited.tests }),
    manifest_digest: input.fingerprint.manifestDigest,
    file_count: input.fingerprint.manifest.files.length,
    fingerprint: input.fingerprint.digest,
    verdict: input.judgement.verdict,
    reason: input.judgement.reason,
    detail: input.judgement.detail,
    proves: check.proves,
    engine: { name: 'vouch', version: VERSION },
    platform: { os: process.platform, arch: process.arch, node: process.version },
    git: input.git,
    actor: ctx.actor,
    ...provenance(ctx),
    ...(input.sandbox && { sandbox: input.sandbox }),
    ...(input.service && { service: input.service }),
  };
}

/**
 * Where the run was made, for the record: by the gate answering a stop, or
 * inside an agent's run (its client's markers in the environment; an MCP
 * caller is an agent whatever its environment shows), or neither. The
 * markers are labels an agent can strip; the gate does not rely on their
 * absence (it accepts only what it ran itself), only on their presence.
 */
function provenance(ctx: RunContext): Pick<ReceiptDraft, 'agent_run' | 'gate'> {
  if (ctx.gate) return { gate: ctx.gate };
  const run = agentRun(ctx.env) ?? (ctx.actor === 'mcp' ? { agent: 'mcp-client', marker: 'MCP' } : null);
  return run ? { agent_run: run } : {};
}
