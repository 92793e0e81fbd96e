import type { GateBody, StoredSessionEntry, TrailBody } from '../ledger/session-entries.js';

/** One agent session as the gate saw it: how its stops were answered, and its own trail. */
export interface SessionSummary {
  readonly session: string;
  readonly client: string | null;
  /** The last gate decision, or null when the session never stopped. */
  readonly last: GateBody['decision'] | null;
  readonly escaped: boolean;
  readonly blocks: number;
  readonly first_at: string | null;
  readonly last_at: string | null;
  readonly decisions: GateBody[];
  readonly trail: TrailBody[];
  /** Entries whose stored bytes no longer match their hash: counted, never read. */
  readonly damaged: number;
}

export function summarizeSession(session: string, entries: readonly StoredSessionEntry[]): SessionSummary {
  const intact = entries.filter((e) => e.intact);
  const decisions = intact.flatMap((e) => (e.body.kind === 'gate' ? [e.body] : []));
  const trail = intact.flatMap((e) => (e.body.kind === 'trail' ? [e.body] : []));
  return {
    session,
    client: intact[0]?.body.client ?? null,
    last: decisions[decisions.length - 1]?.decision ?? null,
    escaped: decisions.some((d) => d.decision === 'escaped'),
    blocks: decisions.filter((d) => d.decision === 'block').length,
    first_at: intact[0]?.body.at ?? null,
    last_at: intact[intact.length - 1]?.body.at ?? null,
    decisions,
    trail,
    damaged: entries.length - intact.length,
  };
}
