import type { Reason, Verdict } from '../core/status.js';
import type { RunOutcome } from '../runner/run.js';
import { diffManifests, onlyGroups, type ManifestDiff } from '../scope/manifest.js';
import type { ScanProblem } from '../scope/scan.js';
import type { Expectation } from '../spec/model.js';
import { judgeExpectation } from './expectation.js';
import { INPUT_GROUPS, type Fingerprint } from './fingerprint.js';

export interface Judgement {
  readonly verdict: Verdict;
  readonly reason: Reason;
  readonly detail: string | null;
}

const pass: Judgement = { verdict: 'PASS', reason: 'ok', detail: null };

/** What stops a check from running at all: a problem with its scope as it is now. */
export function judgeBeforeRun(problems: readonly ScanProblem[]): Judgement | undefined {
  const first = problems[0];
  if (!first) return undefined;
  const reason: Reason = first.reason;
  return { verdict: 'UNKNOWN', reason, detail: withMore(`${first.path}: ${first.detail}`, problems.length - 1) };
}

/**
 * The verdict of one execution. Anything that leaves doubt about what ran
 * against which files is UNKNOWN, never PASS; FAIL needs the command to have
 * run on an unchanged scope and missed its expectation.
 */
export function judgeRun(
  outcome: RunOutcome,
  before: Fingerprint,
  after: Fingerprint,
  expect: Expectation,
  root: string,
  /** Why the run met a bound of the verifier service's job (ServiceRun.boundReached), or null. */
  bound: string | null = null,
  /** Covered files whose device, inode or ctime moved while the command ran (scope/run-identity.ts). */
  moved: readonly string[] = [],
): Judgement {
  if (outcome.kind === 'spawn_error') {
    return { verdict: 'UNKNOWN', reason: 'spawn_error', detail: `${outcome.code}: ${outcome.message}` };
  }
  if (outcome.interrupted) return { verdict: 'UNKNOWN', reason: 'interrupted', detail: 'vouch was interrupted; the process group was stopped' };
  if (outcome.timedOut) return { verdict: 'UNKNOWN', reason: 'timeout', detail: `still running after the timeout; the process group was killed` };
  // The verifier's bound, not the code, decided how the run ended: evidence neither way.
  if (bound !== null) return { verdict: 'UNKNOWN', reason: 'job_bound', detail: bound };

  const hard = after.problems.find((p) => p.reason === 'path_escape' || p.reason === 'changed_during_hash' || p.reason === 'scope_unreadable');
  if (hard) return { verdict: 'UNKNOWN', reason: hard.reason, detail: `${hard.path}: ${hard.detail}` };

  // Equal digests are equal manifests: nothing changed, and (before holding input files only) after holds no artifact.
  // A scope answered from its record then never builds its list of files.
  const changed =
    before.manifestDigest === after.manifestDigest
      ? { added: [], removed: [], modified: [] }
      : diffManifests(before.manifest, onlyGroups(after.manifest, INPUT_GROUPS));
  if (hasChanges(changed) || after.problems.some((p) => p.reason === 'scope_empty')) {
    return { verdict: 'UNKNOWN', reason: 'changed_during_run', detail: describeChanges(changed) };
  }
  // The same bytes as before, yet not the same file all along: what the command read may have been other bytes.
  if (moved.length > 0) {
    const shown = withMore(moved.slice(0, 3).join(', '), moved.length - 3);
    return {
      verdict: 'UNKNOWN',
      reason: 'changed_during_run',
      detail: `${shown} ${moved.length === 1 ? 'was' : 'were'} rewritten or replaced while the check ran (ctime or inode moved), though the bytes are as before: the run may have read other bytes`,
    };
  }

  if (outcome.exitCode === null) {
    return { verdict: 'FAIL', reason: 'signal', detail: `killed by ${outcome.signal ?? 'a signal'}` };
  }
  const expectation = judgeExpectation(expect, outcome.exitCode, outcome, root);
  if (expectation.kind === 'exit_mismatch') return { verdict: 'FAIL', reason: 'exit_code', detail: expectation.detail };

  const missing = after.problems.filter((p) => p.reason === 'artifact_missing');
  if (missing.length > 0) {
    return { verdict: 'UNKNOWN', reason: 'artifact_missing', detail: withMore(missing[0]!.detail, missing.length - 1) };
  }
  switch (expectation.kind) {
    case 'met':
      return pass;
    case 'unmet':
      return { verdict: 'FAIL', reason: 'expectation_unmet', detail: expectation.detail };
    case 'undecidable':
      return { verdict: 'UNKNOWN', reason: 'output_truncated', detail: expectation.detail };
  }
}

export function hasChanges(diff: ManifestDiff): boolean {
  return diff.added.length + diff.removed.length + diff.modified.length > 0;
}

/** "src/a.ts modified, src/b.ts added (+3 more)". */
export function describeChanges(diff: ManifestDiff, limit = 3): string {
  const all = [
    ...diff.modified.map((path) => `${path} modified`),
    ...diff.added.map((path) => `${path} added`),
    ...diff.removed.map((path) => `${path} removed`),
  ];
  if (all.length === 0) return 'the set of files in scope changed';
  return withMore(all.slice(0, limit).join(', '), all.length - limit);
}

function withMore(text: string, more: number): string {
  return more > 0 ? `${text} (+${more} more)` : text;
}
