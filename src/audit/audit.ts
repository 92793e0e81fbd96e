import { checkSignature } from '../crypto/signature.js';
import { UNSIGNED_KINDS } from '../ledger/kinds.js';
import type { Keyring } from '../crypto/keyring.js';
import type { Ledger, LedgerEntry } from '../ledger/ledger.js';
import { checkEntry } from './entry-check.js';
import type { AuditCode, AuditReport } from './finding.js';
import { GcTally } from './gc-tally.js';

export interface AuditOptions {
  /** The public keys whose signatures count. */
  readonly keyring: Keyring;
  /** Whether an unsigned entry is a finding. */
  readonly requireSignature: boolean;
}

interface MutableFinding {
  seq: number | null;
  id: string | null;
  kind: string;
  code: AuditCode;
  detail: string;
}

/**
 * Walks every position of the ledger in seq order and reports, per entry,
 * anything that is not as vouch wrote it. One streaming pass holds only the
 * previous hash and one tally per gc record; a second pass runs only when
 * links are broken, to tell moved entries (`reordered`) from foreign ones.
 */
export async function auditLedger(ledger: Ledger, options: AuditOptions): Promise<AuditReport> {
  const findings: MutableFinding[] = [];
  const unresolved = new Map<string, MutableFinding[]>();
  const gc = new GcTally();
  const signedBy: Record<string, number> = {};
  let entries = 0;
  let receipts = 0;
  let gcRecords = 0;
  let pruned = 0;
  let unsigned = 0;
  let seenSigned = false;
  let prevSeq = 0;
  let prevHash: string | null = null;
  let head: { seq: number; hash: string } | null = null;

  const add = (entry: LedgerEntry | null, kind: string, code: AuditCode, detail: string): MutableFinding => {
    const finding = { seq: entry?.seq ?? null, id: entry?.id ?? null, kind, code, detail };
    findings.push(finding);
    return finding;
  };

  for await (const entry of ledger.entries()) {
    if (entry.seq === prevSeq && entries > 0) {
      add(entry, entry.state === 'pruned' ? 'pruned' : entry.kind, 'pruned_orphan', `seq ${entry.seq} is both in the chain and recorded as pruned`);
      continue;
    }
    entries++;
    const gap = entry.seq > prevSeq + 1;
    if (gap) {
      const missing = entry.seq - prevSeq - 1;
      add(
        entry,
        entry.state === 'pruned' ? 'pruned' : entry.kind,
        'gap',
        `${missing === 1 ? `seq ${prevSeq + 1} is` : `seq ${prevSeq + 1}..${entry.seq - 1} are`} missing before this entry, with no gc record: deleted`,
      );
    }
    prevSeq = entry.seq;
    head = { seq: entry.seq, hash: entry.hash };

    if (entry.state === 'pruned') {
      pruned++;
      gc.addTrace(entry.gcId, entry.seq, entry.hash);
      prevHash = entry.hash;
      continue;
    }

    const parsed = checkEntry(entry);
    const kind = typeof parsed.body?.kind === 'string' ? parsed.body.kind : entry.kind;
    if (kind === 'receipt') receipts++;
    if (kind === 'gc') gcRecords++;
    for (const problem of parsed.problems) add(entry, kind, problem.code, problem.detail);

    // A deleted predecessor already explains a link to it: report the gap, not twice.
    if (parsed.prevHash !== undefined && parsed.prevHash !== prevHash && !gap) {
      const claimed = parsed.prevHash;
      const finding = add(entry, kind, 'link_broken', linkDetail(claimed, prevHash));
      if (claimed !== null) unresolved.set(claimed, [...(unresolved.get(claimed) ?? []), finding]);
    }

    if (parsed.hashOk) {
      if (entry.signature === null) {
        unsigned++;
        // The agent's own trail is unsigned by design (ledger/kinds.ts): never evidence, so never a finding.
        if (UNSIGNED_KINDS.has(kind)) {
          // nothing to require
        } else if (options.requireSignature) add(entry, kind, 'signature_missing', 'unsigned, and signatures are required');
        // A workspace that signs keeps signing; someone appending without the key cannot.
        else if (seenSigned) add(entry, kind, 'signature_missing', 'unsigned after signed entries: whoever wrote it did not hold the signing key');
      } else {
        seenSigned = true;
        const check = checkSignature(entry.body, entry.signature, options.keyring);
        if (check.kind === 'valid') signedBy[check.keyName] = (signedBy[check.keyName] ?? 0) + 1;
        else if (check.kind === 'invalid') add(entry, kind, 'signature_invalid', check.detail);
        else add(entry, kind, 'signature_untrusted', `signed by key ${check.keyid.slice(0, 16)}, which is not trusted here`);
      }
    }

    if (kind === 'gc' && parsed.body) {
      const body = parsed.body;
      gc.addClaim({ seq: entry.seq, id: entry.id, removed: body.removed, firstSeq: body.first_seq, lastSeq: body.last_seq, digest: body.removed_digest });
    } else if (entry.kind === 'gc') {
      gc.addUnreadableClaim(entry.id);
    }
    prevHash = entry.hash;
  }

  const settled = gc.settle();
  for (const { claim, detail } of settled.mismatches) {
    findings.push({ seq: claim.seq, id: claim.id, kind: 'gc', code: 'gc_mismatch', detail });
  }
  for (const orphan of settled.orphans) {
    findings.push({
      seq: orphan.first,
      id: null,
      kind: 'pruned',
      code: 'pruned_orphan',
      detail: `${orphan.count} pruned trace${orphan.count === 1 ? '' : 's'} name gc record ${orphan.gcId || '(none)'}, which is not in the chain`,
    });
  }
  if (entries === 0) findings.push({ seq: null, id: null, kind: 'ledger', code: 'ledger_empty', detail: 'the ledger holds no entries' });

  if (unresolved.size > 0) await resolveLinks(ledger, unresolved);
  findings.sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
  return { entries, receipts, gcRecords, pruned, signedBy, unsigned, head, findings };
}

function linkDetail(claimed: string | null, expected: string | null): string {
  if (claimed === null) return `prev_hash is null, but entries come before it (the last is ${expected?.slice(0, 12) ?? '?'}…)`;
  if (expected === null) return `the first entry's prev_hash names ${claimed.slice(0, 12)}…, not null: entries before it are gone`;
  return `prev_hash names ${claimed.slice(0, 12)}…, not the entry before it (${expected.slice(0, 12)}…)`;
}

/** Second pass: a broken link that names an entry elsewhere in the ledger means entries were moved. */
async function resolveLinks(ledger: Ledger, unresolved: Map<string, MutableFinding[]>): Promise<void> {
  for await (const entry of ledger.entries()) {
    for (const finding of unresolved.get(entry.hash) ?? []) {
      finding.code = 'reordered';
      finding.detail = `prev_hash names seq ${entry.seq}, not the entry before it: entries were moved`;
    }
  }
}
