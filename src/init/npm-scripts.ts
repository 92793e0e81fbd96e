import picomatch from 'picomatch';
import { isTool } from './tool-configs.js';

/** package.json `scripts`. */
export type Scripts = Readonly<Record<string, string>>;

const RUNNERS = new Set(['npm', 'pnpm', 'yarn', 'bun']);
const RUN_ALL = new Set(['run-s', 'run-p', 'npm-run-all', 'npm-run-all2']);

/** What running an npm script involves, as far as its text tells. */
export interface ScriptInputs {
  /** Known tools it runs (TOOL_CONFIGS keys). */
  readonly tools: Set<string>;
  /** Words that look like relative file paths (`scripts/build.mjs`, `./ci.sh`), normalised without `./`: the caller keeps those that exist. */
  readonly paths: Set<string>;
  /**
   * The programs it starts by name (`node` in `node --test`, `tsc` after
   * `npx`): npm looks each up in node_modules/.bin before the PATH, so a
   * `node_modules/.bin/node` that appears decides what runs.
   */
  readonly commands: Set<string>;
}

/**
 * What `npm run NAME` ends up running: every known tool and every path
 * named in the script, in its `pre` and `post` scripts (npm runs those
 * too), and in the scripts it runs in turn (`npm run lint`, `yarn build`,
 * `npm test`, `run-s lint:*`). Words are read, not parsed as shell: a tool
 * named anywhere in a script counts, which can only put a file too many in
 * scope, never one too few.
 */
export function scriptInputs(scripts: Scripts, name: string): ScriptInputs {
  const inputs: ScriptInputs = { tools: new Set(), paths: new Set(), commands: new Set() };
  const seen = new Set<string>();
  const visit = (script: string) => {
    if (seen.has(script)) return;
    seen.add(script);
    for (const related of [`pre${script}`, script, `post${script}`]) {
      const text = scripts[related];
      if (typeof text !== 'string') continue;
      const words = wordsOf(text);
      for (const command of commandsOf(text)) inputs.commands.add(command);
      for (const word of words) {
        const tool = word.slice(word.lastIndexOf('/') + 1);
        if (isTool(tool)) inputs.tools.add(tool);
        if (PATH_LIKE.test(word) && !word.split('/').includes('..')) inputs.paths.add(word.replace(/^(\.\/)+/, ''));
      }
      for (const called of scriptsCalled(
        scripts,
        words.map((word) => word.slice(word.lastIndexOf('/') + 1)),
      ))
        visit(called);
    }
  };
  visit(name);
  return inputs;
}

/** A relative path to a file with an extension, or below a directory; not a flag, a glob, an assignment or a URL. */
const PATH_LIKE = /^(?![-/])(?!.*[*?{}[\]=:$])[\w./@+-]*(\/|\.[A-Za-z0-9]+$)[\w./@+-]*$/;

/** A script's words: split at blanks and shell operators, quotes removed. */
function wordsOf(text: string): string[] {
  return text
    .split(/[\s;&|()<>]+/)
    .map((word) => word.replace(/^['"]|['"]$/g, ''))
    .filter((word) => word !== '');
}

/** Programs that start the word after them (`npx tsc`, `env X=1 node`). */
const LAUNCHERS = new Set(['npx', 'exec', 'env', 'pnpx', 'bunx', 'time', 'nice', 'cross-env']);

/** The bare names a script starts: the first word of each command in it, and what a launcher starts. */
function commandsOf(text: string): string[] {
  const commands: string[] = [];
  for (const segment of text.split(/&&|\|\||[;|&()\n]/)) {
    const words = wordsOf(segment).filter((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word));
    for (const word of words) {
      if (word.startsWith('-')) continue;
      if (!/^[\w.@+-]+$/.test(word)) break;
      commands.push(word);
      if (!LAUNCHERS.has(word)) break;
    }
  }
  return commands;
}

/** The scripts a script's words run: `npm run X`, `npm test`, `yarn X`, `run-s X Y` ... */
function scriptsCalled(scripts: Scripts, words: readonly string[]): string[] {
  const called: string[] = [];
  const named = (word: string) => {
    if (!word.includes('*')) return Object.hasOwn(scripts, word) ? [word] : [];
    const match = picomatch(word);
    return Object.keys(scripts).filter((name) => match(name));
  };
  words.forEach((word, i) => {
    if (RUNNERS.has(word)) {
      let next = words[i + 1];
      if (next === 'run' || next === 'run-script') next = words.slice(i + 2).find((w) => !w.startsWith('-'));
      if (next === 't' || next === 'tst') next = 'test';
      if (next !== undefined) called.push(...named(next));
    } else if (RUN_ALL.has(word)) {
      for (const arg of words.slice(i + 1)) {
        if (arg.startsWith('-')) continue;
        const scriptsNamed = named(arg);
        if (scriptsNamed.length === 0) break;
        called.push(...scriptsNamed);
      }
    }
  });
  return called;
}
