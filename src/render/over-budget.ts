import type { OverBudget } from '../engine/over-budget.js';
import type { Paint } from './color.js';

/** The warning `status` and `checks` print for blocking checks slower than the gate's budget. */
export function renderOverBudget(slow: readonly OverBudget[], p: Paint): string | null {
  if (slow.length === 0) return null;
  return slow
    .map(
      (s) =>
        `${p.yellow('warning:')} ${s.id}'s last run took ${(s.durationMs / 1000).toFixed(1)}s, longer than gate.budget_seconds (${s.budgetSeconds}s): ` +
        `an agent's stop will be held while the gate's runner finishes it.\n    ${p.dim('→ raise gate.budget_seconds in vouch.yaml, split the check, or lower its timeout:')}`,
    )
    .join('\n');
}

/** The same, for --json. */
export function overBudgetJson(slow: readonly OverBudget[]): { id: string; duration_ms: number; budget_seconds: number }[] {
  return slow.map((s) => ({ id: s.id, duration_ms: s.durationMs, budget_seconds: s.budgetSeconds }));
}
