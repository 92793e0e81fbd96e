import type { Hash } from 'node:crypto';
import { nodeCrypto } from '../core/builtins.js';

/** What gc recorded about one removal, from its chain entry's body. */
export interface GcClaim {
  readonly seq: number;
  readonly id: string;
  readonly removed: unknown;
  readonly firstSeq: unknown;
  readonly lastSeq: unknown;
  readonly digest: unknown;
}

interface Tally {
  count: number;
  first: number;
  last: number;
  readonly hash: Hash;
}

/**
 * Matches pruned traces with the gc records that claim them. gc writes, in
 * its own signed and chained entry, how many entries it removed, their seq
 * range and SHA-256 over "seq:hash\n" of each; the traces in the `pruned`
 * table must reproduce exactly that, so deleting a row and planting a trace
 * for it (or dropping a trace) does not pass for gc.
 */
export class GcTally {
  private readonly tallies = new Map<string, Tally>();
  private readonly claims: GcClaim[] = [];
  private readonly unreadable = new Set<string>();

  addTrace(gcId: string, seq: number, hash: string): void {
    let tally = this.tallies.get(gcId);
    if (!tally) {
      tally = { count: 0, first: seq, last: seq, hash: nodeCrypto().createHash('sha256') };
      this.tallies.set(gcId, tally);
    }
    tally.count++;
    tally.first = Math.min(tally.first, seq);
    tally.last = Math.max(tally.last, seq);
    tally.hash.update(`${seq}:${hash}\n`);
  }

  addClaim(claim: GcClaim): void {
    this.claims.push(claim);
  }

  /** A gc record whose body was altered: already a finding, so its traces are neither checked against it nor orphans. */
  addUnreadableClaim(gcId: string): void {
    this.unreadable.add(gcId);
  }

  /** Each gc record's disagreement with its traces, and traces no record claims. */
  settle(): { mismatches: { claim: GcClaim; detail: string }[]; orphans: { gcId: string; first: number; count: number }[] } {
    const mismatches: { claim: GcClaim; detail: string }[] = [];
    const claimed = new Set<string>();
    for (const claim of this.claims) {
      claimed.add(claim.id);
      const tally = this.tallies.get(claim.id);
      const found = tally
        ? { count: tally.count, first: tally.first, last: tally.last, digest: tally.hash.copy().digest('hex') }
        : { count: 0, first: null, last: null, digest: null };
      const differences: string[] = [];
      if (found.count !== claim.removed) differences.push(`records ${String(claim.removed)} removed, ${found.count} pruned traces found`);
      if (found.first !== claim.firstSeq || found.last !== claim.lastSeq) {
        differences.push(`records seq ${String(claim.firstSeq)}..${String(claim.lastSeq)}, traces span ${found.first ?? '-'}..${found.last ?? '-'}`);
      }
      if (found.digest !== claim.digest) differences.push('the digest of the removed entries does not match the traces');
      if (differences.length > 0) mismatches.push({ claim, detail: differences.join('; ') });
    }
    const orphans = [...this.tallies]
      .filter(([gcId]) => !claimed.has(gcId) && !this.unreadable.has(gcId))
      .map(([gcId, tally]) => ({ gcId, first: tally.first, count: tally.count }));
    return { mismatches, orphans };
  }
}
