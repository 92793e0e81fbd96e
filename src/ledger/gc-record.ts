import { isSha256, sha256 } from '../core/digest.js';
import type { StoredReceipt } from '../receipt/receipt.js';
import type { GcEntry, GcPolicy, GcResult, ReleasedLog } from './ledger.js';

/** An entry `vouch gc` removes, as the pruned table keeps it. */
export interface DoomedEntry {
  readonly seq: number;
  readonly hash: string;
}

/**
 * The chain entry recording a gc, the same on every backend: how many
 * entries went, their seq range, and the SHA-256 over "seq:hash\n" of each
 * in order, which `vouch audit` checks against the pruned table. Linked
 * into the chain like every entry (chain.ts adds its prev_hash).
 */
export function gcRecord(id: string, policy: GcPolicy, doomed: readonly DoomedEntry[]) {
  return {
    v: 1,
    kind: 'gc',
    id,
    at: policy.now.toISOString(),
    removed: doomed.length,
    first_seq: doomed[0]!.seq,
    last_seq: doomed[doomed.length - 1]!.seq,
    removed_digest: sha256(doomed.map((row) => `${row.seq}:${row.hash}\n`).join('')),
    policy: { keep_days: policy.keepDays ?? null, keep_per_check: policy.keepPerCheck ?? null },
    // Only on the automatic gc's records, so a person's `vouch gc` records stay as they were.
    ...(policy.auto === true && { auto: true }),
  };
}

/**
 * The logs of receipts gc removes. Only intact receipts count: a body
 * edited to name another receipt's log is not believed (and the log's own
 * header must name the removed receipt before its file goes).
 */
export function releasedLogs(removed: readonly StoredReceipt[]): Pick<GcResult, 'releasedLogs'> {
  const logs: ReleasedLog[] = [];
  for (const receipt of removed) {
    const digest = receipt.body.log?.sha256;
    if (receipt.intact && isSha256(digest)) logs.push({ receipt: receipt.body.id, sha256: digest });
  }
  return logs.length > 0 ? { releasedLogs: logs } : {};
}

/** A row the policy selects, before what must stay is taken out. */
export interface Candidate extends GcEntry {
  readonly hash: string;
}

/**
 * Takes out of the policy's selection what must stay (an open card's or
 * dispatch's receipts, an unstopped session's trail): the same rule on
 * every backend.
 */
export function applyRetention(
  selected: readonly Candidate[],
  policy: Pick<GcPolicy, 'retain' | 'maxRemove'>,
): { readonly doomed: Candidate[]; readonly retained: number; readonly deferred: number } {
  const retain = policy.retain;
  const kept = !retain
    ? [...selected]
    : selected.filter((row) => {
        if (row.kind === 'trail') return row.session === null || !retain.sessions.has(row.session);
        if (retain.receipts.has(row.id)) return false;
        const from = row.check_id === null ? undefined : retain.fromSeq.get(row.check_id);
        return from === undefined || row.seq < from;
      });
  // Oldest first (the selection is in seq order): what a bounded gc leaves is the newest of what may go.
  const bound = policy.maxRemove ?? Number.MAX_SAFE_INTEGER;
  const doomed = kept.slice(0, Math.max(0, bound));
  return { doomed, retained: selected.length - kept.length, deferred: kept.length - doomed.length };
}

/**
 * A bounded gc (`maxRemove`) reads the policy's selection in seq order a
 * page at a time, until what it read holds enough that may go: one of a
 * ledger far over its policy never lists every candidate. The page size,
 * or null for an unbounded gc (one read of the whole selection).
 */
export function candidatePage(policy: Pick<GcPolicy, 'maxRemove'>): number | null {
  return policy.maxRemove === undefined ? null : Math.max(256, policy.maxRemove * 2);
}

/** Whether the pages read so far are the whole selection a gc needs (the last page was short, or enough of it may go). */
export function selectionDone(
  selected: readonly Candidate[],
  lastPage: readonly Candidate[],
  page: number | null,
  policy: Pick<GcPolicy, 'retain' | 'maxRemove'>,
): boolean {
  return page === null || lastPage.length < page || applyRetention(selected, policy).doomed.length >= (policy.maxRemove ?? 0);
}

/** The counts a gc reports beside what it removed: only those that are not zero. */
export function keptCounts(retained: number, deferred: number): Pick<GcResult, 'retained' | 'deferred'> {
  return { ...(retained > 0 && { retained }), ...(deferred > 0 && { deferred }) };
}

/** What a dry run answers: the entries that would go, nothing removed. */
export function plannedResult(doomed: readonly Candidate[], retained: number): GcResult {
  return {
    removed: doomed.length,
    trailRemoved: doomed.filter((row) => row.kind === 'trail').length,
    manifestsRemoved: 0,
    gcEntryId: null,
    retained,
    planned: doomed.map(({ seq, id, kind, check_id, session }) => ({ seq, id, kind, check_id, session })),
  };
}
