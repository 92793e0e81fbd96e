import { basename, isAbsolute, resolve } from 'node:path';
import { tokenize, type SimpleCommand, type Word } from './tokenize.js';
import { trustActOf } from './vouch-acts.js';

/** Something a command line plainly writes, removes or restores. */
export interface WriteTarget {
  /** The path as written (quotes removed), resolved against the directory the command runs in. */
  readonly path: string;
  /** The word holds a shell glob: the path is a pattern. */
  readonly glob: boolean;
  /** The target may be a directory acted on whole (rm -r, mv, git checkout). */
  readonly tree: boolean;
  /** How it is written: "> redirection", "sed -i", "rm", "git checkout"... */
  readonly via: string;
}

export interface ShellWrites {
  readonly targets: readonly WriteTarget[];
  /**
   * Whether the line may write files it does not name plainly: any command
   * at all could (a script, an interpreter, a variable). Only a line made of
   * commands known not to write is false.
   */
  readonly opaque: boolean;
  /**
   * The vouch acts on the spec's trust the line runs (`vouch allow`, `vouch
   * deny`, `vouch init --write`): the person's, never the agent's.
   */
  readonly trustActs: readonly string[];
}

/** Commands that only read, so a line made of them writes nothing it does not show. */
const READ_ONLY = new Set([
  'cat', 'ls', 'echo', 'printf', 'pwd', 'head', 'tail', 'grep', 'rg', 'wc', 'diff', 'stat', 'file', 'which', 'type',
  'true', 'false', 'test', '[', 'date', 'env', 'whoami', 'id', 'uname', 'less', 'more', 'sort', 'uniq', 'cut', 'tr',
  'basename', 'dirname', 'realpath', 'readlink', 'sha256sum', 'md5sum', 'du', 'df', 'tree', 'jq', 'cd', 'pushd', 'popd',
]);
/** Wrappers whose arguments are another command. */
const WRAPPERS = new Set(['sudo', 'doas', 'command', 'builtin', 'exec', 'nohup', 'time', 'nice', 'ionice', 'stdbuf', 'env', 'timeout', 'unbuffer']);
/** Wrapper options whose value is the next word (`env -u NAME`, `sudo -u USER`, `nice -n 5`, `timeout -s KILL`). */
const WRAPPER_VALUE_OPTIONS: Readonly<Record<string, ReadonlySet<string>>> = {
  env: new Set(['-u', '--unset', '-C', '--chdir', '-S', '--split-string']),
  sudo: new Set(['-u', '--user', '-g', '--group', '-h', '--host', '-p', '--prompt', '-C', '--close-from', '-D', '--chdir', '-R', '--chroot', '-T', '--command-timeout', '-U', '--other-user', '-r', '--role', '-t', '--type']),
  doas: new Set(['-u', '-C']),
  nice: new Set(['-n', '--adjustment']),
  ionice: new Set(['-c', '--class', '-n', '--classdata', '-p', '--pid', '-P', '--pgid', '-u', '--uid']),
  stdbuf: new Set(['-i', '--input', '-o', '--output', '-e', '--error']),
  timeout: new Set(['-s', '--signal', '-k', '--kill-after']),
  exec: new Set(['-a']),
};
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh']);
const GIT_PATH_COMMANDS = new Set(['checkout', 'restore', 'rm', 'mv']);
/**
 * Reserved words and operators that may come before a command in the same
 * simple command as this reader splits a line: `{ rm f; }`, `if x; then rm
 * f; fi`, `! rm f`, `while x; do rm f; done`. Skipped to reach the command.
 */
const KEYWORDS = new Set(['{', '}', '!', 'if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', 'esac']);
const GIT_READ_ONLY = new Set(['status', 'log', 'diff', 'show', 'rev-parse', 'ls-files', 'blame', 'grep', 'describe', 'config']);

/**
 * What a shell command line plainly writes: redirections, and the path
 * arguments of commands that write, remove or restore files (rm, mv, cp, ln,
 * install, tee, touch, truncate, dd of=, sed -i, perl -i, git checkout /
 * restore / rm / mv / clean). `sh -c '...'`, `$(...)` and backquotes are
 * read too. Words holding variables are unknown and skipped: this sees what a
 * line says, not what it computes.
 */
export function shellWrites(line: string, cwd: string, home: string | undefined): ShellWrites {
  const targets: WriteTarget[] = [];
  const trustActs: string[] = [];
  let opaque = false;
  const visit = (text: string, startCwd: string | null, depth: number) => {
    const parsed = tokenize(text);
    let dir = startCwd;
    for (const command of parsed.commands) {
      const resolveWord = (word: Word) => (word.opaque || dir === null ? null : resolvePath(word.text, dir, home));
      for (const redirect of command.redirects) {
        if (!['>', '>>', '>|', '&>', '&>>', '<>'].includes(redirect.op)) continue;
        const path = resolveWord(redirect.target);
        if (path !== null) targets.push({ path, glob: redirect.target.glob, tree: false, via: `${redirect.op} redirection` });
        else opaque = true;
      }
      const argv = unwrap(command);
      const act = trustActOf(argv);
      if (act !== null) trustActs.push(act);
      const name = argv[0] && !argv[0].opaque ? basename(argv[0].text) : null;
      if (name === null) {
        if (argv.length > 0) opaque = true;
        continue;
      }
      if (name === 'cd' || name === 'pushd') {
        const to = argv[1];
        dir = to === undefined ? (home ?? dir) : resolveWord(to);
        continue;
      }
      if (SHELLS.has(name) && depth < 3) {
        const script = argv.findIndex((word) => /^-[A-Za-z]*c$/.test(word.text));
        if (script > 0 && argv[script + 1] && !argv[script + 1]!.opaque) visit(argv[script + 1]!.text, dir, depth + 1);
        else opaque = true;
        continue;
      }
      if (name === 'eval' && depth < 3) {
        visit(argv.slice(1).map((word) => word.text).join(' '), dir, depth + 1);
        continue;
      }
      const found = writesOf(name, argv.slice(1));
      if (found === null) {
        if (!READ_ONLY.has(name)) opaque = true;
        continue;
      }
      for (const target of found) {
        const path = resolveWord(target.word);
        if (path === null) {
          opaque = true;
          continue;
        }
        targets.push({ path, glob: target.word.glob, tree: target.tree, via: target.via });
      }
    }
    for (const inner of parsed.nested) if (depth < 3) visit(inner, dir, depth + 1);
  };
  visit(line, cwd, 0);
  return { targets, opaque, trustActs };
}

function resolvePath(text: string, cwd: string, home: string | undefined): string | null {
  if (text === '') return null;
  if (text === '~' || text.startsWith('~/')) return home ? resolve(home, `.${text.slice(1)}`) : null;
  if (text.startsWith('~')) return null;
  return isAbsolute(text) ? resolve(text) : resolve(cwd, text);
}

/**
 * Drops leading reserved words (`{`, `if`, `then`, `do`, `!`...), function
 * definition heads (`function f`), assignments and wrappers (sudo, env,
 * nohup...) to reach the command that runs. (`f() { ...; }` is split by the
 * reader at its parentheses: `f` stands alone, and `{ ...` follows.)
 */
function unwrap(command: SimpleCommand): Word[] {
  const words = [...command.words];
  for (;;) {
    for (;;) {
      const word = words[0];
      if (word && !word.opaque && KEYWORDS.has(word.text)) words.shift();
      else if (word && !word.opaque && word.text === 'function' && words[1]) words.splice(0, 2);
      else if (word && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word.text)) words.shift();
      else break;
    }
    const head = words[0];
    if (!head || head.opaque || !WRAPPERS.has(basename(head.text))) return words;
    const wrapper = basename(head.text);
    words.shift();
    // Options of the wrapper (with their values), and the one positional some take (timeout DURATION).
    const valued = WRAPPER_VALUE_OPTIONS[wrapper];
    while (words[0] && words[0].text.startsWith('-')) {
      const option = words.shift()!.text;
      if (option === '--') break;
      if (valued?.has(option) && words[0]) words.shift();
    }
    if (wrapper === 'timeout' && words[0]) words.shift();
  }
}

interface Found {
  readonly word: Word;
  readonly tree: boolean;
  readonly via: string;
}

const operands = (args: readonly Word[]) => args.filter((word) => !word.text.startsWith('-') || word.text === '-');

/** Targets of one known command, or null when the command is not one that writes its arguments. */
function writesOf(name: string, args: readonly Word[]): Found[] | null {
  const all = (via: string, tree: boolean) => operands(args).map((word) => ({ word, tree, via }));
  switch (name) {
    case 'rm':
    case 'rmdir':
    case 'unlink':
    case 'shred':
      return all(name, true);
    case 'mv':
      return all(name, true);
    case 'touch':
    case 'truncate':
    case 'tee':
      return all(name, false);
    case 'cp':
    case 'ln':
    case 'install':
    case 'rsync': {
      const target = optionValue(args, '-t', '--target-directory');
      if (target) return [{ word: target, tree: true, via: name }];
      const list = operands(args);
      const last = list[list.length - 1];
      return last && list.length >= 2 ? [{ word: last, tree: true, via: name }] : [];
    }
    case 'dd':
      return args.filter((word) => word.text.startsWith('of=')).map((word) => ({ word: { ...word, text: word.text.slice(3) }, tree: false, via: 'dd of=' }));
    case 'sed':
    case 'perl':
    case 'ruby': {
      const inPlace = args.some((word) => /^-[A-Za-z]*i/.test(word.text) || word.text.startsWith('--in-place'));
      if (!inPlace) return [];
      // The script is the value of -e / -f, or else (sed) the first operand: not a file written.
      const scriptFlag = (text: string) => /^-[A-Za-z]*[ef]$/.test(text) || text === '--expression' || text === '--file';
      const hasScriptOption = args.some((word) => scriptFlag(word.text) || word.text.startsWith('--expression='));
      const list = operands(args.filter((_word, i) => i === 0 || !scriptFlag(args[i - 1]!.text)));
      return (name === 'sed' && !hasScriptOption ? list.slice(1) : list).map((word) => ({ word, tree: false, via: `${name} -i` }));
    }
    case 'git':
      return gitWrites(args);
    default:
      return null;
  }
}

function optionValue(args: readonly Word[], short: string, long: string): Word | undefined {
  for (let i = 0; i < args.length; i++) {
    const text = args[i]!.text;
    if (text === short || text === long) return args[i + 1];
    if (text.startsWith(`${long}=`)) return { ...args[i]!, text: text.slice(long.length + 1) };
  }
  return undefined;
}

function gitWrites(args: readonly Word[]): Found[] | null {
  let i = 0;
  // Global options before the subcommand: -C DIR, -c key=value, --git-dir=...
  while (i < args.length && args[i]!.text.startsWith('-')) i += args[i]!.text === '-C' || args[i]!.text === '-c' ? 2 : 1;
  const sub = args[i]?.text;
  const rest = args.slice(i + 1);
  if (sub === 'clean') {
    // Untracked files go too, without -x: a protected test or a .vouch/ not yet committed or ignored.
    // Only a dry run (-n) writes nothing. The value of -e (an exclude pattern) is not a path.
    const flags = rest.filter((word) => word.text.startsWith('-') && !word.text.startsWith('--')).map((word) => word.text);
    if (flags.some((flag) => /^-[A-Za-z]*n/.test(flag)) || rest.some((word) => word.text === '--dry-run')) return [];
    const paths = operands(rest.filter((_word, j) => !(rest[j - 1]?.text === '-e' || rest[j - 1]?.text === '--exclude')));
    return (paths.length > 0 ? paths : [{ text: '.', opaque: false, glob: false }]).map((word) => ({ word, tree: true, via: 'git clean' }));
  }
  if (sub === undefined || GIT_READ_ONLY.has(sub)) return [];
  if (!GIT_PATH_COMMANDS.has(sub)) return null;
  const dashes = rest.findIndex((word) => word.text === '--');
  const paths = dashes >= 0 ? rest.slice(dashes + 1) : operands(rest.filter((word, j) => !isOptionValue(rest, j)));
  return paths.map((word) => ({ word, tree: true, via: `git ${sub}` }));
}

/** `git restore -s main file`: "main" is the value of -s, not a path. */
function isOptionValue(args: readonly Word[], index: number): boolean {
  const previous = args[index - 1]?.text;
  return previous === '-s' || previous === '--source' || previous === '-b' || previous === '-B' || previous === '--orphan';
}
