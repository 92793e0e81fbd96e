import type { Status } from '../core/status.js';
import { allPass, statusEntry } from '../engine/outcome.js';
import type { CheckStatus } from '../engine/status.js';
import type { CheckDef } from '../spec/model.js';
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
    lines.push(
      p.green(blocking.length > 0 ? `all ${blocking.length} blocking check${blocking.length === 1 ? '' : 's'} PASS` : 'all selected advisory checks PASS'),
    );
  } else {
    lines.push(`${passing} of ${blocking.length} blocking check${blocking.length === 1 ? '' : 's'} PASS`);
    for (const todo of nextSteps(statuses)) lines.push(`${p.cyan('next:')} ${todo}`);
  }
  return lines.join('\n');
}

/** How many different next steps a summary names; the rest are for `vouch status`'s rows. */
const NEXT_STEPS = 3;

/**
 * What to do next for every check that does not pass (blocking ones, or
 * the advisory ones when every blocking one passes), one line per kind of
 * step: checks with the same step are named together ("`vouch verify a
 * b`"), so a second stale check is never left out.
 */
function nextSteps(statuses: readonly Pick<CheckStatus, 'id' | 'status' | 'reason' | 'blocking'>[]): string[] {
  const failing = statuses.filter((s) => s.blocking && s.status !== 'PASS');
  const owed = failing.length > 0 ? failing : statuses.filter((s) => s.status !== 'PASS');
  const steps = new Map<string, string[]>();
  for (const status of owed) {
    // The step with the check's id taken out, so that checks owing the same step share a line.
    const mark = '\u0000';
    const { next } = explainReason(status.reason, mark);
    if (next === null) continue;
    const ids = steps.get(next) ?? [];
    ids.push(status.id);
    steps.set(next, ids);
  }
  return [...steps].slice(0, NEXT_STEPS).map(([step, ids]) => step.split('\u0000').join(ids.join(' ')));
}

export function statusJson(statuses: readonly CheckStatus[], checks: readonly CheckDef[]): { ok: boolean; checks: unknown[] } {
  return {
    ok: allPass(statuses),
    checks: statuses.map((s) =>
      statusEntry(
        s,
        checks.find((c) => c.id === s.id)!,
      ),
    ),
  };
}
