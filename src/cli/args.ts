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

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A point in time: an ISO 8601 date or date-time, or a duration back from now such as 90m, 24h or 7d. */
export function timeFlag(command: string, name: string, value: string | undefined, now: Date): Date | undefined {
  if (value === undefined) return undefined;
  const relative = /^(\d+)([smhd])$/.exec(value);
  if (relative) return new Date(now.getTime() - Number(relative[1]) * UNIT_MS[relative[2] as keyof typeof UNIT_MS]);
  const parsed = /^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(parsed)) {
    return fail({
      code: 'usage',
      message: `--${name} expects a time`,
      where: `vouch ${command}`,
      expected: 'an ISO 8601 date or date-time (2026-11-30, 2026-11-30T10:00:00Z) or a duration back from now (90m, 24h, 7d)',
      found: value,
    });
  }
  return new Date(parsed);
}
