import type { CardView } from './fold.js';

/**
 * The contract in one line, as the intake prints it (Claude Code's
 * vouch_card_open, Hermes's `/vouch card`, `vouch card open --json`):
 * artifact · proof · budget · card id · who owns it.
 */
export function contractLine(view: CardView): string {
  const proof = view.proof.kind === 'checks' ? view.proof.checks.map((c) => c.id).join(', ') : `script ${view.proof.path}`;
  const budget = `${view.contract.budget_attempts} attempts${view.contract.budget_tokens === null ? '' : `, ${view.contract.budget_tokens} tokens`}`;
  return `${view.contract.artifact} · proof ${proof} (frozen) · budget ${budget} · ${view.id} · owned by the ${view.opened.body.by.role}`;
}
