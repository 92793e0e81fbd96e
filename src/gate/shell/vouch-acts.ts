import { basename } from 'node:path';
import type { Word } from './tokenize.js';

/** Runners that start a package's binary: `npx vouch`, `pnpm exec vouch`, `bunx vouch`... */
const RUNNERS: Readonly<Record<string, readonly string[] | null>> = {
  npx: null,
  pnpx: null,
  bunx: null,
  npm: ['exec', 'x'],
  pnpm: ['exec', 'dlx'],
  yarn: ['exec', 'dlx', 'run'],
  bun: ['x', 'run'],
};
/** Runners whose option takes the next word as its value. */
const RUNNER_VALUE_OPTIONS = new Set(['-p', '--package', '-c', '--call', '-w', '--workspace', '-C', '--dir', '--filter']);
/** Interpreters of a script file: `node dist/cli.js allow`. */
const INTERPRETERS = new Set(['node', 'nodejs', 'bun', 'tsx', 'deno']);
const NODE_VALUE_OPTIONS = new Set(['-r', '--require', '--import', '--loader', '--experimental-loader', '--conditions', '-C', '--env-file']);

/**
 * The vouch act on the spec's trust a command runs, if any: `vouch allow`,
 * `vouch deny`, `vouch init --write`, also as `npx vouch ...`, `pnpm exec
 * vouch ...`, or `node <anything>/cli.js ...`. These are the person's acts:
 * an agent that edited vouch.yaml must not allow its own edit. Words holding
 * variables are not read, like everywhere in this reader.
 */
export function trustActOf(argv: readonly Word[]): string | null {
  const args = vouchArgs(argv);
  if (args === null) return null;
  let i = 0;
  // Global options before the command: -C DIR / --dir DIR take a value.
  while (i < args.length && args[i]!.text.startsWith('-')) i += args[i]!.text === '-C' || args[i]!.text === '--dir' ? 2 : 1;
  const command = args[i]?.text;
  if (command === 'allow' || command === 'deny') return `vouch ${command}`;
  if (command === 'init' && args.slice(i + 1).some((word) => word.text === '--write')) return 'vouch init --write';
  return null;
}

/** The arguments given to vouch, or null when the command does not run vouch. */
function vouchArgs(argv: readonly Word[]): readonly Word[] | null {
  const head = argv[0];
  if (!head || head.opaque) return null;
  const name = basename(head.text);
  if (isVouch(name)) return argv.slice(1);
  if (name in RUNNERS) {
    const subcommands = RUNNERS[name];
    let i = 1;
    if (subcommands) {
      if (!argv[i] || !subcommands.includes(argv[i]!.text)) return null;
      i++;
    }
    while (i < argv.length && argv[i]!.text.startsWith('-')) {
      const option = argv[i]!.text;
      i += RUNNER_VALUE_OPTIONS.has(option) ? 2 : 1;
      if (option === '--') break;
    }
    const target = argv[i];
    return target && !target.opaque && isVouch(basename(target.text).replace(/@.*$/, '')) ? argv.slice(i + 1) : null;
  }
  if (INTERPRETERS.has(name)) {
    let i = 1;
    while (i < argv.length && argv[i]!.text.startsWith('-')) i += NODE_VALUE_OPTIONS.has(argv[i]!.text) ? 2 : 1;
    if (name === 'deno' && argv[i]?.text === 'run') i++;
    const script = argv[i];
    return script && !script.opaque && /^(cli|bin)\.[cm]?[jt]s$|^vouch(\.[cm]?[jt]s)?$/.test(basename(script.text)) ? argv.slice(i + 1) : null;
  }
  return null;
}

function isVouch(name: string): boolean {
  return name === 'vouch' || name === 'vouch.js';
}
