import type { Reuse } from '../engine/reuse.js';
import type { Ledger } from '../ledger/ledger.js';
import { stampSeen } from './stamp.js';

/**
 * What the gate reuses: an earlier PASS of the same state that the gate
 * would count as a fresh PASS itself, i.e. one a stop ran (stamped by a
 * session vouch saw through the client's hooks here). A PASS recorded
 * inside the agent's run, by a person, or under a stop vouch never saw is
 * never reused by the gate: it runs the check instead. (A remote PASS is
 * judged by its signature at status, not reused here.)
 */
export function gateReuse(home: string, root: string, ledger: Pick<Ledger, 'passesOf'>): Reuse {
  return { ledger, accept: (receipt) => receipt.body.gate !== undefined && stampSeen(home, root, receipt.body.gate) };
}
