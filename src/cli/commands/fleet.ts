import { fail } from '../../core/problem.js';
import { dispatchJson } from '../../fleet/json.js';
import { isOpen } from '../../fleet/fold.js';
import { pinDrift } from '../../fleet/drift.js';
import { Dispatches } from '../../fleet/store.js';
import type { Dispatch } from '../../fleet/model.js';
import { paint } from '../../render/color.js';
import { renderBoard } from '../../render/fleet.js';
import { choiceFlag, integerFlag, parse } from '../args.js';
import { EXIT } from '../exit.js';
import { json, out, type Cli } from '../io.js';
import { vouchHome } from '../../workspace/home.js';

export const help = `usage: vouch fleet [--open] [--limit N] [--format text|json] [--json]

The dispatch board: every dispatch in this workspace, newest first, with its
state, its tier (a trailing ! marks a declared tier; otherwise it was
inferred), its age and its verdict: verified, CONTRADICTED, ungraded (nothing
graded its current claim: an absent grade is not a pass) or DAMAGED (its
record cannot be believed). DRIFT beside the verdict: the vouch.yaml the
dispatch pinned when it was ordered is not the one in force now (an open one
cannot be graded; close it and dispatch the work again). A dispatch that
never reported stays on the board as dispatched until it is closed.

  --open           only dispatches not terminated
  --limit N        at most N rows (default: all)
  --format FORMAT  text (the board, default) or json
  --json           the same as --format json: {"spec_sha256", "dispatches":
                   [{"id", "state", "tier", "verdict", "drift", "tier_source",
                   "created_at", "prompt", "claim", "grade", "transitions", ...}]};
                   "drift" is {"pinned", "now"} or null, "spec_sha256" the
                   vouch.yaml in force (null when none is valid)`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values } = parse(
    'fleet',
    args,
    { open: { type: 'boolean' }, limit: { type: 'string' }, format: { type: 'string' }, json: { type: 'boolean' } },
    false,
  );
  const limit = integerFlag('fleet', 'limit', values.limit, 1);
  const chosen = choiceFlag('fleet', 'format', values.format, ['text', 'json']);
  if (values.json && chosen === 'text')
    return fail({ code: 'usage', message: '--json and --format text ask for two formats', where: 'vouch fleet', hint: 'give one of them' });
  const format = values.json ? 'json' : (chosen ?? 'text');
  const workspace = cli.session.workspace();
  const spec = await cli.session.specIfValid(workspace);
  const specNow = spec?.sha256 ?? null;
  const ledger = await cli.session.read(workspace);
  let dispatches: Dispatch[] = [];
  if (ledger) dispatches = await new Dispatches(ledger, { home: vouchHome(cli.io.env), requireSignature: spec?.requireSignature ?? false }).all();
  const total = dispatches.length;
  if (values.open) dispatches = dispatches.filter(isOpen);
  const shown = limit === undefined ? dispatches : dispatches.slice(0, limit);
  if (format === 'json') {
    json(cli, { spec_sha256: specNow, dispatches: shown.map((d) => dispatchJson(d, specNow)) });
    return EXIT.ok;
  }
  if (shown.length === 0) {
    out(cli, total === 0 ? 'no dispatches recorded yet (`vouch dispatch new`, or the Claude Code hooks: `vouch install claude-code`)' : 'no open dispatches');
    return EXIT.ok;
  }
  const p = paint(cli.color);
  out(cli, renderBoard(shown, specNow, p));
  const hidden = dispatches.length - shown.length;
  const open = dispatches.filter(isOpen).length;
  const drifted = shown.filter((d) => pinDrift(d, specNow) !== null).length;
  out(cli, p.dim(`${shown.length} shown${hidden > 0 ? `, ${hidden} more (--limit)` : ''} · ${open} open · ${total} in all`));
  if (drifted > 0)
    out(
      cli,
      `${p.red('DRIFT')}: ${drifted === 1 ? '1 dispatch pins' : `${drifted} dispatches pin`} a vouch.yaml other than the one in force (${specNow ?? 'none is valid now'}); \`vouch dispatch show ID\` says what it pinned`,
    );
  return EXIT.ok;
}
