import { fail } from '../../core/problem.js';
import { checkStatuses } from '../../engine/status.js';
import { wiredBox } from '../../gate/box-wired.js';
import { renderBox } from '../../render/box.js';
import { paint } from '../../render/color.js';
import { allPass } from '../../engine/outcome.js';
import { overBudget } from '../../engine/over-budget.js';
import { overBudgetJson, renderOverBudget } from '../../render/over-budget.js';
import { renderStatusTable, renderSummary, statusJson } from '../../render/status.js';
import { selectChecks } from '../../spec/select.js';
import { parse } from '../args.js';
import { EXIT } from '../exit.js';
import { json, out, type Cli } from '../io.js';
import { enterWorkspace } from '../workspace-dir.js';

export const help = `usage: vouch status [ID...] [--json]

Each check's current status: its latest receipt judged against the files as
they are now. PASS only while every covered file and the check's definition
are unchanged; an edit turns it STALE.

  --json   one object on stdout: {"ok", "checks": [{"id", "status", "reason",
           "blocking", "receipt", "detail", "recorded_at", "changed"?}],
           "over_budget"?: [{"id", "duration_ms", "budget_seconds"}],
           "box"?: {"client", "on", "gaps"}}

A blocking check whose last run took longer than gate.budget_seconds is
named in a warning: an agent's stop is held while the gate's runner
finishes it.

Where vouch's Claude Code hooks are wired, it also says whether the agent
works in the box (Claude Code's sandbox holding what vouches read-only), as
its settings are now, and what is missing when it does not.

exit: 0 every selected blocking check PASS, 1 otherwise, 2 usage/spec/ledger problem`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values, positionals } = parse('status', args, { json: { type: 'boolean' } });
  const session = cli.session;
  const workspace = session.workspace();
  const spec = await session.spec(workspace);
  const checks = selectChecks(spec, positionals);
  const ctx = session.engine(workspace, spec, 'cli', { cwdIsRoot: enterWorkspace(workspace) });
  const result = await checkStatuses(ctx, checks, { openLedger: () => session.read(workspace) });
  if (result.kind === 'trust_error') return fail(result.problem);
  const statuses = result.statuses;
  const box = wiredBox(workspace.root, cli.io.env, spec.protect);
  const slow = overBudget(spec, checks, new Map(statuses.flatMap((s) => (s.durationMs === undefined ? [] : [[s.id, s.durationMs] as const]))));
  if (values.json) {
    json(cli, { ...statusJson(statuses, checks), ...(slow.length > 0 && { over_budget: overBudgetJson(slow) }), ...(box && { box }) });
  } else {
    const p = paint(cli.color);
    out(cli, renderStatusTable(statuses, p));
    out(cli, renderSummary(statuses, p));
    const warning = renderOverBudget(slow, p);
    if (warning) out(cli, warning);
    if (box) out(cli, renderBox(box, p));
  }
  return allPass(statuses) ? EXIT.ok : EXIT.notOk;
}
