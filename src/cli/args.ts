import { parseArgs, type ParseArgsConfig } from 'node:util';
import { fail } from '../core/problem.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Options every command accepts, so `vouch status -C dir --json` works as well as `vouch -C dir status`. */
export const COMMON_OPTIONS = {
  dir: { type: 'string', short: 'C' },
  'no-color': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

/** util.parseArgs, strict, with its errors turned into usage problems that say what to do. */
export function parse<T extends Options>(command: string, args: readonly string[], options: T, positionals = true) {
  try {
    return parseArgs({ args: [...args], options: { ...COMMON_OPTIONS, ...options }, allowPositionals: positionals, strict: true });
  } catch (error) {
    return fail({
      code: 'usage',
      message: (error as Error).message.replace(/\. To specify a positional argument.*$/s, '.'),
      where: `vouch ${command}`,
      hint: `run \`vouch ${command} --help\` for its options`,
    });
  }
}

/** A non-negative integer flag value, or a usage problem that quotes it. */
export function integerFlag(command: string, name: string, value: string | undefined, min = 0): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) {
    return fail({
      code: 'usage',
      message: `--${name} expects an integer of at least ${min}`,
      where: `vouch ${command}`,
      expected: `an integer >= ${min}`,
      found: value,
    });
  }
  return n;
}
