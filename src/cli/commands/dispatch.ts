import { fail } from '../../core/problem.js';
import type { Cli } from '../io.js';

export const help = `usage: vouch dispatch new (--prompt TEXT | --prompt-file FILE) [--tier T] [--parent ID]
                          [--card ID] [--session ID] [--json]
       vouch dispatch report ID --report FILE|- [--json]
       vouch dispatch grade ID [--json]
       vouch dispatch close ID [--reason TEXT] [--json]
       vouch dispatch show ID [--json]

A dispatch is one agent sent to do work, on record from before it starts to
after it is closed: dispatched -> reported -> verified | contradicted ->
terminated (contradicted -> reported again; terminated from any state).
Every transition is a signed (when the workspace signs), hash-chained ledger
entry naming the process that wrote it and why.

  new      record the order before any work starts: the prompt (--prompt, or
           --prompt-file FILE, - for stdin), the tier (--tier leaf|lane|
           coordinator|bridge, else inferred from the chain: no parent =
           bridge, ordered by a session or by a top dispatch = lane, deeper =
           leaf), the checks that will grade it, and the SHA-256 of the
           vouch.yaml in force (its pin). --parent ID: the dispatch that
           ordered it. --session ID: the agent session that ordered it (its
           Stop gate then waits for it). --card ID: the task card it works on (on record).
  report   record the agent's claim, a JSON file (- for stdin):
             {"summary": "...", "deliverables": [{"what": "...",
              "evidence": "executed" | "observed" | "believed", "how": "..."}]}
           the agent's words: recorded, never evidence
  grade    the checker: grade a reported dispatch at its tier with the
           blocking checks of vouch.yaml (untiered ones apply at every tier),
           running what is not a fresh PASS. verified or contradicted; no
           verdict (ungraded) when its tier has no blocking check. Refused
           when vouch.yaml changed since the pin (exit 5).
  close    terminate it, from any state; --reason TEXT says why (recorded)
  show     one dispatch with every transition and its writer; DRIFT when
           its pin is not the vouch.yaml in force

IDs may be given as a unique prefix of 6+ characters. \`vouch fleet\` is the board.
exit: 0 done (grade: verified) · 1 grade: contradicted or ungraded · 2 usage,
      spec, claim or ledger problem · 4 the dispatch's state does not allow it
      · 5 pin drift`;

const SUBCOMMANDS = ['new', 'report', 'grade', 'close', 'show'] as const;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'new':
      return (await import('../dispatch/new.js')).dispatchNew(cli, rest);
    case 'report':
      return (await import('../dispatch/report.js')).dispatchReport(cli, rest);
    case 'grade':
      return (await import('../dispatch/grade.js')).dispatchGrade(cli, rest);
    case 'close':
      return (await import('../dispatch/close.js')).dispatchClose(cli, rest);
    case 'show':
      return (await import('../dispatch/show.js')).dispatchShow(cli, rest);
    default:
      return fail({
        code: 'usage',
        message: sub === undefined ? 'dispatch needs a subcommand' : `unknown dispatch subcommand "${sub}"`,
        where: 'vouch dispatch',
        expected: SUBCOMMANDS.join(', '),
        hint: 'run `vouch dispatch --help`',
      });
  }
}
