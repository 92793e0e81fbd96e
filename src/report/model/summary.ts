import type { ReportCard, ReportCheck, ReportDispatch, ReportIntegrity, ReportSession, ReportSummary } from './types.js';

function tally<K extends string>(keys: readonly K[], values: readonly string[]): Record<K, number> {
  return Object.fromEntries(keys.map((k) => [k, values.filter((v) => v === k).length])) as Record<K, number>;
}

/** At a glance, counted from the model itself, so the summary can never say what the sections do not. */
export function summarize(parts: {
  readonly checks: readonly ReportCheck[];
  readonly judged: boolean;
  readonly dispatches: readonly ReportDispatch[];
  readonly sessions: readonly ReportSession[];
  readonly cards: readonly ReportCard[];
  readonly integrity: ReportIntegrity;
}): ReportSummary {
  const { checks, dispatches, sessions, cards } = parts;
  return {
    checks: parts.judged
      ? tally(
          ['PASS', 'FAIL', 'STALE', 'UNKNOWN'],
          checks.flatMap((c) => (c.now ? [c.now.status] : [])),
        )
      : null,
    dispatches: {
      ...tally(
        ['verified', 'contradicted', 'ungraded', 'damaged'],
        dispatches.map((d) => d.verdict),
      ),
      open: dispatches.filter((d) => d.state !== 'terminated').length,
      drift: dispatches.filter((d) => d.drift !== null).length,
    },
    sessions: tally(
      ['allowed', 'blocked', 'escaped', 'no_stop'],
      sessions.map((s) => s.end),
    ),
    cards: tally(
      ['open', 'claimed', 'done', 'owner_closed', 'split', 'abandoned', 'damaged'],
      cards.map((c) => c.state),
    ),
    integrity: parts.integrity.state,
  };
}
