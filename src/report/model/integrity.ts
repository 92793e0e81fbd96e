import type { AuditReport } from '../../audit/finding.js';
import type { ReportIntegrity } from './types.js';

/** The whole chain as `vouch audit` walks it; no ledger yet is nothing recorded, which vouches for nothing. */
export function integrityEntry(audit: AuditReport | null, requireSignature: boolean): ReportIntegrity {
  if (!audit) {
    return {
      state: 'nothing_recorded',
      entries: 0,
      receipts: 0,
      gc_records: 0,
      pruned: 0,
      signed_by: {},
      unsigned: 0,
      require_signature: requireSignature,
      head: null,
      findings: [],
    };
  }
  return {
    state: audit.findings.length === 0 ? 'intact' : 'damaged',
    entries: audit.entries,
    receipts: audit.receipts,
    gc_records: audit.gcRecords,
    pruned: audit.pruned,
    signed_by: audit.signedBy,
    unsigned: audit.unsigned,
    require_signature: requireSignature,
    head: audit.head,
    findings: audit.findings.map((f) => ({ seq: f.seq, id: f.id, kind: f.kind, code: f.code, detail: f.detail })),
  };
}
