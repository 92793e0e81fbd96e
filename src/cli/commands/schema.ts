import { specJsonSchema } from '../../spec/json-schema.js';
import { parse } from '../args.js';
import { EXIT } from '../exit.js';
import { json, type Cli } from '../io.js';

export const help = `usage: vouch schema [--report]

Prints the JSON Schema (draft 2020-12) of vouch.yaml on stdout. The same
schema is published in the repository at schema/vouch.schema.json; editors
use it for completion with a \`# yaml-language-server: $schema=...\` line.

  --report  the JSON Schema of \`vouch report --format json\` instead (and of
            the MCP tool vouch_report's structured content), published at
            schema/report.schema.json`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values } = parse('schema', args, { report: { type: 'boolean' } }, false);
  if (values.report) {
    const { reportJsonSchema } = await import('../../report/json-schema.js');
    json(cli, reportJsonSchema());
  } else {
    json(cli, specJsonSchema());
  }
  return EXIT.ok;
}
