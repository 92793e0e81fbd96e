import { noteLoaded } from '../core/start.js';
import type { StoredEvent } from '../ledger/events.js';
import type { DispatchBody, Dispatch, DispatchedBody, GradedBody, ReportedBody, Transition } from './model.js';
import { canMove, isDispatchState, type DispatchState } from './states.js';

noteLoaded('fleet');

/**
 * A dispatch as its events say. Its state is its last transition. A record
 * that cannot be believed reads as damaged, never as what it claims: an
 * event whose bytes no longer match their hash, one that is not a
 * dispatch transition, or a sequence no writer could have produced (a
 * transition from a state the dispatch was not in: entries edited,
 * deleted or moved), or one whose signature does not hold (`distrusted`,
 * judged by the store). A damaged dispatch that was terminated afterwards is
 * terminated, and its verdict stays `damaged`.
 */
export function foldDispatch(id: string, events: readonly StoredEvent[], distrusted: ReadonlyMap<number, string> = new Map()): Dispatch {
  let state: DispatchState | null = null;
  let damage: string | null = null;
  let order: DispatchedBody | null = null;
  let claim: ReportedBody | null = null;
  let grade: GradedBody | null = null;
  const grades: GradedBody[] = [];
  const transitions: Transition[] = [];
  const unreadable: { seq: number; id: string; why: string }[] = [];
  let lastIntact = false;
  let current: StoredEvent | null = null;

  const damaged = (why: string) => {
    damage ??= why;
    lastIntact = false;
    if (current) unreadable.push({ seq: current.seq, id: current.body.id || '', why });
  };

  for (const stored of events) {
    current = stored;
    const body = stored.body as Partial<DispatchBody>;
    if (!stored.intact) {
      damaged(`event ${stored.body.id || `at seq ${stored.seq}`} (seq ${stored.seq}) no longer matches its hash: it was altered`);
      continue;
    }
    const distrust = distrusted.get(stored.seq);
    if (distrust !== undefined) {
      damaged(`event ${stored.body.id} (seq ${stored.seq}) ${distrust}`);
      continue;
    }
    if (body.kind !== 'dispatch' || !isDispatchState(body.event) || !(body.from === null || isDispatchState(body.from)) || typeof body.writer !== 'object') {
      damaged(`event ${stored.body.id} (seq ${stored.seq}) is not a dispatch transition`);
      continue;
    }
    const to = body.event;
    const from = body.from;
    // Before any damage the fold knows the state and checks the event against it;
    // after damage it can only check that the event is a legal step in itself.
    const legal = damage === null ? from === state && canMove(state, to) : canMove(from, to);
    if (!legal) {
      damaged(
        `event ${stored.body.id} (seq ${stored.seq}) moves ${from ?? '(new)'} → ${to}, but the dispatch was ${state ?? 'not on record'}: the record was edited or entries are missing`,
      );
      continue;
    }
    const event = body as DispatchBody;
    state = to;
    lastIntact = true;
    transitions.push({ seq: stored.seq, id: event.id, at: event.at, from, to, writer: event.writer, why: event.why, signed: stored.signature !== null });
    switch (event.event) {
      case 'dispatched':
        order = event;
        break;
      case 'reported':
        claim = event;
        grade = null;
        break;
      case 'verified':
      case 'contradicted':
        grade = event;
        grades.push(event);
        break;
      case 'terminated':
        break;
    }
  }
  current = null;
  if (events.length > 0 && order === null) damaged('its order (the dispatched event) is missing or damaged');

  const first = events.find((e) => e.intact)?.body.at ?? null;
  const last = events[events.length - 1];
  return {
    id,
    state: damage === null || (state === 'terminated' && lastIntact) ? (state ?? 'damaged') : 'damaged',
    lastState: state,
    verdict: damage !== null ? 'damaged' : grade !== null ? grade.event : 'ungraded',
    damage,
    order,
    claim,
    grade,
    grades,
    transitions,
    unreadable,
    lastEventId: last?.body.id || null,
    createdAt: order?.at ?? first,
    updatedAt: last?.body.at || null,
  };
}

/** Not terminated: still owed something (a report, a grade, a close). */
export function isOpen(dispatch: Dispatch): boolean {
  return dispatch.state !== 'terminated';
}
