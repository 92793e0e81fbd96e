import { dispatchJson } from '../../fleet/json.js';
import { isOpen } from '../../fleet/fold.js';
import { Dispatches } from '../../fleet/store.js';
import type { Dispatch } from '../../fleet/model.js';
import { paint } from '../../render/color.js';
import { renderBoard } from '../../render/fleet.js';
import { integerFlag, parse } from '../args.js';
import { EXIT } from '../exit.js';
import { json, out, type Cli } from '../io.js';
import { vouchHome } from '../../workspace/home.js';

export const help = `usage: vouch fleet [--open] [--limit N] [--json]

The dispatch board: every dispatch in this workspace, newest first, with its
state, its tier (a trailing ! marks a declared tier; otherwise it was
inferred), its age and its verdict: verified, CONTRADICTED, ungraded (nothing
graded its current claim: an absent grade is not a pass) or DAMAGED (its
record cannot be believed). A dispatch that never reported stays on the
board as dispatched until it is closed.

  --open     only dispatches not terminated
  --limit N  at most N rows (default: all)
  --json     {"dispatches": [{"id", "state", "tier", "verdict", "tier_source",
             "created_at", "prompt", "claim", "grade", "transitions", ...}]}`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values } = parse('fleet', args, { open: { type: 'boolean' }, limit: { type: 'string' }, json: { type: 'boolean' } }, false);
  const limit = integerFlag('fleet', 'limit', values.limit, 1);
  const workspace = cli.session.workspace();
  const ledger = await cli.session.read(workspace);
  let dispatches: Dispatch[] = [];
  if (ledger) {
    const spec = await cli.session.specIfValid(workspace);
    dispatches = await new Dispatches(ledger, { home: vouchHome(cli.io.env), requireSignature: spec?.requireSignature ?? false }).all();
  }
  const total = dispatches.length;
  if (values.open) dispatches = dispatches.filter(isOpen);
  const shown = limit === undefined ? dispatches : dispatches.slice(0, limit);
  if (values.json) {
    json(cli, { dispatches: shown.map((d) => dispatchJson(d)) });
    return EXIT.ok;
  }
  if (shown.length === 0) {
    out(cli, total === 0 ? 'no dispatches recorded yet (`vouch dispatch new`, or the Claude Code hooks: `vouch install claude-code`)' : 'no open dispatches');
    return EXIT.ok;
  }
  const p = paint(cli.color);
  out(cli, renderBoard(shown, p));
  const hidden = dispatches.length - shown.length;
  const open = dispatches.filter(isOpen).length;
  out(cli, p.dim(`${shown.length} shown${hidden > 0 ? `, ${hidden} more (--limit)` : ''} · ${open} open · ${total} in all`));
  return EXIT.ok;
}
