import { fail } from '../../core/problem.js';
import { enterWorkspace } from '../workspace-dir.js';
import { overBudget } from '../../engine/over-budget.js';
import { overBudgetJson, renderOverBudget } from '../../render/over-budget.js';
import type { StoredReceipt } from '../../receipt/receipt.js';
import { TreeReader } from '../../engine/tree-reader.js';
import { selectChecks } from '../../spec/select.js';
import { explainCoverage } from '../../render/coverage.js';
import { paint, type Paint } from '../../render/color.js';
import { table } from '../../render/table.js';
import { visible } from '../../render/visible.js';
import { coverScopes, type ScopeCoverage } from '../../scope/coverage.js';
import type { CheckDef } from '../../spec/model.js';
import { vouchHome } from '../../workspace/home.js';
import { parse } from '../args.js';
import { EXIT } from '../exit.js';
import { json, out, type Cli } from '../io.js';

export const help = `usage: vouch checks [ID...] [--files] [--json]
       vouch checks --trace ID [--json]

Validates vouch.yaml and lists its checks (all, or those named): id,
command, scope and what a PASS of each proves. Exit 2 with every problem
located (file:line:column) when the spec is invalid.

Each check's globs are matched against the files as they are now. A file
matched by a check's tests and sources globs is a test (inputs are tried
first, then tests, sources, artifacts). A warning names every glob that
would make verify answer UNKNOWN: one that matches no readable file, or
whose files all went to another group. An input glob that matches nothing
is no warning: the file counts when it appears.

  --files  list each covered file with its group (input, source, test, or
           artifact when it exists already), and the files refused
  --json   {"spec": {"path", "sha256"}, "checks": [{...the full definition,
           "warnings": [{"reason", "field", "glob", "matched", "lost_to", "credentials",
           "message"}], with --files "files": [{"path", "group"}] and
           "refused": [{"path", "why"}]}]}
  --trace ID  run check ID once under strace (as verify would, in the
           workspace, not hermetic; the spec must be allowed) and list every
           file it read, ran or looked for outside its proof, grouped as
           workspace, home and system, with the inputs: line that would put
           the workspace ones in it. Records no receipt. --json: {"check",
           "receipt": null, "run": {"argv", "tracer", "exit_code",
           "timed_out", "duration_ms"}, "files": {"workspace", "home",
           "system": [{"path", "how": "exec"|"read"|"look", "written"}]},
           "inputs"}

A blocking check whose last receipt ran longer than gate.budget_seconds is
named in a warning ("over_budget" in --json): an agent's stop is held while
the gate's runner finishes it.

exit: 0 the spec is valid (warnings or not), or the check was traced (whatever
its own exit), 2 usage or spec problem (a trace of a spec not allowed), 7 no
tracer works here (strace missing, or ptrace forbidden)`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values, positionals } = parse('checks', args, { json: { type: 'boolean' }, files: { type: 'boolean' }, trace: { type: 'string' } });
  if (values.trace !== undefined) {
    if (positionals.length > 0 || values.files)
      return fail({
        code: 'usage',
        message: '--trace takes one check id and nothing else',
        where: 'vouch checks --trace',
        expected: 'vouch checks --trace ID [--json]',
        found: [...positionals, ...(values.files ? ['--files'] : [])].join(' '),
      });
    // Loaded only for a trace: the tracer, the log parser and their renderer.
    return (await import('./checks-trace.js')).runTrace(cli, values.trace, values.json === true);
  }
  const workspace = cli.session.workspace();
  const spec = await cli.session.spec(workspace);
  const checks = selectChecks(spec, positionals);
  const reader = new TreeReader({
    workspace,
    home: vouchHome(cli.io.env),
    ...(cli.io.hashWorker && { hashWorker: cli.io.hashWorker }),
    cwdIsRoot: enterWorkspace(workspace),
  });
  const coverage = await coverScopes(reader.snapshot(), checks);
  reader.close();
  const files = values.files === true;
  const ledger = await cli.session.read(workspace);
  const latest = ledger ? await ledger.latestReceipts(checks.map((c) => c.id)) : new Map<string, StoredReceipt>();
  const slow = overBudget(spec, checks, new Map([...latest].map(([id, r]) => [id, r.body.duration_ms])));
  if (values.json) {
    json(cli, {
      spec: { path: spec.path, sha256: spec.sha256 },
      checks: checks.map((c, i) => ({ ...definitionJson(c), ...coverageJson(coverage[i]!, files) })),
      ...(slow.length > 0 && { over_budget: overBudgetJson(slow) }),
    });
    return EXIT.ok;
  }
  const p = paint(cli.color);
  const rows = checks.map((c) => [
    p.bold(c.id),
    c.block ? 'blocking' : p.dim('advisory'),
    c.tier ?? p.dim('any tier'),
    c.shell ? `sh -c ${JSON.stringify(c.run[0])}` : c.run.join(' '),
  ]);
  out(cli, table(rows));
  checks.forEach((c, i) => out(cli, `\n${renderCheck(c, coverage[i]!, files, p)}`));
  const warned = coverage.filter((c) => c.warnings.length > 0).length;
  const summary = `${checks.length} check${checks.length === 1 ? '' : 's'} · spec sha256 ${spec.sha256}`;
  const warning = renderOverBudget(slow, p);
  if (warning) out(cli, `\n${warning}`);
  out(
    cli,
    `\n${p.dim(summary)}${warned ? `\n${p.yellow(`${warned} check${warned === 1 ? ' has globs' : 's have globs'} that verify would answer UNKNOWN for (warnings above)`)}` : ''}`,
  );
  return EXIT.ok;
}

function definitionJson(c: CheckDef) {
  return {
    id: c.id,
    run: c.run,
    shell: c.shell,
    cwd: c.cwd,
    timeout: c.timeout,
    env: c.env,
    sources: c.sources,
    tests: c.tests,
    artifacts: c.artifacts,
    inputs: c.inputs,
    exclude: c.exclude,
    default_excludes: c.defaultExcludes ?? [],
    expect: c.expect,
    block: c.block,
    tier: c.tier,
    proves: c.proves,
    allow_missing: c.allowMissing,
    hermetic: c.hermetic,
    network: c.network,
    definition_digest: c.definitionDigest,
  };
}

function coverageJson(coverage: ScopeCoverage, files: boolean) {
  return {
    warnings: coverage.warnings.map((w) => ({
      reason: w.reason,
      field: w.field,
      glob: w.glob,
      matched: w.reason === 'glob_shadowed' ? w.matched : 0,
      lost_to: w.reason === 'glob_shadowed' ? w.lostTo : [],
      credentials: w.reason === 'glob_empty' ? w.credentials : [],
      message: explainCoverage(w).message,
    })),
    ...(files && {
      files: coverage.manifest.files.map(([path, , , group]) => ({ path, group })),
      refused: coverage.manifest.refused.map(([path, why]) => ({ path, why })),
    }),
  };
}

function renderCheck(c: CheckDef, coverage: ScopeCoverage, files: boolean, p: Paint): string {
  const scope = [
    c.inputs.length ? `inputs ${c.inputs.join(' ')}` : '',
    c.sources.length ? `sources ${c.sources.join(' ')}` : '',
    c.tests.length ? `tests ${c.tests.join(' ')}` : '',
    c.artifacts.length ? `artifacts ${c.artifacts.join(' ')}` : '',
    c.exclude.length ? `exclude ${c.exclude.join(' ')}` : '',
    c.hermetic ? `hermetic${c.network ? ' (network on)' : ''}` : '',
  ].filter(Boolean);
  const lines = [`${p.bold(c.id)}: ${c.proves}`, `  ${p.dim(scope.join(' · '))}`];
  for (const warning of coverage.warnings) {
    const { message, next } = explainCoverage(warning);
    lines.push(`  ${p.yellow('warning:')} ${visible(message)}`, `    ${p.dim(`→ ${visible(next)}`)}`);
  }
  if (files) {
    const counts = new Map<string, number>();
    for (const file of coverage.manifest.files) counts.set(file[3], (counts.get(file[3]) ?? 0) + 1);
    const byGroup = [...counts].map(([group, n]) => `${n} ${group}`).join(', ');
    lines.push(`  files (${coverage.manifest.files.length}${byGroup ? `: ${byGroup}` : ''})`);
    const rows = coverage.manifest.files.map(([path, , , group]) => [group, visible(path)]);
    rows.push(...coverage.manifest.refused.map(([path, why]) => [p.dim('refused'), `${visible(path)} ${p.dim(`(${why})`)}`]));
    if (rows.length > 0) lines.push(table(rows, '    '));
  }
  return lines.join('\n');
}
