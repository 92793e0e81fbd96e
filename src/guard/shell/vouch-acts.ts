import { basename } from 'node:path';
import type { Word } from './tokenize.js';

/**
 * A command only a person may run, because it decides what vouches for the
 * agent: never the agent itself, whatever it edited.
 */
export type PersonAct =
  /** Trusting a spec: `vouch allow`, `vouch deny`, `vouch init --write`, `vouch serve allow|deny`, `vouch serve token add|revoke`. */
  | { readonly kind: 'trust'; readonly command: string }
  /** Wiring the gate in or out: `vouch install ...`, `vouch uninstall ...`. */
  | { readonly kind: 'wiring'; readonly command: string }
  /** Creating signing keys: `vouch keys generate` (anything but `list` and `export-public`). */
  | { readonly kind: 'keys'; readonly command: string }
  /** Answering a hook: `vouch hook ...` is the client's to run, never the agent's. */
  | { readonly kind: 'hook'; readonly command: string }
  /** Removing the record the gate judges by: `vouch gc` (receipts, and every session's trail). */
  | { readonly kind: 'record'; readonly command: string }
  /** Changing what closes a card: `vouch card reprove`, `vouch card decide`, `vouch card complete --force`. */
  | { readonly kind: 'card'; readonly command: string }
  /** Grading an agent's claim: `vouch dispatch grade`. */
  | { readonly kind: 'grade'; readonly command: string }
  /** Routing around git's hooks, the pre-push gate: `git push --no-verify`, core.hooksPath. */
  | { readonly kind: 'git_hooks'; readonly command: string };

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
/** `vouch serve` options that take the next word as their value. */
const SERVE_VALUE_OPTIONS = new Set([
  '--key',
  '--listen',
  '--ledger',
  '--workers',
  '--max-upload-mb',
  '--max-job-seconds',
  '--max-jobs-per-client',
  '--lease-seconds',
]);
/** `vouch keys` subcommands that only read. */
const KEYS_READ = new Set(['list', 'export-public']);

/**
 * The person's act a command runs, if any: `vouch allow`, `deny`, `init
 * --write`, `serve allow|deny`, `serve token add|revoke`, `install`,
 * `uninstall`, `keys generate`, `hook`, `gc`, `card reprove|decide`, `card
 * complete --force`, `dispatch grade`, also as `npx vouch ...`, `pnpm exec
 * vouch ...`, or `node <anything>/cli.js ...`. `--help` anywhere only prints
 * help (as the CLI reads it), so it is no act. Words holding variables are
 * not read, like everywhere in this reader.
 */
export function vouchActOf(argv: readonly Word[]): PersonAct | null {
  const args = vouchArgs(argv);
  if (args === null) return null;
  let i = 0;
  // Global options before the command: -C DIR / --dir DIR take a value.
  while (i < args.length && args[i]!.text.startsWith('-')) i += args[i]!.text === '-C' || args[i]!.text === '--dir' ? 2 : 1;
  const command = args[i]?.text;
  const rest = args.slice(i + 1).map((word) => word.text);
  if (rest.includes('--help') || rest.includes('-h')) return null;
  const sub = rest.find((text) => !text.startsWith('-'));
  switch (command) {
    case 'allow':
    case 'deny':
      return { kind: 'trust', command: `vouch ${command}` };
    case 'init':
      return rest.includes('--write') ? { kind: 'trust', command: 'vouch init --write' } : null;
    case 'serve': {
      const [action, detail] = rest.filter((text, j) => !text.startsWith('-') && !SERVE_VALUE_OPTIONS.has(rest[j - 1] ?? ''));
      if (action === 'allow' || action === 'deny') return { kind: 'trust', command: `vouch serve ${action}` };
      return action === 'token' && (detail === 'add' || detail === 'revoke') ? { kind: 'trust', command: `vouch serve token ${detail}` } : null;
    }
    case 'install':
    case 'uninstall':
      return { kind: 'wiring', command: `vouch ${command}${sub ? ` ${sub}` : ''}` };
    case 'keys':
      return sub !== undefined && KEYS_READ.has(sub) ? null : { kind: 'keys', command: `vouch keys${sub ? ` ${sub}` : ''}` };
    case 'hook':
      return { kind: 'hook', command: `vouch hook${sub ? ` ${sub}` : ''}` };
    case 'gc':
      return { kind: 'record', command: 'vouch gc' };
    case 'card':
      if (sub === 'reprove' || sub === 'decide') return { kind: 'card', command: `vouch card ${sub}` };
      return sub === 'complete' && rest.includes('--force') ? { kind: 'card', command: 'vouch card complete --force' } : null;
    case 'dispatch':
      return sub === 'grade' ? { kind: 'grade', command: 'vouch dispatch grade' } : null;
    default:
      return null;
  }
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
