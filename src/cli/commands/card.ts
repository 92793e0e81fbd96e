import { fail } from '../../core/problem.js';
import { closest } from '../../core/suggest.js';
import type { Cli } from '../io.js';

export const help = `usage: vouch card <subcommand> [options]

Task cards: a contract (goal, artifact, done-when, proof, budget) whose proof
is frozen when the work is ordered. Closing is refused without a fresh PASS of
that proof; a forced close is recorded as owner_close, never as a pass.

  open --goal TEXT --artifact PATH --done-when TEXT
       (--proof CHECK_ID... | --proof-script NAME [--scope GLOB]... [--timeout S])
       [--lands-at BRANCH] [--budget-attempts N] [--budget-tokens N]
       [--verify proof|independent]
                  open a card; its proof is frozen now from the allowed
                  vouch.yaml (full check definitions and digests). --proof is
                  repeatable (or comma-separated). --proof-script names a
                  script under .vouch/cards/<card>/ that the verifier writes;
                  its scope defaults to the artifact; such a card is always
                  verified independently. Budget default 5 attempts;
                  --budget-tokens N stops the card's worker past N tokens
                  (and at five failed tool calls in a row, always).
  list [--open]   the board: id, state, grade (ungraded when never verified),
                  attempts/budget, verify mode, goal
  show ID         the contract, the frozen proof, whether it would close now,
                  and every event with who wrote it
  claim ID [--as NAME]
                  a worker starts (a PASS before the newest claim no longer
                  closes the card). One writer per card: while NAME (default
                  VOUCH_WORKER, else role@client) holds it, another's claim
                  is refused (card_claimed)
  claim ID --as NAME --reassign --why TEXT
                  the owner or a coordinator moves the card to NAME
  verify ID       run the frozen proof (never the current spec) and record a
                  verdict tied to its receipts; one attempt of the budget
  complete ID     close on a fresh PASS newer than the last change; otherwise
                  refused, exit 4, with the reason code. The proof then runs
                  once more on its own (an audit on close)
  complete ID --force --why TEXT
                  the owner's override, outside any agent run: recorded as
                  owner_close, never as a pass
  decide ID rescope|revise-script|split|abandon|retry|ask --why TEXT
                  a recorded decision (coordinator or owner, outside any
                  agent run):
                  rescope [--goal T] [--artifact P] [--done-when T]
                          [--lands-at B] [--budget-attempts N]  (never the proof)
                  revise-script [--sha256 HEX]  authorise the script's new
                          hash, exactly once (HEX: the hash you reviewed)
                  split [--into CARD]...   abandon
  decide ID retry --why TEXT | ask --question TEXT
                  the coordinator's answer to a card event (also inside its
                  agent run): retry frees the card for a fresh worker; ask
                  stores one question with the proof's last two failure
                  lines. A coordinator takes one decision per card event
  reprove ID (--proof CHECK_ID... | --proof-script NAME [--scope G] [--timeout S]) --why TEXT
                  the owner changes the proof, outside any agent run
  audit ID | --all
                  re-run the proof of done cards (verifier, coordinator or
                  owner); a FAIL is recorded and opens a follow-up card
                  (at most two deep)

Every subcommand takes --json (one object on stdout) and -C DIR.

roles: worker, verifier, coordinator, owner, from VOUCH_ROLE; unset, a person
at a terminal is the owner and an agent run (CLAUDECODE, CODEX_THREAD_ID,
AI_AGENT, ...) is a worker. The owner cannot be taken inside an agent run.
VOUCH_ROLE is a label the same user can set: the boundary is the verifier
service, not this variable. reprove, decide and complete --force are a
person's acts: refused inside an agent run (card_agent_run), and an agent
session during which the ledger records one is blocked at its stop
(person_act_in_session), whoever ran it.

exit: 0 ok (verify/audit: PASS), 1 the proof did not pass (FAIL, UNKNOWN) or
the card is damaged, 2 usage, spec or ledger problem, 4 refused by the card's
contract (card_no_verdict, card_not_passing, card_pass_before_claim, card_claimed,
card_failed_since, card_stale, card_changed_since, card_not_landed, card_pass_not_independent, card_pass_self_made, card_role_refused,
card_agent_run, card_over_budget, card_closed, card_script_changed,
card_script_unusable, card_proof_frozen, card_decision_invalid, card_decision_taken, card_not_done)`;

const SUBCOMMANDS = {
  open: () => import('./card/open.js'),
  list: () => import('./card/list.js'),
  show: () => import('./card/show.js'),
  claim: () => import('./card/claim.js'),
  verify: () => import('./card/verify.js'),
  complete: () => import('./card/complete.js'),
  decide: () => import('./card/decide.js'),
  reprove: () => import('./card/reprove.js'),
  audit: () => import('./card/audit.js'),
} as const satisfies Record<string, () => Promise<{ run(cli: Cli, args: readonly string[]): Promise<number> }>>;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const at = args.findIndex((arg, i) => !arg.startsWith('-') && args[i - 1] !== '-C' && args[i - 1] !== '--dir');
  const name = at < 0 ? undefined : args[at]!;
  const known = Object.keys(SUBCOMMANDS);
  if (name === undefined || !(name in SUBCOMMANDS)) {
    const guess = name ? closest(name, known) : undefined;
    return fail({
      code: 'usage',
      message: name ? `unknown card subcommand "${name}"${guess ? ` (did you mean "${guess}"?)` : ''}` : 'vouch card needs a subcommand',
      expected: `one of: ${known.join(', ')}`,
      hint: 'run `vouch card --help`',
    });
  }
  const sub = await SUBCOMMANDS[name as keyof typeof SUBCOMMANDS]();
  return sub.run(cli, [...args.slice(0, at), ...args.slice(at + 1)]);
}
