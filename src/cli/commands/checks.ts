import { paint } from '../../render/color.js';
import { table } from '../../render/table.js';
import { parse } from '../args.js';
import { EXIT } from '../exit.js';
import { json, out, type Cli } from '../io.js';
import { specOf, workspaceOf } from '../session.js';

export const help = `usage: vouch checks [--json]

Validates vouch.yaml and lists its checks: id, command, scope and what a
PASS of each proves. Exit 2 with every problem located (file:line:column)
when the spec is invalid.

  --json   {"spec": {"path", "sha256"}, "checks": [{...the full definition}]}`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values } = parse('checks', args, { json: { type: 'boolean' } }, false);
  const workspace = workspaceOf(cli);
  const spec = specOf(workspace, cli);
  if (values.json) {
    json(cli, {
      spec: { path: spec.path, sha256: spec.sha256 },
      checks: spec.checks.map((c) => ({
        id: c.id,
        run: c.run,
        shell: c.shell,
        cwd: c.cwd,
        timeout: c.timeout,
        env: c.env,
        sources: c.sources,
        tests: c.tests,
        artifacts: c.artifacts,
        exclude: c.exclude,
        expect: c.expect,
        block: c.block,
        tier: c.tier,
        proves: c.proves,
        allow_missing: c.allowMissing,
        definition_digest: c.definitionDigest,
      })),
    });
    return EXIT.ok;
  }
  const p = paint(cli.color);
  const rows = spec.checks.map((c) => [
    p.bold(c.id),
    c.block ? 'blocking' : p.dim('advisory'),
    c.tier ?? p.dim('any tier'),
    c.shell ? `sh -c ${JSON.stringify(c.run[0])}` : c.run.join(' '),
  ]);
  out(cli, table(rows));
  for (const c of spec.checks) {
    const scope = [
      c.sources.length ? `sources ${c.sources.join(' ')}` : '',
      c.tests.length ? `tests ${c.tests.join(' ')}` : '',
      c.artifacts.length ? `artifacts ${c.artifacts.join(' ')}` : '',
      c.exclude.length ? `exclude ${c.exclude.join(' ')}` : '',
    ].filter(Boolean);
    out(cli, `\n${p.bold(c.id)}: ${c.proves}\n  ${p.dim(scope.join(' · '))}`);
  }
  out(cli, p.dim(`\n${spec.checks.length} check${spec.checks.length === 1 ? '' : 's'} · spec sha256 ${spec.sha256}`));
  return EXIT.ok;
}
