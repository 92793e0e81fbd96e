import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { unpackTarGz } from '../archive/unpack.js';
import { sha256 } from '../core/digest.js';
import { runChecks } from '../engine/verify.js';
import type { Signer } from '../ledger/ledger.js';
import { SPEC_FILE, parseSpec } from '../spec/load.js';
import { workspaceAt } from '../workspace/find.js';
import { CollectingReceipts } from './collect-receipts.js';
import type { ClaimedJob, JobError, PendingReceipt } from './jobs.js';
import { JobTree } from './job-tree.js';
import type { JobSandbox, Sandbox } from './sandbox.js';
import { allowedServiceSpec } from './server-trust.js';
import { readServerPins } from './server-pins.js';
import { viewForCheck, withView, type CheckView } from './job-view.js';

export interface JobRunner {
  /** The worker's VOUCH_HOME: its trust list. */
  readonly home: string;
  readonly sign: Signer;
  readonly sandbox: Sandbox;
  /** Bytes a job's archive may inflate to (headers and padding included). */
  readonly maxTreeBytes: number;
  /** Milliseconds unpacking one archive may take. */
  readonly maxUnpackMs: number;
  /** Told of a job directory that could not be removed (the sweep removes it later). */
  readonly onLeftover?: (path: string, detail: string) => void;
}

export type JobOutcome =
  /** Receipts to record; with `error`, the job still ends failed (a requested check got no receipt). */
  | { readonly kind: 'ran'; readonly receipts: readonly PendingReceipt[]; readonly error?: JobError }
  | { readonly kind: 'refused'; readonly error: JobError }
  | { readonly kind: 'stopped' };

/**
 * Runs one job on a clean copy: a fresh directory of the worker's (0700;
 * a tmpfs of the job's own when the worker can mount one) holding the
 * unpacked archive (`upload`, never shown to a check) and `job/`, the only
 * place of the host's the checks may write. The upload's vouch.yaml must
 * be byte for byte a spec the operator allowed on this server, and the one
 * the client named. Then each check in turn gets `job/tree` holding only
 * the files the spec declares for it, and an empty home and tmp
 * (job-view.ts); a check whose upload's tool configs or inputs are not
 * what the operator pinned gets a signed UNKNOWN and does not run; the
 * engine runs the others, confined under the job's one bound, signing
 * with the server's key. All is removed once the outcome is decided, by
 * descriptor, never in the outcome's way (job-tree.ts). Nothing from the
 * upload runs outside the sandbox: git is never run on it (the client's
 * claim about git is recorded as the client's).
 */
export async function runJob(job: ClaimedJob, archive: Readable, runner: JobRunner, signal: AbortSignal, stopping: () => boolean): Promise<JobOutcome> {
  // Named for this worker, so that one started later can tell a dead worker's leftovers (leftovers.ts).
  const jobTree = JobTree.create(runner.sandbox.jobDisk);
  const base = jobTree.base;
  let confined: JobSandbox | undefined;
  try {
    const jobRoot = join(base, 'job');
    // The whole upload, the worker's own: a check never sees it, only the files its spec declares (job-view.ts).
    const upload = join(base, 'upload');
    mkdirSync(upload, { mode: 0o700 });
    mkdirSync(jobRoot);
    const unpacked = await unpackTarGz(archive, upload, { maxBytes: runner.maxTreeBytes, maxEntries: 100_000, maxMs: runner.maxUnpackMs });
    if (!unpacked.ok) {
      const { refusal } = unpacked;
      return refused(
        'archive_refused',
        `the archive was refused${refusal.entry ? ` at ${JSON.stringify(refusal.entry)}` : ''}: ${refusal.detail} (${refusal.reason})`,
      );
    }
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(upload, SPEC_FILE));
    } catch {
      return refused('spec_mismatch', `the archive holds no ${SPEC_FILE} at its root`);
    }
    const actual = sha256(bytes);
    if (actual !== job.specSha256) {
      return refused('spec_mismatch', `the tree's ${SPEC_FILE} has SHA-256 ${actual}, not ${job.specSha256} as the client said`);
    }
    if (!allowedServiceSpec(runner.home, actual)) {
      return refused('spec_not_allowed', `spec ${actual} is not allowed on this server (its operator runs \`vouch serve allow\`)`);
    }
    const pins = readServerPins(runner.home, actual);
    if (!pins) {
      return refused(
        'spec_not_allowed',
        `spec ${actual} was allowed on this server before it pinned tool configs and inputs: its operator runs \`vouch serve allow FILE --tree DIR\` again`,
      );
    }
    const parsed = parseSpec(bytes, join(upload, SPEC_FILE));
    if (!parsed.ok) return refused('spec_not_allowed', `the allowed spec no longer loads: ${parsed.error.message}`);
    const spec = parsed.value;
    const checks = job.checks.map((id) => spec.checks.find((check) => check.id === id));
    const unknown = job.checks.filter((_, i) => checks[i] === undefined);
    if (unknown.length > 0) return refused('check_not_found', `no check ${unknown.map((id) => JSON.stringify(id)).join(', ')} in the spec`);

    const ledger = new CollectingReceipts();
    const env = { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', HOME: join(jobRoot, 'home'), TMPDIR: join(jobRoot, 'tmp'), LANG: 'C.UTF-8' };
    runner.sandbox.handOver?.(jobRoot);
    // One bound for the whole job (its cgroup), made once; each check's command is started under it.
    confined = runner.sandbox.forJob?.(jobRoot, base);
    let setupFailed: string | undefined;
    // One check at a time, each in a tree of its own declared files only: what is not in its proof is not there.
    for (const check of checks.filter((c) => c !== undefined)) {
      if (signal.aborted) break;
      let view: CheckView;
      try {
        view = await viewForCheck(upload, jobRoot, check, pins, spec.toolConfigs);
      } catch (error) {
        // The tree a check needs could not be made (what the one before left could not go): the receipts so far stand.
        setupFailed = `the job tree for ${JSON.stringify(check.id)} could not be made: ${error instanceof Error ? error.message : String(error)}`;
        break;
      }
      runner.sandbox.handOver?.(jobRoot);
      // The trust decision (this server's list and pins) and the key (this server's) were made here, not by the spec.
      await runChecks({ workspace: workspaceAt(view.tree), spec, actor: 'service', env, refuseLinks: true }, [check], ledger, {
        sign: runner.sign,
        signal,
        git: job.clientGit,
        service: {
          record: { job: job.id, sandbox: withView(runner.sandbox.record, view.view), ...(job.nonce !== null && { nonce: job.nonce }), git_source: 'client' },
          ...(confined && { wrap: confined.wrap, boundReached: confined.boundReached }),
          ...(view.refusal && { refuse: view.refusal }),
        },
      });
    }
    // Stopped by the worker's own shutdown: the job goes back to the queue, its partial receipts are dropped.
    if (stopping()) return { kind: 'stopped' };
    const missing = job.checks.filter((id) => !ledger.pending.some((pending) => pending.draft.check_id === id));
    if (missing.length > 0) {
      const why = signal.aborted ? `the job was stopped (${String(signal.reason)}) before they ran` : (setupFailed ?? 'the engine made none');
      return {
        kind: 'ran',
        receipts: ledger.pending,
        error: { code: 'no_receipt', message: `no receipt for ${missing.map((id) => JSON.stringify(id)).join(', ')}: ${why}` },
      };
    }
    return { kind: 'ran', receipts: ledger.pending };
  } finally {
    // The job's cgroup first (whatever is left in it is killed), then its tree.
    await confined?.close();
    await jobTree.remove(runner.onLeftover);
  }
}

function refused(code: JobError['code'], message: string): JobOutcome {
  return { kind: 'refused', error: { code, message } };
}
