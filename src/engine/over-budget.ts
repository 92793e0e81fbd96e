import type { CheckDef, Spec } from '../spec/model.js';

/** A blocking check whose last run took longer than the gate waits in one stop. */
export interface OverBudget {
  readonly id: string;
  readonly durationMs: number;
  readonly budgetSeconds: number;
}

/**
 * The blocking checks whose latest receipt ran longer than
 * gate.budget_seconds: a stop will not see them finish within its budget,
 * so each stop that owes them is held while the gate's runner finishes them
 * (gate/background.ts). Said beforehand (`status`, `checks`) so a person can
 * raise the budget or split the check before an agent meets it.
 */
export function overBudget(spec: Pick<Spec, 'gate'>, checks: readonly CheckDef[], durations: ReadonlyMap<string, number>): OverBudget[] {
  const budgetMs = spec.gate.budgetSeconds * 1000;
  return checks.flatMap((check) => {
    const durationMs = durations.get(check.id);
    return check.block && durationMs !== undefined && durationMs > budgetMs ? [{ id: check.id, durationMs, budgetSeconds: spec.gate.budgetSeconds }] : [];
  });
}
