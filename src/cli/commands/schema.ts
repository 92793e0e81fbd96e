import { specJsonSchema } from '../../spec/json-schema.js';
import { parse } from '../args.js';
import { EXIT } from '../exit.js';
import { json, type Cli } from '../io.js';

export const help = `usage: vouch schema

Prints the JSON Schema (draft 2020-12) of vouch.yaml on stdout. The same
schema is published in the repository at schema/vouch.schema.json; editors
use it for completion with a \`# yaml-language-server: $schema=...\` line.`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  parse('schema', args, {}, false);
  json(cli, specJsonSchema());
  return EXIT.ok;
}
