import { fail } from '../../core/problem.js';
import { closest } from '../../core/suggest.js';
import * as mcp from '../../install/mcp/command.js';
import type { CommandModule } from '../registry.js';
import type { Cli } from '../io.js';

/** What `vouch install` can install: TARGET → its command module (`help`, `run`). */
const TARGETS: Readonly<Record<string, CommandModule>> = { mcp };

export const help = `usage: vouch install TARGET [options]   (targets: ${Object.keys(TARGETS).join(', ')})

${Object.values(TARGETS)
  .map((target) => target.help)
  .join('\n\n')}`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const at = args.findIndex((arg, i) => !arg.startsWith('-') && args[i - 1] !== '-C' && args[i - 1] !== '--dir' && !/^--(client|name)$/.test(args[i - 1] ?? ''));
  const name = at < 0 ? undefined : args[at]!;
  const target = name === undefined ? undefined : TARGETS[name];
  if (!target) {
    const guess = name === undefined ? undefined : closest(name, Object.keys(TARGETS));
    return fail({
      code: 'usage',
      message: name === undefined ? 'expected what to install' : `cannot install "${name}"${guess ? ` (did you mean "${guess}"?)` : ''}`,
      where: 'vouch install',
      expected: `one of: ${Object.keys(TARGETS).join(', ')}`,
      ...(name !== undefined && { found: name }),
      hint: 'run `vouch install --help`',
    });
  }
  return target.run(cli, [...args.slice(0, at), ...args.slice(at + 1)]);
}
