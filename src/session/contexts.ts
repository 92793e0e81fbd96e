import type { CardContext } from '../cards/context.js';
import type { CardActor } from '../cards/model.js';
import type { VerifyEvent } from '../engine/context.js';
import type { GateContext } from '../gate/context.js';
import type { Workspace } from '../workspace/find.js';
import type { Session } from './session.js';

/** The base every context shares, from the session. */
function base(session: Session) {
  return {
    home: session.home,
    env: session.env,
    ...(session.now && { now: session.now }),
    ...(session.signal && { signal: session.signal }),
    ...(session.hashWorker && { hashWorker: session.hashWorker }),
  };
}

/** The gate's context: the session's specs and ledgers, for every workspace a stop answers for. */
export function gateContext(session: Session): GateContext {
  return { ...base(session), ledgers: session, specs: session };
}

/** The card engine's context: one workspace, who acts, and the session's specs and ledgers. */
export function cardContext(session: Session, workspace: Workspace, by: CardActor, onEvent?: (event: VerifyEvent) => void): CardContext {
  return { ...base(session), workspace, by, ledgers: session, specs: session, ...(onEvent && { onEvent }) };
}
