import type { GateStamp } from '../receipt/receipt.js';
import { isWatched } from './session-record.js';

/**
 * Whether a receipt's gate stamp names a stop vouch saw: the stamp's session
 * has a record in this workspace under this VOUCH_HOME, which the client's
 * own hooks write at the session's first call (session-record.ts), and the
 * stop answering now has made for its own session before it grades. A
 * `vouch hook ... Stop` the agent ran itself with a throw-away VOUCH_HOME
 * left its record there, not here, so the receipts it stamped do not count
 * for any stop; a genuine earlier stop of this session, or of a sibling
 * session in the same workspace, does. One stat.
 */
export function stampSeen(home: string, root: string, stamp: GateStamp): boolean {
  return isWatched(home, stamp.client, stamp.session, root);
}
