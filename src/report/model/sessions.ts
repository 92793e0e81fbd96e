import type { SessionSummary } from '../../gate/session-summary.js';
import type { ReportSession } from './types.js';

/** How a session's stops ended: escaped if any stop was let through unverified, else its last answer. */
export function sessionEnd(s: SessionSummary): ReportSession['end'] {
  if (s.escaped) return 'escaped';
  if (s.last === 'allow') return 'allowed';
  if (s.last === 'block') return 'blocked';
  return 'no_stop';
}

/** One agent session as the gate saw it: each stop's claim (the agent's words) beside the gate's answer. */
export function sessionEntry(s: SessionSummary): ReportSession {
  return {
    id: s.session,
    client: s.client,
    end: sessionEnd(s),
    blocks: s.blocks,
    tool_calls: s.trail.length,
    first_at: s.first_at,
    last_at: s.last_at,
    damaged_entries: s.damaged,
    stops: s.decisions.map((g) => ({
      at: g.at,
      event: g.event,
      agent_id: g.agent_id,
      claim: g.claim ? { text: g.claim.text, truncated: g.claim.truncated } : null,
      decision: g.decision,
      reason: g.reason,
      checks: g.checks.map((c) => ({ id: c.id, status: c.status, reason: c.reason, receipt: c.receipt })),
    })),
  };
}
