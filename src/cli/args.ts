import { parseArgs, type ParseArgsConfig } from 'node:util';
import { fail, type Problem } from '../core/problem.js';
import { closest } from '../core/suggest.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Options every command accepts, so `vouch status -C dir --json` works as well as `vouch -C dir status`. */
export const COMMON_OPTIONS = {
  dir: { type: 'string', short: 'C' },
  'no-color': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

/** util.parseArgs, strict, with its errors turned into usage problems that say what to do. */
export function parse<T extends Options>(command: string, args: readonly string[], options: T, positionals = true) {
  const all = { ...COMMON_OPTIONS, ...options };
  try {
    return parseArgs({ args: [...args], options: all, allowPositionals: positionals, strict: true });
  } catch (error) {
    return fail(argsProblem(error, all, `vouch ${command}`, `run \`vouch ${command} --help\` for its options`));
  }
}

/**
 * A util.parseArgs error as a usage problem: the option as typed, quoted, the
 * nearest real one when it is close ("did you mean"), the options there are.
 * Node's own wording is kept only for errors this does not know.
 */
export function argsProblem(error: unknown, options: Options, where: string | undefined, hint: string): Problem {
  const { code, message } = error as { code?: string; message: string };
  const quoted = /'([^']*)'/.exec(message)?.[1] ?? '';
  const at = where === undefined ? {} : { where };
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const long = Object.keys(options).map((name) => `--${name}`);
      const typed = quoted.split('=')[0]!;
      const guess = typed.startsWith('--') ? closest(typed, long) : undefined;
      return {
        code: 'usage',
        message: `unknown option ${JSON.stringify(typed)}${guess ? ` (did you mean ${JSON.stringify(guess)}?)` : ''}`,
        ...at,
        expected: `one of: ${Object.entries(options)
          .map(([name, option]) => `--${name}${option.short ? ` (-${option.short})` : ''}`)
          .join(', ')}`,
        hint,
      };
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const name = quoted.split(' ')[0]!;
      return /argument missing/.test(message)
        ? { code: 'usage', message: `option ${JSON.stringify(name)} needs a value`, ...at, expected: `${name} VALUE`, hint }
        : { code: 'usage', message: `option ${JSON.stringify(name)} takes no value`, ...at, expected: `${name} alone, without =VALUE`, hint };
    }
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return { code: 'usage', message: `unexpected argument ${JSON.stringify(quoted)}: this command takes options only`, ...at, hint };
    default:
      return { code: 'usage', message: message.replace(/\. To specify a positional argument.*$/s, '.'), ...at, hint };
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

/** A flag that takes one of a few words (`--format json`), or a usage problem that quotes it and lists the words. */
export function choiceFlag<const T extends string>(command: string, name: string, value: string | undefined, choices: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if ((choices as readonly string[]).includes(value)) return value as T;
  return fail({
    code: 'usage',
    message: `--${name} expects one of ${choices.join(', ')}`,
    where: `vouch ${command}`,
    expected: choices.join(' | '),
    found: value,
  });
}
