import { fail } from '../../core/problem.js';
import { denySpec } from '../../trust/trust.js';
import { vouchHome } from '../../workspace/home.js';
import { parse } from '../args.js';
import { EXIT } from '../exit.js';
import { json, out, type Cli } from '../io.js';
import { refuseInAgentRun } from '../person-only.js';

export const help = `usage: vouch deny [--json]

Withdraws trust from this workspace: nothing runs until \`vouch allow\` again,
and \`vouch status\` reports every check UNKNOWN (spec_not_allowed).
Receipts already recorded are kept. Refused inside an agent run (exit 4,
agent_run), like \`vouch allow\`: trust is the person's to give and take.`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values } = parse('deny', args, { json: { type: 'boolean' } }, false);
  refuseInAgentRun(cli.io.env, 'vouch deny');
  const workspace = cli.session.workspace();
  const removed = denySpec(vouchHome(cli.io.env), workspace.root);
  if (!removed.ok) return fail(removed.error);
  if (values.json) json(cli, { ok: true, workspace: workspace.root, was_allowed: removed.value });
  else out(cli, removed.value ? `denied: ${workspace.root} is no longer allowed` : `${workspace.root} was not allowed; nothing to do`);
  return EXIT.ok;
}
