import { unreachable } from '../core/unreachable.js';
import type { Paint } from '../render/color.js';
import type { DoctorLine, DoctorReason, DoctorReport } from './line.js';

/** The headline of each reason, in words. */
export function reasonWords(reason: DoctorReason): string {
  switch (reason) {
    case 'workspace_found':
      return 'workspace';
    case 'no_workspace':
      return 'no workspace';
    case 'spec_invalid':
      return 'vouch.yaml cannot be used';
    case 'trusted':
      return 'allowed';
    case 'not_trusted':
      return 'not allowed';
    case 'pins_held':
      return 'as pinned';
    case 'pins_drift':
      return 'not as pinned';
    case 'wired':
      return 'wired';
    case 'wired_no_box':
      return 'wired, no box';
    case 'not_wired':
      return 'not wired';
    case 'partly_wired':
      return 'partly wired';
    case 'wired_other':
      return 'wired by another vouch';
    case 'wiring_lost':
      return 'wiring lost';
    case 'wiring_unreadable':
      return 'wiring unreadable';
    case 'not_applicable':
      return 'not applicable';
    case 'box_required_off':
      return 'required, off';
    case 'keys_present':
      return 'keys';
    case 'no_keys':
      return 'no keys';
    case 'signing_key_missing':
      return 'signing key missing';
    case 'ledger_intact':
      return 'intact';
    case 'ledger_empty':
      return 'empty';
    case 'ledger_findings':
      return 'audit findings';
    case 'ledger_unreadable':
      return 'unreadable';
    case 'sandbox_ready':
      return 'ready';
    case 'sandbox_missing':
      return 'missing';
    default:
      return unreachable(reason);
  }
}

/** One line per fact: its status, what it is about, the headline and the detail. */
export function renderDoctor(report: DoctorReport, p: Paint): string {
  const width = Math.max(...report.lines.map((line) => line.area.length));
  const mark = (line: DoctorLine) => (line.status === 'ok' ? p.green('ok  ') : line.status === 'off' ? p.dim('off ') : p.red('FAIL'));
  const lines = report.lines.map((line) => `${mark(line)} ${line.area.padEnd(width)}  ${reasonWords(line.reason)}: ${line.detail}`);
  const failed = report.lines.filter((line) => line.status === 'fail').length;
  lines.push(
    failed === 0
      ? 'vouch doctor: everything promised here is in force.'
      : `vouch doctor: ${failed} thing${failed === 1 ? '' : 's'} promised here ${failed === 1 ? 'is' : 'are'} not in force.`,
  );
  return lines.join('\n');
}

/** The --json shape: {ok, workspace, lines: [{area, status, reason, detail}]}. */
export function doctorJson(report: DoctorReport): unknown {
  return {
    ok: report.ok,
    workspace: report.workspace,
    lines: report.lines.map((line) => ({ area: line.area, status: line.status, reason: line.reason, detail: line.detail })),
  };
}
