import type { Status } from '../core/status.js';
import type { CheckStatus } from '../engine/status.js';
import type { Paint } from './color.js';
import { explainReason } from './reasons.js';
import { table } from './table.js';
import { ago } from './time.js';

export function statusWord(status: Status, p: Paint): string {
  switch (status) {
    case 'PASS':
      return p.green(status);
    case 'FAIL':
      return p.red(status);
    case 'STALE':
      return p.yellow(status);
    case 'UNKNOWN':
      return p.yellow(status);
  }
}

/**
 * The verdict over a selection: every selected blocking check PASS. When
 * only advisory checks were selected, they are what is judged: a selection
 * with nothing graded is never a pass.
 */
export function allPass(statuses: readonly Pick<CheckStatus, 'status' | 'blocking'>[]): boolean {
  const blocking = statuses.filter((s) => s.blocking);
  const judged = blocking.length > 0 ? blocking : statuses;
  return judged.length > 0 && judged.every((s) => s.status === 'PASS');
}

export function renderStatusTable(statuses: readonly CheckStatus[], p: Paint, now = new Date()): string {
  const rows = statuses.map((s) => {
    const why = s.status === 'PASS' ? p.dim(ago(s.recorded_at, now)) : `${s.reason}${s.detail ? p.dim(` · ${s.detail}`) : ''}`;
    const remote = s.verifier ? p.dim(` · remote, verifier ${s.verifier.slice(0, 16)}`) : '';
    return [statusWord(s.status, p), s.blocking ? s.id : `${s.id} ${p.dim('(advisory)')}`, why + remote];
  });
  return table(rows);
}

export function renderSummary(statuses: readonly Pick<CheckStatus, 'id' | 'status' | 'reason' | 'blocking'>[], p: Paint): string {
  const blocking = statuses.filter((s) => s.blocking);
  const passing = blocking.filter((s) => s.status === 'PASS').length;
  const lines: string[] = [];
  if (allPass(statuses)) {
    lines.push(p.green(blocking.length > 0 ? `all ${blocking.length} blocking check${blocking.length === 1 ? '' : 's'} PASS` : 'all selected advisory checks PASS'));
  } else {
    lines.push(`${passing} of ${blocking.length} blocking check${blocking.length === 1 ? '' : 's'} PASS`);
    const next = statuses.find((s) => s.blocking && s.status !== 'PASS') ?? statuses.find((s) => s.status !== 'PASS');
    if (next) {
      const { next: todo } = explainReason(next.reason, next.id);
      if (todo) lines.push(`${p.cyan('next:')} ${todo}`);
    }
  }
  return lines.join('\n');
}

export function statusJson(statuses: readonly CheckStatus[]): { ok: boolean; checks: unknown[] } {
  return { ok: allPass(statuses), checks: statuses.map(statusEntry) };
}

/** One check's status as --json and MCP give it: the published fields only, never the engine's own (fresh, fingerprint). */
export function statusEntry(s: CheckStatus) {
  return {
    id: s.id,
    status: s.status,
    reason: s.reason,
    blocking: s.blocking,
    receipt: s.receipt,
    detail: s.detail,
    recorded_at: s.recorded_at,
    ...(s.changed && { changed: s.changed }),
    ...(s.verifier && { verifier: s.verifier }),
    ...(s.agentRun && { agent_run: s.agentRun }),
  };
}
