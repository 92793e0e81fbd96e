import { unreachable } from '../core/unreachable.js';
import type { BundleCode, EnvelopeCheck } from '../export/bundle-finding.js';
import type { Paint } from './color.js';

/** Every bundle finding code in words. Exhaustive: a new code does not compile until it is explained. */
export function explainBundleCode(code: BundleCode): string {
  switch (code) {
    case 'envelope_invalid':
      return 'not a DSSE envelope of an in-toto statement';
    case 'signature_invalid':
      return 'no signature verifies under the given key: altered, or signed by someone else';
    case 'not_canonical':
      return 'the signed statement is not canonical JSON, so vouch did not write it';
    case 'statement_invalid':
      return 'not an in-toto Statement v1 with a link v0.3 or test-result v0.1 predicate';
    case 'file_changed':
      return 'the file has other bytes now than when the receipt was recorded';
    case 'file_missing':
      return 'the file the receipt covered is gone';
    case 'file_refused':
      return 'the named file was not read: outside the workspace, credential-shaped, or not a regular file';
    case 'definition_changed':
      return "the check's definition in vouch.yaml is not the one the receipt ran: the receipt is STALE here";
    case 'not_pass':
      return 'the receipt is signed and intact, but its verdict is not PASS';
    default:
      return unreachable(code);
  }
}

export function renderBundleChecks(file: string, checks: readonly EnvelopeCheck[], p: Paint): string {
  const lines: string[] = [];
  for (const check of checks) {
    const s = check.summary;
    const what = s
      ? `${s.check ?? '?'}  ${s.verdict ?? '?'}  ${s.receipt ?? ''}  ${p.dim(`${s.predicate}, ${s.files.length} file${s.files.length === 1 ? '' : 's'}`)}`
      : '';
    lines.push(`${check.findings.length === 0 ? p.green('ok  ') : p.red('FAIL')}  line ${check.line}  ${what}`.trimEnd());
    for (const finding of check.findings) {
      lines.push(`        ${p.red(finding.code)}: ${finding.path ? `${finding.path}: ` : ''}${finding.detail}`);
    }
  }
  const failed = checks.filter((c) => c.findings.length > 0).length;
  lines.push(
    failed === 0
      ? p.green(`all ${checks.length} envelope${checks.length === 1 ? '' : 's'} of ${file} verify`)
      : `${failed} of ${checks.length} envelope${checks.length === 1 ? '' : 's'} of ${file} failed`,
  );
  for (const code of new Set(checks.flatMap((c) => c.findings.map((f) => f.code)))) lines.push(`  ${p.dim(`${code}: ${explainBundleCode(code)}`)}`);
  return lines.join('\n');
}
