import { shortId } from '../core/ids.js';
import { unreachable } from '../core/unreachable.js';
import type { ExecFinding } from '../exec/precheck.js';
import type { ExecReceiptBody } from '../exec/receipt.js';
import type { ExecFileCheck } from '../exec/verify-file.js';
import type { Paint } from './color.js';

/** One finding in words: what the command would do, and which rule of exec: it breaks. */
export function execFindingText(finding: ExecFinding): string {
  switch (finding.reason) {
    case 'denied_program':
      return finding.named === finding.program ? `${finding.program} is in exec.deny` : `${finding.named} is ${finding.program}, which is in exec.deny`;
    case 'network_off':
      return `network to ${finding.host ?? `an unnamed host (${finding.program})`} not in exec.network`;
    case 'writes_vouching':
      return `write to ${finding.path} (${finding.via}): it vouches, and no command run through vouch exec may write it`;
    case 'person_act':
      return `${finding.act} is a person's act, never an agent's command`;
    case 'made_vouching':
      return `${finding.path} was made while the command ran: ${finding.what}, which vouches; a person must look at it`;
    default:
      return unreachable(finding);
  }
}

/**
 * What the agent reads after its command (stderr): `VERIFIED exit 0 ·
 * receipt ID`, or one `BLOCKED: ...` line per finding, or under audit the
 * findings as `AUDIT: ...` lines before the VERIFIED one.
 */
export function renderExecOutcome(body: ExecReceiptBody, signed: boolean): string {
  const lines: string[] = [];
  const receipt = `receipt ${shortId(body.id)}${signed ? '' : ' (unsigned: no signing_key)'}`;
  const label = body.decision === 'BLOCKED' ? 'BLOCKED' : 'AUDIT';
  for (const finding of body.findings) lines.push(`${label}: ${execFindingText(finding)}`);
  if (body.exit_code === null) lines.push(`vouch exec ran nothing · ${receipt}`);
  else if (body.decision === 'ALLOWED')
    lines.push(`VERIFIED exit ${body.exit_code}${body.timed_out ? ` (killed after exec.timeout ${body.policy.timeout}s)` : ''} · ${receipt}`);
  else lines.push(`command exit ${body.exit_code} · ${receipt}`);
  return `${lines.join('\n')}\n`;
}

/** `vouch verify-receipt` on an exec receipt file: one line for the receipt, one per finding. */
export function renderExecFileCheck(file: string, check: ExecFileCheck, p: Paint): string {
  const b = check.body;
  const what = b
    ? `exec  ${b.decision}  exit ${b.exit_code ?? '-'}  ${b.id}  ${p.dim(b.command.length > 80 ? `${b.command.slice(0, 77)}...` : b.command)}`
    : 'exec receipt';
  const lines = [`${check.findings.length === 0 ? p.green('ok  ') : p.red('FAIL')}  ${what}`];
  for (const finding of check.findings) lines.push(`        ${p.red(finding.code)}: ${finding.detail}`);
  lines.push(check.findings.length === 0 ? p.green(`the exec receipt ${file} verifies`) : `the exec receipt ${file} does not verify`);
  return lines.join('\n');
}
