import { existsSync, realpathSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fail } from '../../core/problem.js';
import { detectChecks, renderSpec } from '../../init/detect.js';
import { parseSpec, SPEC_FILE } from '../../spec/load.js';
import { pinsFor } from '../../trust/pins.js';
import { allowSpec } from '../../trust/trust.js';
import { vouchHome } from '../../workspace/home.js';
import { parse } from '../args.js';
import { EXIT } from '../exit.js';
import { err, out, type Cli } from '../io.js';
import { refuseInAgentRun } from '../person-only.js';

export const help = `usage: vouch init [--write]

Prints a starter vouch.yaml detected from the project (package.json scripts,
pyproject/pytest, go.mod, Cargo.toml, a Makefile test target). Every glob it
proposes matches files now. Review it: the commands run with your permissions.

  --write  write it to ./vouch.yaml (only when none exists) and allow it;
           refused inside an agent run (exit 4, agent_run): a person does it`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values } = parse('init', args, { write: { type: 'boolean' } }, false);
  if (values.write) refuseInAgentRun(cli.io.env, 'vouch init --write');
  const root = realpathSync(resolve(cli.io.cwd, cli.dir ?? '.'));
  const text = renderSpec(await detectChecks(root));
  if (!values.write) {
    out(cli, text);
    err(cli, `vouch: this is a proposal; review it, then \`vouch init --write\` (or save it as ${SPEC_FILE} and \`vouch allow\`)`);
    return EXIT.ok;
  }
  const path = join(root, SPEC_FILE);
  if (existsSync(path)) {
    return fail({ code: 'spec_exists', message: `${path} already exists; init --write never overwrites a spec`, where: path, hint: 'edit it by hand, then `vouch allow`' });
  }
  const parsed = parseSpec(Buffer.from(text), path);
  if (!parsed.ok) throw new Error(`bug: init produced an invalid spec: ${parsed.error.message}`);
  try {
    writeFileSync(path, text, { flag: 'wx' });
  } catch (error) {
    return fail({ code: 'write_failed', message: `cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, where: path });
  }
  const allowed = allowSpec(vouchHome(cli.io.env), root, parsed.value.sha256, pinsFor(parsed.value.checks, root, parsed.value.toolConfigs, cli.io.env));
  if (!allowed.ok) return fail(allowed.error);
  out(cli, `wrote and allowed ${path} (${parsed.value.checks.length} check${parsed.value.checks.length === 1 ? '' : 's'}); run \`vouch verify\``);
  return EXIT.ok;
}
