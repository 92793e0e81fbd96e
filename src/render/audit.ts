import { noteLoaded } from '../core/start.js';
import type { AuditCode, AuditReport } from '../audit/finding.js';
import { unreachable } from '../core/unreachable.js';
import type { Paint } from './color.js';
import { table } from './table.js';

noteLoaded('audit');

/** Every audit finding code in words. Exhaustive: a new code does not compile until it is explained. */
export function explainAuditCode(code: AuditCode): string {
  switch (code) {
    case 'body_altered':
      return 'the stored receipt was edited after it was recorded';
    case 'not_canonical':
      return 'the body was rewritten (and re-hashed) by something other than vouch';
    case 'entry_invalid':
      return 'the stored body is not a receipt or gc record vouch wrote';
    case 'row_mismatch':
      return "the row's columns were edited to file the entry under something else";
    case 'link_broken':
      return 'the hash chain breaks here: an entry before it was replaced or forged';
    case 'reordered':
      return 'entries were moved: this one links to an entry that is elsewhere in the chain';
    case 'gap':
      return 'entries were deleted without gc recording it';
    case 'signature_missing':
      return 'unsigned, where signatures are required';
    case 'signature_invalid':
      return 'the signature does not verify: the entry or its signature was altered';
    case 'signature_untrusted':
      return 'signed by a key that is not trusted here';
    case 'gc_mismatch':
      return 'the pruned entries do not match what the gc record says it removed';
    case 'pruned_orphan':
      return 'pruned traces that no gc record accounts for: a deletion dressed up as gc';
    case 'ledger_empty':
      return 'nothing is recorded, so nothing can be vouched for';
    default:
      return unreachable(code);
  }
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function renderAudit(report: AuditReport, ledgerPath: string, p: Paint): string {
  const lines: string[] = [];
  const counts = `${report.entries} ${report.entries === 1 ? 'entry' : 'entries'}: ${plural(report.receipts, 'receipt')}, ${plural(report.gcRecords, 'gc record')}, ${report.pruned} pruned`;
  const signed = Object.entries(report.signedBy)
    .map(([name, n]) => `${n} signed by "${name}"`)
    .concat(report.unsigned > 0 ? [`${report.unsigned} unsigned`] : []);
  if (report.findings.length === 0) {
    lines.push(`${p.green('ledger intact')}  ${ledgerPath}`);
    lines.push(`  ${counts}${signed.length > 0 ? `; ${signed.join(', ')}` : ''}`);
  } else {
    lines.push(`${p.red('ledger damaged')}  ${ledgerPath}`);
    lines.push(table(report.findings.map((f) => [f.seq === null ? '' : `seq ${f.seq}`, `${f.kind}${f.id ? ` ${f.id}` : ''}`, p.red(f.code), f.detail])));
    const entriesHit = new Set(report.findings.map((f) => f.seq)).size;
    lines.push(`${plural(report.findings.length, 'finding')} at ${plural(entriesHit, 'position')}; ${counts}`);
    for (const code of new Set(report.findings.map((f) => f.code))) lines.push(`  ${p.dim(`${code}: ${explainAuditCode(code)}`)}`);
  }
  if (report.head) lines.push(p.dim(`  head: seq ${report.head.seq} ${report.head.hash}`));
  return lines.join('\n');
}

export function auditJson(report: AuditReport, ledgerPath: string, requireSignature: boolean): Record<string, unknown> {
  return {
    ok: report.findings.length === 0,
    ledger: ledgerPath,
    entries: report.entries,
    receipts: report.receipts,
    gc_records: report.gcRecords,
    pruned: report.pruned,
    signed_by: report.signedBy,
    unsigned: report.unsigned,
    require_signature: requireSignature,
    head: report.head,
    findings: report.findings,
  };
}
