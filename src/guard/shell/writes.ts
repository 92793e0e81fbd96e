import { basename, dirname, isAbsolute, resolve } from 'node:path';
import { readGit, type GitTreeOp, type PatchSource } from './git.js';
import { codexPatchPaths } from './apply-patch.js';
import { assignmentsHarmless, readOnlyUse } from './read-only.js';
import { sedReadsOnly } from './sed-script.js';
import { tokenize, type SimpleCommand, type Word } from './tokenize.js';
import { vouchActOf, type PersonAct } from './vouch-acts.js';

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
   * The person's acts the line runs (`vouch allow`, `vouch install`, `vouch
   * hook`, `git push --no-verify`...): never the agent's.
   */
  readonly acts: readonly PersonAct[];
  /** Git commands that rewrite the work tree wholesale (checkout BRANCH, reset --hard, stash...): the guard asks git what they change. */
  readonly gitOps: readonly GitTreeOp[];
  /** Every program the line plainly runs, wrappers and `sh -c` unwrapped: what `vouch exec` holds against its deny list. */
  readonly programs: readonly ProgramUse[];
}

/** One program a command line runs, as the line names it. */
export interface ProgramUse {
  /** As written: `curl`, `./bin/x`, `/usr/bin/wget`. */
  readonly name: string;
  /** Its arguments; null for a word this reader cannot read (a variable, a substitution). */
  readonly args: readonly (string | null)[];
  /** The directory it runs in, when known. */
  readonly dir: string | null;
}

/** Wrappers whose arguments are another command. */
const WRAPPERS = new Set([
  'sudo',
  'doas',
  'command',
  'builtin',
  'exec',
  'nohup',
  'time',
  'nice',
  'ionice',
  'stdbuf',
  'env',
  'timeout',
  'unbuffer',
  'setsid',
  'xargs',
]);
/** Wrapper options whose value is the next word (`env -u NAME`, `sudo -u USER`, `nice -n 5`, `timeout -s KILL`). */
const WRAPPER_VALUE_OPTIONS: Readonly<Record<string, ReadonlySet<string>>> = {
  env: new Set(['-u', '--unset', '-C', '--chdir', '-S', '--split-string']),
  sudo: new Set([
    '-u',
    '--user',
    '-g',
    '--group',
    '-h',
    '--host',
    '-p',
    '--prompt',
    '-C',
    '--close-from',
    '-D',
    '--chdir',
    '-R',
    '--chroot',
    '-T',
    '--command-timeout',
    '-U',
    '--other-user',
    '-r',
    '--role',
    '-t',
    '--type',
  ]),
  doas: new Set(['-u', '-C']),
  nice: new Set(['-n', '--adjustment']),
  ionice: new Set(['-c', '--class', '-n', '--classdata', '-p', '--pid', '-P', '--pgid', '-u', '--uid']),
  stdbuf: new Set(['-i', '--input', '-o', '--output', '-e', '--error']),
  timeout: new Set(['-s', '--signal', '-k', '--kill-after']),
  exec: new Set(['-a']),
  xargs: new Set(['-a', '--arg-file', '-d', '--delimiter', '-E', '-I', '-L', '--max-lines', '-n', '--max-args', '-P', '--max-procs', '-s', '--max-chars']),
};
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh']);
/**
 * Reserved words and operators that may come before a command in the same
 * simple command as this reader splits a line: `{ rm f; }`, `if x; then rm
 * f; fi`, `! rm f`, `while x; do rm f; done`. Skipped to reach the command.
 */
const KEYWORDS = new Set(['{', '}', '!', 'if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', 'esac']);

/**
 * What a shell command line plainly writes: redirections, and the path
 * arguments of commands that write, remove or restore files (rm, mv, cp, ln,
 * install, tee, touch, truncate, dd of=, sed -i, perl -i, git checkout /
 * restore / rm / mv / clean), the git commands that rewrite the work tree
 * wholesale, and the person's acts it runs. `sh -c '...'`, `eval`, `$(...)`,
 * backquotes and `find -exec` are read too; `cd` (options skipped), `pushd`
 * and `popd` move where relative paths land, and a link the line makes
 * (`ln -s test tt && echo x > tt/f`) is followed by what comes after it.
 * Words holding variables are unknown and skipped: this sees what a line
 * says, not what it computes.
 */
export function shellWrites(line: string, cwd: string, home: string | undefined): ShellWrites {
  const targets: WriteTarget[] = [];
  const acts: PersonAct[] = [];
  const gitOps: GitTreeOp[] = [];
  const programs: ProgramUse[] = [];
  /** Links the line makes, link → where it leads (absolute): they exist for whatever runs after them. */
  const links = new Map<string, string>();
  let opaque = false;
  const resolveIn = (word: Word, dir: string | null) => {
    const path = word.opaque || dir === null ? null : resolvePath(word.text, dir, home);
    return path === null ? null : followLinks(path, links);
  };

  const visit = (text: string, startCwd: string | null, depth: number) => {
    const parsed = tokenize(text);
    let dir = startCwd;
    let previous: string | null = null;
    const stack: (string | null)[] = [];
    let piped: SimpleCommand | null = null;
    for (const command of parsed.commands) {
      const feeder = piped;
      piped = command.then === '|' ? command : null;
      const resolveWord = (word: Word) => resolveIn(word, dir);
      for (const redirect of command.redirects) {
        if (!['>', '>>', '>|', '&>', '&>>', '<>'].includes(redirect.op)) continue;
        const path = resolveWord(redirect.target);
        if (path !== null) targets.push({ path, glob: redirect.target.glob, tree: false, via: `${redirect.op} redirection` });
        else opaque = true;
      }
      for (const word of command.words) if (routesAroundHooks(word)) acts.push({ kind: 'git_hooks', command: 'GIT_CONFIG_* core.hooksPath' });
      const { words: argv, fed, assignments } = unwrap(command);
      // xargs appends operands this reader never sees; LD_PRELOAD=... (and the like) runs code in any command.
      if (fed || !assignmentsHarmless(assignments)) opaque = true;
      const act = vouchActOf(argv);
      if (act !== null) acts.push(act);
      const name = argv[0] && !argv[0].opaque ? basename(argv[0].text) : null;
      if (name === null) {
        if (argv.length > 0) opaque = true;
        continue;
      }
      programs.push({ name: argv[0]!.text, args: argv.slice(1).map((word) => (word.opaque ? null : word.text)), dir });
      // `./rm`, `tools/cat`: a program of the agent's own, whatever it is called, may write anything.
      if (!systemCommand(argv[0]!.text)) opaque = true;
      if (name === 'cd' || name === 'pushd' || name === 'popd') {
        const from = dir;
        if (name === 'pushd') stack.push(dir);
        dir = name === 'popd' ? (stack.pop() ?? null) : changeDir(argv.slice(1), dir, previous, home, resolveWord);
        previous = from;
        continue;
      }
      if (SHELLS.has(name) && depth < 3) {
        const script = argv.findIndex((word) => /^-[A-Za-z]*c$/.test(word.text));
        if (script > 0 && argv[script + 1] && !argv[script + 1]!.opaque) visit(argv[script + 1]!.text, dir, depth + 1);
        else opaque = true;
        continue;
      }
      if (name === 'eval' && depth < 3) {
        visit(
          argv
            .slice(1)
            .map((word) => word.text)
            .join(' '),
          dir,
          depth + 1,
        );
        continue;
      }
      if (name === 'find') {
        // What -exec runs is a command of its own; find itself may write (-delete, -fprint).
        opaque = true;
        for (const inner of findExecs(argv.slice(1))) {
          const innerAct = vouchActOf(inner);
          if (innerAct !== null) acts.push(innerAct);
          if (inner[0] && !inner[0].opaque) programs.push({ name: inner[0].text, args: inner.slice(1).map((word) => (word.opaque ? null : word.text)), dir });
        }
        continue;
      }
      if (name === 'git') {
        const read = readGit(argv.slice(1), dir, stdinOf(command, feeder, dir, home, links));
        if (read.act !== null) acts.push(read.act);
        if (read.op !== null) {
          gitOps.push(read.op);
          opaque = true;
        }
        if (read.paths === null) {
          opaque = true;
          continue;
        }
        for (const found of read.paths) {
          const path = resolveIn(found.word, read.dir);
          if (path === null) opaque = true;
          else targets.push({ path, glob: found.word.glob, tree: found.tree, via: found.via });
        }
        continue;
      }
      if (name === 'apply_patch' || name === 'applypatch') {
        // Codex runs this command itself (`apply_patch <<'EOF' ...`, `cd DIR && apply_patch ...`): its patch says what it writes.
        const text = argv.length === 2 && !argv[1]!.opaque ? argv[1]!.text : argv.length === 1 ? stdinText(stdinOf(command, feeder, dir, home, links)) : null;
        const paths = text === null ? null : codexPatchPaths(text);
        if (paths === null) {
          opaque = true;
          continue;
        }
        for (const path of paths) {
          const resolved = resolveWord({ text: path, opaque: false, glob: false });
          if (resolved === null) opaque = true;
          else targets.push({ path: resolved, glob: false, tree: false, via: 'apply_patch' });
        }
        continue;
      }
      // Registered once the ln's own targets are read: the link it makes is not yet there for them.
      const made = name === 'ln' && dir !== null ? linksMade(argv.slice(1), dir, resolveWord) : [];
      // A command only counts as a reader when every option it was given is known not to write or run anything.
      const found = writesOf(name, argv.slice(1)) ?? readOnlyUse(name, argv.slice(1))?.outputs.map(({ word, via }) => ({ word, tree: false, via })) ?? null;
      if (found === null) {
        opaque = true;
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
      for (const link of made) links.set(link.link, link.to);
    }
    for (const inner of parsed.nested) if (depth < 3) visit(inner, dir, depth + 1);
  };
  visit(line, cwd, 0);
  return { targets, opaque, acts, gitOps, programs };
}

function resolvePath(text: string, cwd: string, home: string | undefined): string | null {
  if (text === '') return null;
  if (text === '~' || text.startsWith('~/')) return home ? resolve(home, `.${text.slice(1)}`) : null;
  if (text.startsWith('~')) return null;
  return isAbsolute(text) ? resolve(text) : resolve(cwd, text);
}

/** A path with the links the line made so far replaced by where they lead. */
function followLinks(path: string, links: ReadonlyMap<string, string>): string {
  let current = path;
  // Bounded: a link made to lead to itself must not loop.
  for (let hops = 0; hops < 16; hops++) {
    let next: string | null = null;
    for (const [link, to] of links) {
      if (current === link) next = to;
      else if (current.startsWith(`${link}/`)) next = `${to}${current.slice(link.length)}`;
      if (next !== null) break;
    }
    if (next === null || next === current) return current;
    current = next;
  }
  return current;
}

/**
 * Where `cd` / `pushd` go: options (-L, -P, -e, -@, --) are not the
 * directory, `-` is the previous one, none is home. Unknown (null) when the
 * word cannot be read (`cd "$D"`, `pushd +1`).
 */
function changeDir(
  args: readonly Word[],
  dir: string | null,
  previous: string | null,
  home: string | undefined,
  resolveWord: (word: Word) => string | null,
): string | null {
  let i = 0;
  while (args[i] && /^-[LPe@]+$/.test(args[i]!.text)) i++;
  if (args[i]?.text === '--') i++;
  const to = args[i];
  if (to === undefined) return home ?? null;
  if (to.text === '-' && !to.opaque) return previous;
  if (/^[+-][0-9]+$/.test(to.text)) return null;
  return dir === null && !isAbsolute(to.text) ? null : resolveWord(to);
}

/**
 * The links an `ln` makes, each with where it leads: a symbolic link's
 * target is read from the link's own directory (from the current one with
 * -r), a hard link's from the current one. `ln TARGET NAME` makes NAME, or
 * NAME/TARGET when NAME is a directory: which is not known here, so both.
 */
function linksMade(args: readonly Word[], dir: string, resolveWord: (word: Word) => string | null): { link: string; to: string }[] {
  const flags = args
    .filter((word) => /^-[A-Za-z]+$/.test(word.text))
    .map((word) => word.text.slice(1))
    .join('');
  const long = args.map((word) => word.text);
  const symbolic = flags.includes('s') || long.includes('--symbolic');
  const relative = flags.includes('r') || long.includes('--relative');
  const noDirectory = flags.includes('T') || long.includes('--no-target-directory');
  const valued = new Set(['-S', '--suffix', '-t', '--target-directory']);
  const list = operands(args.filter((_word, j) => !valued.has(args[j - 1]?.text ?? '')));
  const intoWord = args.find((_word, j) => args[j - 1]?.text === '-t' || args[j - 1]?.text === '--target-directory');
  const into = intoWord ?? (list.length >= 3 ? list[list.length - 1] : undefined);
  const sources = intoWord ? list : list.length >= 3 ? list.slice(0, -1) : list.slice(0, 1);
  const names: { link: string; source: Word }[] = [];
  for (const source of sources) {
    if (source.opaque) continue;
    const base = basename(source.text);
    if (into !== undefined) {
      const folder = resolveWord(into);
      if (folder !== null) names.push({ link: resolve(folder, base), source });
    } else if (list.length === 1) {
      names.push({ link: resolve(dir, base), source });
    } else {
      const named = resolveWord(list[1]!);
      if (named === null) continue;
      names.push({ link: named, source });
      if (!noDirectory) names.push({ link: resolve(named, base), source });
    }
  }
  return names.flatMap(({ link, source }) => {
    const from = symbolic && !relative ? dirname(link) : dir;
    const to = resolveWord({ ...source, text: isAbsolute(source.text) || source.text.startsWith('~') ? source.text : resolve(from, source.text) });
    return to === null || to === link ? [] : [{ link, to }];
  });
}

/** The commands `find` runs: each -exec / -execdir / -ok / -okdir up to its `;` or `+`. */
function findExecs(args: readonly Word[]): Word[][] {
  const found: Word[][] = [];
  for (let i = 0; i < args.length; i++) {
    if (!['-exec', '-execdir', '-ok', '-okdir'].includes(args[i]!.text)) continue;
    const end = args.findIndex((word, j) => j > i && (word.text === ';' || word.text === '+'));
    found.push([...args.slice(i + 1, end < 0 ? args.length : end)]);
    i = end < 0 ? args.length : end;
  }
  return found;
}

/** What a command reads on stdin, when the line shows it: a `<` file, a here-document or here-string, or `cat FILE |`. */
function stdinOf(
  command: SimpleCommand,
  feeder: SimpleCommand | null,
  dir: string | null,
  home: string | undefined,
  links: ReadonlyMap<string, string>,
): PatchSource | null {
  const file = (word: Word): PatchSource | null => {
    const path = word.opaque || dir === null ? null : resolvePath(word.text, dir, home);
    return path === null ? null : { kind: 'file', path: followLinks(path, links) };
  };
  for (const redirect of [...command.redirects].reverse()) {
    if (redirect.op === '<') return file(redirect.target);
    if (redirect.op === '<<' || redirect.op === '<<-') return redirect.body === undefined ? null : { kind: 'text', text: redirect.body };
    if (redirect.op === '<<<') return redirect.target.opaque ? null : { kind: 'text', text: `${redirect.target.text}\n` };
  }
  const fed = feeder?.words;
  if (fed && fed.length === 2 && fed[0]!.text === 'cat' && fed[1]!.text !== '-') return file(fed[1]!);
  return null;
}

/** A command named as the shell finds it on PATH, or in a system directory: `./cat` is the agent's own program, whatever its name. */
function systemCommand(text: string): boolean {
  return !text.includes('/') || /^\/(usr\/)?(local\/)?s?bin\/[^/]+$/.test(text);
}

function stdinText(source: PatchSource | null): string | null {
  return source?.kind === 'text' ? source.text : null;
}

/** An assignment that sets git configuration from the environment (GIT_CONFIG_KEY_0=core.hooksPath, GIT_CONFIG_PARAMETERS). */
function routesAroundHooks(word: Word): boolean {
  return /^GIT_CONFIG[A-Z0-9_]*=/.test(word.text) && /core\.hookspath/i.test(word.text);
}

/**
 * Drops leading reserved words (`{`, `if`, `then`, `do`, `!`...), function
 * definition heads (`function f`), assignments and wrappers (sudo, env,
 * nohup, xargs...) to reach the command that runs. (`f() { ...; }` is split
 * by the reader at its parentheses: `f` stands alone, and `{ ...` follows.)
 * `fed`: xargs gives the command more operands than the line shows;
 * `assignments`: the variables set for it (`env A=b`, `A=b cmd`).
 */
function unwrap(command: SimpleCommand): { words: Word[]; fed: boolean; assignments: Word[] } {
  const words = [...command.words];
  const assignments: Word[] = [];
  let fed = false;
  for (;;) {
    for (;;) {
      const word = words[0];
      if (word && !word.opaque && KEYWORDS.has(word.text)) words.shift();
      else if (word && !word.opaque && word.text === 'function' && words[1]) words.splice(0, 2);
      else if (word && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word.text)) assignments.push(words.shift()!);
      else break;
    }
    const head = words[0];
    if (!head || head.opaque || !WRAPPERS.has(basename(head.text))) return { words, fed, assignments };
    const wrapper = basename(head.text);
    if (wrapper === 'xargs') fed = true;
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
      // rsync -e / --rsh / --rsync-path and install --strip-program run a program of the caller's choosing.
      if (args.some((word) => /^(-[A-Za-z]*e|--rsh|--rsync-path|--strip-program)/.test(word.text) && name !== 'cp' && name !== 'ln')) return null;
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
      // Without -i: sed writes only through its script (w, s///w) or runs one (e); perl and ruby are interpreters.
      if (!inPlace) return name === 'sed' && sedReadsOnly(args) ? [] : null;
      // The script is the value of -e / -f, or else (sed) the first operand: not a file written.
      const scriptFlag = (text: string) => /^-[A-Za-z]*[ef]$/.test(text) || text === '--expression' || text === '--file';
      const hasScriptOption = args.some((word) => scriptFlag(word.text) || word.text.startsWith('--expression='));
      const list = operands(args.filter((_word, i) => i === 0 || !scriptFlag(args[i - 1]!.text)));
      return (name === 'sed' && !hasScriptOption ? list.slice(1) : list).map((word) => ({ word, tree: false, via: `${name} -i` }));
    }
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
