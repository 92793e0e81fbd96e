import { fail } from '../core/problem.js';
import type { CardActor, Role, VerifyMode } from './model.js';

/** What can be done to a card. */
export type CardAct = 'open' | 'claim' | 'verify' | 'complete' | 'force_close' | 'decide' | 'reprove' | 'audit' | 'reassign' | 'answer';

/**
 * Who may do what. The worker does the work and may not fix the acceptance
 * check (open, decide, reprove) nor vouch for it on an independent card;
 * the verifier checks and does no work (claim); a coordinator owns cards'
 * lifecycles; the owner is a person and alone may override.
 */
const ALLOWED: Readonly<Record<Exclude<CardAct, 'complete'>, readonly Role[]>> = {
  open: ['coordinator', 'owner'],
  claim: ['worker', 'coordinator', 'owner'],
  verify: ['worker', 'verifier', 'coordinator', 'owner'],
  force_close: ['owner'],
  decide: ['coordinator', 'owner'],
  reprove: ['owner'],
  audit: ['verifier', 'coordinator', 'owner'],
  reassign: ['coordinator', 'owner'],
  answer: ['coordinator', 'owner'],
};

/** Roles whose PASS counts, and who may close, by the card's verify mode. */
export function closers(mode: VerifyMode): readonly Role[] {
  return mode === 'independent' ? ['verifier', 'coordinator'] : ['worker', 'verifier', 'coordinator', 'owner'];
}

const WHY: Readonly<Record<CardAct, string>> = {
  open: 'opening a card freezes its acceptance check, and whoever does the work does not write that',
  claim: 'the verifier checks the work and does not do it',
  verify: 'every role may run the proof',
  complete: 'on an independent card only a verifier or coordinator closes it on a PASS, never the worker',
  force_close: "closing without a fresh PASS is the owner's override alone",
  decide: "decisions about a card (rescope, revise-script, split, abandon) are the coordinator's or the owner's",
  reprove: "changing a card's proof is the owner's alone",
  audit: 'audit after done is someone other than the worker checking again',
  answer: "a retry or an ask is the coordinator's (or the owner's) answer to a card event",
  reassign: "moving a card from the worker who holds it to another is the owner's or a coordinator's",
};

/** The acts that change what closes a card, so a person's: refused inside an agent run whatever the role. */
const PERSON_ACTS: ReadonlySet<CardAct> = new Set(['force_close', 'reprove', 'decide']);

/** Refuses the act unless the acting role may do it. A person's acts (reprove, decide, complete --force) are refused inside an agent run whatever the role. */
export function requireRole(by: CardActor, act: CardAct, mode: VerifyMode = 'proof'): void {
  if (PERSON_ACTS.has(act) && by.agent !== null) {
    const word = act === 'force_close' ? 'complete --force' : act;
    fail({
      code: 'card_agent_run',
      message: `${word} is ${act === 'decide' ? "a person's act (a coordinator's or the owner's decision changes what closes the card)" : "the owner's act"}, and this runs inside an agent run (${by.agent})`,
      hint: 'a person runs it at their own terminal, outside the agent; the agent can ask for it',
    });
  }
  const allowed = act === 'complete' ? closers(mode) : ALLOWED[act];
  if (!allowed.includes(by.role)) {
    // The owner is refused a plain close of an independent card, not every close: say which one is theirs.
    const ownersClose = act === 'complete' && by.role === 'owner';
    fail({
      code: 'card_role_refused',
      message: ownersClose
        ? 'the owner may not complete this card on a PASS: on an independent card a verifier or coordinator closes it on its PASS; the owner closes it with `vouch card complete ID --force --why TEXT`, recorded as owner_close, never as a pass'
        : `the ${by.role} may not ${act === 'force_close' ? 'force-close' : act} this card: ${WHY[act]}`,
      expected: `one of the roles: ${allowed.join(', ')}`,
      found: `${by.role} (${by.role_from === 'VOUCH_ROLE' ? 'from VOUCH_ROLE' : by.role_from === 'gate' ? "the gate at a card worker's stop" : by.agent ? `the default inside an agent run (${by.agent})` : 'the default for a person at a terminal'})`,
      hint: ownersClose
        ? 'a verifier runs `vouch card verify ID` and `vouch card complete ID` (VOUCH_ROLE=verifier), or the owner forces it with --force --why'
        : 'roles come from VOUCH_ROLE; see `vouch card --help`',
    });
  }
}
