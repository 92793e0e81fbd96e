import type { Scripts } from './npm-scripts.js';

/** A part of a composite script: the argv that runs it outside npm, and a word to name its check by. */
export interface ScriptPart {
  readonly text: string;
  readonly run: readonly string[];
  readonly name: string;
}

const RUNNERS = new Set(['npm', 'pnpm', 'yarn', 'bun']);
/** Plain words only: no quotes, globs, variables, redirections, pipes or assignments, which would need a shell. */
const PLAIN = /^[\w@.:/+-]+(?: [\w@.:/+=-]+)*$/;

/**
 * The parts of a script that chains commands with `&&` (`xo && ava && tsd`),
 * each run on its own, or undefined when the script is one command, has a
 * `pre` or `post` script (npm runs those with it, a part alone would not),
 * or a part is more than plain words. One check per part says which part
 * failed, and covers that part's own tool configs; the whole script stays
 * one check when it cannot be split faithfully.
 *
 * A part runs as npm would run it: `node` and the package runners as they
 * are, any other program through `npx --no-install` (node_modules/.bin, as
 * npm puts it on the PATH; never a download).
 */
export function compositeParts(scripts: Scripts, name: string): ScriptPart[] | undefined {
  const text = scripts[name];
  if (typeof text !== 'string' || !text.includes('&&')) return undefined;
  if (typeof scripts[`pre${name}`] === 'string' || typeof scripts[`post${name}`] === 'string') return undefined;
  const parts = text.split('&&').map((part) => part.trim().replace(/\s+/g, ' '));
  if (parts.length < 2 || !parts.every((part) => PLAIN.test(part))) return undefined;
  const named = new Map<string, number>();
  return parts.map((part) => {
    const words = part.split(' ');
    const first = words[0]!;
    const run = first === 'node' || RUNNERS.has(first) ? words : ['npx', '--no-install', ...words];
    // `npm run build` is named for the script it runs; anything else for its program.
    const base = (RUNNERS.has(first) ? (words.slice(1).filter((w) => !w.startsWith('-') && w !== 'run' && w !== 'run-script')[0] ?? first) : first).replace(
      /[^A-Za-z0-9._-]/g,
      '-',
    );
    const seen = (named.get(base) ?? 0) + 1;
    named.set(base, seen);
    return { text: part, run, name: seen === 1 ? base : `${base}-${seen}` };
  });
}
