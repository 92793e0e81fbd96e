import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fail } from '../../core/problem.js';
import { choiceFlag, parse } from '../args.js';
import { EXIT } from '../exit.js';
import { err, type Cli } from '../io.js';

export const help = `usage: vouch report [--format html|json|md] [--out FILE]

Writes the report: each check's current status and history; each agent
session and dispatch, with what was claimed against what was independently
verified, dispatches under the run that ordered them and every transition
with the process that wrote it, DRIFT where a dispatch's pinned vouch.yaml is
not the one in force; the task cards with their decisions; and the ledger's
integrity as \`vouch audit\` sees it. One model, three formats:

  html  one self-contained page a person can read (no network, no external
        assets, no scripts), with a chart of verdicts over time (default)
  json  the model itself, for machines: its fields are documented in the
        JSON Schema that \`vouch schema --report\` prints
        (schema/report.schema.json)
  md    a Markdown page to paste into a pull request

  --format FORMAT  html, json or md
  --out FILE       where to write it (default .vouch/report.html, .json or
                   .md, after the format); - for stdout

Everything recorded is escaped: a prompt, a claim or a check's output is
shown as text, never as markup, in HTML and Markdown alike.`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values } = parse('report', args, { out: { type: 'string' }, format: { type: 'string' } }, false);
  const { buildModel, renderReport, REPORT_FORMATS, ReportSource, specTrust } = await import('../../report/index.js');
  const format = choiceFlag('report', 'format', values.format, REPORT_FORMATS) ?? 'html';
  const session = cli.session;
  const workspace = session.workspace();
  const home = session.home;
  const loaded = await session.load(workspace);
  const spec = loaded.ok ? specTrust(home, workspace.root, loaded.value) : ({ kind: 'invalid', message: loaded.error.message } as const);
  const ledger = await session.read(workspace);
  const model = await buildModel(new ReportSource(workspace, spec, ledger, home, cli.io.env, new Date()));
  const page = renderReport(model, format);
  if (values.out === '-') {
    cli.data.write(page);
    return EXIT.ok;
  }
  const out = values.out !== undefined ? resolve(cli.io.cwd, values.out) : join(workspace.stateDir, `report.${format}`);
  try {
    // .vouch/ ignores itself in git (as the ledger makes it), so a report there never dirties a tree.
    if (out.startsWith(`${workspace.stateDir}/`) && !existsSync(workspace.stateDir)) {
      mkdirSync(workspace.stateDir, { recursive: true });
      writeFileSync(join(workspace.stateDir, '.gitignore'), '# vouch state: local receipts, never committed\n*\n');
    }
    mkdirSync(dirname(out), { recursive: true });
    const temp = `${out}.${process.pid}.tmp`;
    writeFileSync(temp, page);
    renameSync(temp, out);
  } catch (error) {
    return fail({
      code: 'write_failed',
      message: `cannot write the report: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      where: out,
      hint: 'choose another --out',
    });
  }
  err(cli, `vouch: report written (${format}, ${Math.round(Buffer.byteLength(page) / 1024)} KiB): ${pathToFileURL(out).href}`);
  cli.io.stdout.write(`${out}\n`);
  return EXIT.ok;
}
