import { doctor } from '../../doctor/doctor.js';
import { doctorJson, renderDoctor } from '../../doctor/render.js';
import { fail } from '../../core/problem.js';
import { describeLocation } from '../../ledger/location.js';
import { paint } from '../../render/color.js';
import { findWorkspace } from '../../workspace/find.js';
import { parse } from '../args.js';
import { EXIT } from '../exit.js';
import { json, out, type Cli } from '../io.js';

export const help = `usage: vouch doctor [--json]

What is wired in this workspace and whether it holds, one line each: the
workspace and vouch.yaml, trust and pins (every check's program and tool
configs as allowed), each agent client's gate at each scope (Claude Code,
Codex, Hermes, from the client registry) and git's pre-push hook, the MCP
entries vouch wrote, the box (and gate.require_box), keys, the ledger and
its audit, the sandbox's programs (bwrap, socat). Each line is ok, off (not
set up here, nothing promised) or FAIL: something vouch installed, or the
spec requires, is not in force. Reads only; runs no check. Outside a
workspace, the user-wide wiring only. Also \`hermes vouch doctor\`.

  --json  {"ok", "workspace", "lines": [{"area", "status": "ok"|"off"|"fail",
          "reason", "detail"}]}

exit: 0 everything promised is in force, 1 something is not, 2 usage`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values } = parse('doctor', args, { json: { type: 'boolean' } }, false);
  const self =
    cli.io.self ??
    fail({
      code: 'usage',
      message: 'vouch cannot tell the path of its own entry script, which the wiring it looks for names',
      hint: 'run vouch through its executable (dist/cli.js)',
    });
  const found = findWorkspace(cli.dir ?? cli.io.cwd, cli.dir !== undefined);
  const workspace = found.ok ? found.value : null;
  const loaded = workspace ? await cli.session.load(workspace) : null;
  const at = workspace && loaded?.ok ? await cli.session.ledgerAt(workspace) : null;
  const report = await doctor({
    root: workspace?.root ?? null,
    spec: loaded === null ? null : loaded.ok ? { ok: true, value: loaded.value } : { ok: false, why: loaded.error.message },
    env: cli.io.env,
    home: cli.session.home,
    self,
    openLedger: async () => (at ? cli.session.ledgerFor(at, false) : undefined),
    ledgerName: at ? describeLocation(at) : '',
  });
  if (values.json) json(cli, doctorJson(report));
  else out(cli, renderDoctor(report, paint(cli.color)));
  return report.ok ? EXIT.ok : EXIT.notOk;
}
