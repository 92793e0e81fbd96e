/**
 * Task cards: a contract whose proof is frozen when the work is ordered,
 * closed only on a fresh PASS of that proof. Front ends (CLI, MCP, the
 * fleet report) use these functions; the events in the ledger are the only
 * state.
 */
export { listCards, cardView, cardJson, summarize, eventJson, type CardSummary, type ListOptions } from './read.js';
export type { CardView, CardState, Grade, CardEntry, Contract } from './fold.js';
export type { LoadedCard } from './load.js';
export type { CardEvent, CardEventName, CardActor, Role, VerifyMode, ProofSnapshot } from './model.js';
export { CARD_EVENTS, ROLES } from './model.js';
export { CARD_ID_PATTERN } from './store.js';
