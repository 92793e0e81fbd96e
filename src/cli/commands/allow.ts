import { fail } from '../../core/problem.js';
import { allowSpec, trustState } from '../../trust/trust.js';
import { vouchHome } from '../../workspace/home.js';
import { parse } from '../args.js';
import { EXIT } from '../exit.js';
import { json, out, type Cli } from '../io.js';
import { refuseInAgentRun } from '../person-only.js';
import { specOf, workspaceOf } from '../session.js';

export const help = `usage: vouch allow [--json]

Trusts this exact vouch.yaml (its SHA-256) for this workspace, like
\`direnv allow\`. Until then nothing runs: the spec decides which commands run
on this machine, so a person reads it and allows it. Editing the spec (or a
\`git pull\` that changes it) withdraws trust until it is allowed again.

The record lives under VOUCH_HOME, outside the repository. An invalid spec
cannot be allowed: fix it first (\`vouch checks\` shows every problem).

Refused inside an agent run (Claude Code, Codex, Cursor, Gemini CLI, or
AI_AGENT set): exit 4, agent_run. An agent must not allow its own edit of
the spec; a person runs this in their own terminal.`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values } = parse('allow', args, { json: { type: 'boolean' } }, false);
  refuseInAgentRun(cli.io.env, 'vouch allow');
  const workspace = workspaceOf(cli);
  const spec = specOf(workspace, cli);
  const home = vouchHome(cli.io.env);
  const before = trustState(home, workspace.root, spec.sha256);
  if (!before.ok) return fail(before.error);
  const allowed = allowSpec(home, workspace.root, spec.sha256);
  if (!allowed.ok) return fail(allowed.error);
  if (values.json) {
    json(cli, { ok: true, workspace: workspace.root, spec_sha256: spec.sha256, previously: before.value.kind });
  } else {
    const was = before.value.kind === 'allowed' ? ' (already allowed)' : before.value.kind === 'changed' ? ' (replacing an earlier version)' : '';
    out(cli, `allowed ${spec.path}${was}\n  sha256 ${spec.sha256}\n  ${spec.checks.length} check${spec.checks.length === 1 ? '' : 's'}: ${spec.checks.map((c) => c.id).join(', ')}`);
  }
  return EXIT.ok;
}
