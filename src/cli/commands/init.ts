import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { fail } from '../../core/problem.js';
import { DETECTED_FROM, detectChecks, renderSpec } from '../../init/detect.js';
import { writeProposedSpec } from '../../init/write.js';
import { SPEC_FILE } from '../../spec/load.js';
import { pinsFor } from '../../trust/pins.js';
import { allowSpec } from '../../trust/trust.js';
import { vouchHome } from '../../workspace/home.js';
import { parse } from '../args.js';
import { EXIT } from '../exit.js';
import { err, out, type Cli } from '../io.js';
import { refuseInAgentRun } from '../person-only.js';

export const help = `usage: vouch init [--write]

Prints a starter vouch.yaml detected from the project: package.json scripts
(test, lint, typecheck, build) and tsconfig.json, Python tests (pytest, or
unittest's test*.py / *_test.py), go.mod, Cargo.toml, a Makefile test or
check target. Each check covers the config files of the tools it runs
(.eslintrc*, .nycrc*, jest.config.*, tsconfig*.json, pytest.ini, Makefile...).
Every glob it proposes matches files now, and matches some in its own group
(a file both tests and sources match is a test). Review it: the commands run
with your permissions.

  --write  write it to ./vouch.yaml (only when none exists) and allow it;
           refused inside an agent run (exit 4, agent_run): a person does it

exit: 0 proposed (or written), 1 nothing to propose (nothing_detected) or a
proposal that would not cover its files (proposal_scope_empty; nothing is
written), 2 a spec exists already, 4 inside an agent run`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values } = parse('init', args, { write: { type: 'boolean' } }, false);
  if (values.write) refuseInAgentRun(cli.io.env, 'vouch init --write');
  const root = realpathSync(resolve(cli.io.cwd, cli.dir ?? '.'));
  const proposals = await detectChecks(root);
  if (proposals.length === 0) {
    return fail({
      code: 'nothing_detected',
      message: `found nothing to propose a check from; no spec was ${values.write ? 'written' : 'printed'}`,
      where: root,
      expected: DETECTED_FROM,
      hint: 'write vouch.yaml by hand (README: "The spec: vouch.yaml"; `vouch schema`), then `vouch checks` and `vouch allow`',
    });
  }
  const text = renderSpec(proposals);
  if (!values.write) {
    out(cli, text);
    err(cli, `vouch: this is a proposal; review it, then \`vouch init --write\` (or save it as ${SPEC_FILE} and \`vouch allow\`)`);
    return EXIT.ok;
  }
  const written = await writeProposedSpec(root, text);
  if (!written.ok) return fail(written.error);
  const spec = written.value;
  const allowed = allowSpec(vouchHome(cli.io.env), root, spec.sha256, await pinsFor(spec.checks, root, spec.toolConfigs, cli.io.env));
  if (!allowed.ok) return fail(allowed.error);
  out(cli, `wrote and allowed ${spec.path} (${spec.checks.length} check${spec.checks.length === 1 ? '' : 's'}); run \`vouch verify\``);
  return EXIT.ok;
}
