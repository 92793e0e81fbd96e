import { isAbsolute, resolve } from 'node:path';
import type { Word } from './tokenize.js';
import type { PersonAct } from './vouch-acts.js';

/** A path a git command plainly writes, removes or restores (git rm, git checkout -- PATH...). */
export interface GitPath {
  readonly word: Word;
  readonly tree: boolean;
  readonly via: string;
}

/**
 * What the guard asks git (read-only) to learn which paths a wholesale
 * rewrite of the work tree would change. Paths git prints are relative to
 * the top of the work tree.
 */
export type TreeQuery =
  /** `git diff --name-only --no-renames ARGS`: revisions, then `--` and a pathspec. */
  | { readonly kind: 'diff'; readonly args: readonly string[] }
  /** `git log --no-walk --name-only ARGS`: the paths the commits named change (cherry-pick, revert). */
  | { readonly kind: 'log'; readonly args: readonly string[] }
  /** `git ls-files --full-name ARGS`: tracked (or, with --others, untracked) files. */
  | { readonly kind: 'ls'; readonly args: readonly string[] }
  /** `git ls-tree -r --full-tree REV`, when REV exists (a stash's untracked files). */
  | { readonly kind: 'tree'; readonly rev: string }
  /** The files a patch or mailbox names (`diff --git`, `---`/`+++`, `rename to`), read from a file or given inline (a here-document). */
  | { readonly kind: 'patch'; readonly source: PatchSource; readonly strip: number; readonly directory: string | null }
  /** Cannot be told before it runs (git pull fetches first; a patch on a pipe). */
  | { readonly kind: 'unknown' };

/** Where a patch comes from: a file (absolute path), or text the command line holds. */
export type PatchSource = { readonly kind: 'file'; readonly path: string } | { readonly kind: 'text'; readonly text: string };

/** A git command that rewrites the work tree wholesale (checkout BRANCH, reset --hard, stash, merge...). */
export interface GitTreeOp {
  /** The command, for messages: "git checkout main". */
  readonly command: string;
  /** The directory git runs in (after -C); null when it cannot be read. */
  readonly dir: string | null;
  /** Every query must be answered for the paths to be known; any that cannot be leaves the op opaque. */
  readonly queries: readonly TreeQuery[];
}

export interface GitRead {
  /** Paths it names; null when it is a git command that may write what it does not name. */
  readonly paths: readonly GitPath[] | null;
  /** It rewrites the work tree wholesale. */
  readonly op: GitTreeOp | null;
  /** It routes around git's hooks (the pre-push gate). */
  readonly act: PersonAct | null;
}

const READ_ONLY = new Set([
  'status',
  'log',
  'diff',
  'show',
  'rev-parse',
  'ls-files',
  'ls-tree',
  'blame',
  'grep',
  'describe',
  'fetch',
  'branch',
  'tag',
  'remote',
  'shortlog',
  'reflog',
  'cat-file',
  'merge-base',
  'rev-list',
  'show-ref',
  'version',
  'help',
]);
/** Options of git itself (before the subcommand) that take the next word. */
const GLOBAL_VALUE_OPTIONS = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--config-env', '--super-prefix']);
const HOOKS_PATH = /core\.hookspath/i;

const plain = (text: string): Word => ({ text, opaque: false, glob: false });
const operands = (args: readonly Word[]) => args.filter((word) => !word.text.startsWith('-') || word.text === '-');

/**
 * Reads one git command line (the words after `git`): the paths it names,
 * whether it rewrites the work tree wholesale, and whether it routes around
 * the pre-push hook (`push --no-verify`, `core.hooksPath`). `dir` is where it
 * runs; `stdin` the file a `<` redirection feeds it (git apply, git am).
 */
export function readGit(args: readonly Word[], dir: string | null, stdin: PatchSource | null): GitRead & { readonly dir: string | null } {
  let i = 0;
  let at = dir;
  let act: PersonAct | null = null;
  while (i < args.length && args[i]!.text.startsWith('-')) {
    const option = args[i]!.text;
    const value = GLOBAL_VALUE_OPTIONS.has(option) ? args[i + 1] : undefined;
    const inline = option.includes('=') ? option.slice(option.indexOf('=') + 1) : undefined;
    if ((option === '-c' || option.startsWith('--config-env')) && HOOKS_PATH.test(value?.text ?? inline ?? ''))
      act = { kind: 'git_hooks', command: `git ${option} core.hooksPath=...` };
    if (option === '-C') at = value === undefined || value.opaque || at === null ? null : resolve(at, value.text);
    // Another work tree: where its paths land is not read here.
    if (option.startsWith('--work-tree')) at = null;
    i += value !== undefined ? 2 : 1;
  }
  const sub = args[i]?.text;
  const rest = args.slice(i + 1);
  const command = ['git', ...args.slice(i).map((word) => word.text)].join(' ');
  const read = subcommand(sub, rest, at, stdin, command);
  return { ...read, act: act ?? read.act, dir: at };
}

function subcommand(sub: string | undefined, rest: readonly Word[], dir: string | null, stdin: PatchSource | null, command: string): GitRead {
  const none: GitRead = { paths: [], op: null, act: null };
  const wholesale = (...queries: TreeQuery[]): GitRead => ({ paths: [], op: { command, dir, queries }, act: null });
  const texts = rest.map((word) => word.text);
  const has = (...flags: string[]) => texts.some((text) => flags.includes(text));
  switch (sub) {
    case undefined:
      return none;
    case 'clean':
      return { paths: cleanPaths(rest), op: null, act: null };
    case 'rm':
    case 'mv':
    case 'restore':
      return { paths: namedPaths(sub, rest), op: null, act: null };
    case 'checkout':
      return checkout(rest, wholesale);
    case 'switch':
      return switchTo(rest, wholesale);
    case 'reset': {
      const target = revOperands(rest, new Set())[0] ?? 'HEAD';
      if (has('--hard')) return wholesale({ kind: 'diff', args: [target, '--'] });
      if (has('--keep', '--merge')) return wholesale({ kind: 'diff', args: ['HEAD', target, '--'] });
      // --soft and --mixed leave the work tree alone.
      return none;
    }
    case 'stash':
      return stash(rest, wholesale);
    case 'merge': {
      if (has('--abort')) return wholesale({ kind: 'diff', args: ['HEAD', '--'] });
      if (has('--continue', '--quit')) return none;
      const commits = revOperands(rest, new Set(['-m', '-F', '--file', '-s', '--strategy', '-X', '--strategy-option', '--into-name', '--cleanup']));
      return wholesale(...(commits.length > 0 ? commits : ['@{upstream}']).map((rev): TreeQuery => ({ kind: 'diff', args: [`HEAD...${rev}`, '--'] })));
    }
    case 'rebase':
      return rebase(rest, wholesale);
    case 'pull':
      return wholesale({ kind: 'unknown' });
    case 'cherry-pick':
    case 'revert': {
      if (has('--continue', '--quit', '--skip')) return none;
      if (has('--abort')) return wholesale({ kind: 'unknown' });
      const revs = revOperands(rest, new Set(['-m', '--mainline', '-X', '--strategy-option', '--strategy', '-S', '--gpg-sign', '--cleanup']));
      return wholesale(revs.length > 0 ? { kind: 'log', args: revs } : { kind: 'unknown' });
    }
    case 'apply':
    case 'am':
      return patches(sub, rest, dir, stdin, wholesale);
    case 'push':
      // git accepts a unique prefix of a long option: --no-veri is --no-verify.
      return { ...none, act: rest.some((word) => /^--no-veri(fy?)?$/.test(word.text)) ? { kind: 'git_hooks', command: 'git push --no-verify' } : null };
    case 'commit':
      // The pre-commit gate: --no-verify (or a prefix of it), or -n alone or in a cluster of short options (-an, up to one that takes a value: -m, -F, -C, -c, -t).
      // What else a commit writes is judged as before (opaque: paths null).
      return {
        paths: null,
        op: null,
        act: rest.some((word) => /^--no-veri(fy?)?$/.test(word.text) || /^-[a-zA-Z]*n/.test(word.text.replace(/[mFCct].*$/, '')))
          ? { kind: 'git_hooks', command: 'git commit --no-verify' }
          : null,
      };
    case 'config':
      return { ...none, act: configWritesHooksPath(rest) ? { kind: 'git_hooks', command: 'git config core.hooksPath' } : null };
    default:
      return READ_ONLY.has(sub) ? none : { paths: null, op: null, act: null };
  }
}

/** `git clean`: untracked files go too, without -x; only a dry run (-n) writes nothing. The value of -e is a pattern. */
function cleanPaths(rest: readonly Word[]): GitPath[] {
  const flags = rest.filter((word) => word.text.startsWith('-') && !word.text.startsWith('--')).map((word) => word.text);
  if (flags.some((flag) => /^-[A-Za-z]*n/.test(flag)) || rest.some((word) => word.text === '--dry-run')) return [];
  const paths = operands(rest.filter((_word, j) => !(rest[j - 1]?.text === '-e' || rest[j - 1]?.text === '--exclude')));
  return (paths.length > 0 ? paths : [plain('.')]).map((word) => ({ word, tree: true, via: 'git clean' }));
}

/** Paths after `--`, else every operand that is not an option's value (`git restore -s main f`: main is not a path). */
function namedPaths(sub: string, rest: readonly Word[]): GitPath[] {
  const dashes = rest.findIndex((word) => word.text === '--');
  const valued = new Set(['-s', '--source', '-b', '-B', '--orphan', '-c', '-C']);
  const paths = dashes >= 0 ? rest.slice(dashes + 1) : operands(rest.filter((_word, j) => !valued.has(rest[j - 1]?.text ?? '')));
  return paths.map((word) => ({ word, tree: true, via: `git ${sub}` }));
}

type Wholesale = (...queries: TreeQuery[]) => GitRead;

/**
 * `git checkout`: with `--`, the paths after it; without, the first operand
 * may be a branch (the work tree becomes it) or a path (restored): both are
 * read, and git tells the guard which it is (a diff against a non-revision
 * fails, and the paths stand).
 */
function checkout(rest: readonly Word[], wholesale: Wholesale): GitRead {
  const texts = rest.map((word) => word.text);
  const force = texts.some((text) => text === '-f' || text === '--force');
  if (texts.includes('-p') || texts.includes('--patch')) return wholesale({ kind: 'unknown' });
  if (texts.includes('--')) return { paths: namedPaths('checkout', rest), op: null, act: null };
  const newBranch = texts.findIndex((text) => text === '-b' || text === '-B' || text === '--orphan');
  const revs = revOperands(rest, new Set(['-b', '-B', '--orphan']));
  if (newBranch >= 0) {
    // A new branch at a start point: the work tree becomes the start point (none: stays as it is).
    const start = revs[0];
    return start === undefined ? { paths: [], op: null, act: null } : wholesale({ kind: 'diff', args: [...(force ? [] : ['HEAD']), start, '--'] });
  }
  const first = revs[0];
  if (first === undefined) return force ? wholesale({ kind: 'diff', args: ['HEAD', '--'] }) : { paths: [], op: null, act: null };
  const target = first === '-' ? '@{-1}' : first;
  const read = wholesale({ kind: 'diff', args: [...(force ? [] : ['HEAD']), target, '--'] });
  return { ...read, paths: namedPaths('checkout', rest) };
}

/** `git switch`: to a branch, a new one at a start point, a detached revision, or an orphan (every tracked file goes). */
function switchTo(rest: readonly Word[], wholesale: Wholesale): GitRead {
  const texts = rest.map((word) => word.text);
  const force = texts.some((text) => text === '-f' || text === '--force' || text === '--discard-changes');
  if (texts.includes('--orphan')) return wholesale({ kind: 'ls', args: [] });
  // The new branch's name is the value of -c / -C: what is left is the start point.
  const revs = revOperands(rest, new Set(['-c', '-C', '--create', '--force-create']));
  const creating = texts.some((text) => ['-c', '-C', '--create', '--force-create'].includes(text));
  const target = revs[0];
  if (target === undefined) return creating ? { paths: [], op: null, act: null } : wholesale({ kind: 'unknown' });
  return wholesale({ kind: 'diff', args: [...(force ? [] : ['HEAD']), target === '-' ? '@{-1}' : target, '--'] });
}

/**
 * `git stash` (push, save, or none): the work tree goes back to HEAD, and with
 * -u / -a untracked (and ignored) files go too; `pop` / `apply`: the stash's
 * changes and untracked files come back.
 */
function stash(rest: readonly Word[], wholesale: Wholesale): GitRead {
  const action = rest[0] && !rest[0].text.startsWith('-') ? rest[0].text : 'push';
  const args = action === 'push' && rest[0]?.text !== 'push' ? rest : rest.slice(1);
  const texts = args.map((word) => word.text);
  switch (action) {
    case 'push':
    case 'save': {
      const dashes = texts.indexOf('--');
      const pathspec = action === 'push' && dashes >= 0 ? texts.slice(dashes + 1) : [];
      const queries: TreeQuery[] = [{ kind: 'diff', args: ['HEAD', '--', ...pathspec] }];
      if (texts.some((text) => text === '-a' || text === '--all')) queries.push({ kind: 'ls', args: ['--others', '--', ...pathspec] });
      else if (texts.some((text) => text === '-u' || text === '--include-untracked'))
        queries.push({ kind: 'ls', args: ['--others', '--exclude-standard', '--', ...pathspec] });
      return wholesale(...queries);
    }
    case 'pop':
    case 'apply': {
      const given = operands(args)[0]?.text;
      const ref = given === undefined ? 'stash@{0}' : /^\d+$/.test(given) ? `stash@{${given}}` : given;
      return wholesale({ kind: 'diff', args: [`${ref}^1`, ref, '--'] }, { kind: 'tree', rev: `${ref}^3` });
    }
    case 'list':
    case 'show':
    case 'drop':
    case 'clear':
    case 'create':
    case 'store':
      return { paths: [], op: null, act: null };
    default:
      // `stash branch` and whatever a later git adds.
      return wholesale({ kind: 'unknown' });
  }
}

/** `git rebase [--onto NEW] [UPSTREAM [BRANCH]]`: every path that differs between the base and the branch may change. */
function rebase(rest: readonly Word[], wholesale: Wholesale): GitRead {
  const texts = rest.map((word) => word.text);
  if (texts.some((text) => ['--continue', '--skip', '--quit', '--edit-todo', '--show-current-patch'].includes(text))) return { paths: [], op: null, act: null };
  if (texts.some((text) => text === '--abort' || text === '--root')) return wholesale({ kind: 'unknown' });
  const onto = valueOf(rest, '--onto');
  const revs = revOperands(
    rest,
    new Set([
      '--onto',
      '-s',
      '--strategy',
      '-X',
      '--strategy-option',
      '-x',
      '--exec',
      '-C',
      '--whitespace',
      '--empty',
      '-S',
      '--gpg-sign',
      '-r',
      '--rebase-merges',
    ]),
  );
  const base = onto ?? revs[0] ?? '@{upstream}';
  const branch = revs[1];
  if (branch === undefined) return wholesale({ kind: 'diff', args: [base, 'HEAD', '--'] });
  return wholesale({ kind: 'diff', args: ['HEAD', branch, '--'] }, { kind: 'diff', args: [base, branch, '--'] });
}

/** `git apply` and `git am`: the paths their patches name; `--cached` and the read-only forms of apply change no file. */
function patches(sub: 'apply' | 'am', rest: readonly Word[], dir: string | null, stdin: PatchSource | null, wholesale: Wholesale): GitRead {
  const texts = rest.map((word) => word.text);
  if (
    sub === 'am' &&
    texts.some(
      (text) => ['--continue', '--skip', '--resolved', '-r', '--quit', '--show-current-patch'].includes(text) || text.startsWith('--show-current-patch'),
    )
  ) {
    return { paths: [], op: null, act: null };
  }
  if (sub === 'am' && texts.includes('--abort')) return wholesale({ kind: 'unknown' });
  if (sub === 'apply') {
    if (texts.includes('--cached')) return { paths: [], op: null, act: null };
    const reports = texts.some((text) => ['--check', '--stat', '--numstat', '--summary'].includes(text));
    if (reports && !texts.includes('--apply')) return { paths: [], op: null, act: null };
  }
  const strip = stripOf(rest);
  const directory = valueOf(rest, '--directory') ?? null;
  const valued = new Set([
    '-p',
    '-C',
    '--directory',
    '--exclude',
    '--include',
    '--whitespace',
    '--build-fake-ancestor',
    '-S',
    '--gpg-sign',
    '--patch-format',
    '--resolvemsg',
    '--quoted-cr',
    '--empty',
  ]);
  const files = operands(rest.filter((_word, j) => !valued.has(rest[j - 1]?.text ?? ''))).map((word) => (word.text === '-' ? null : word));
  const sources = files.length > 0 ? files : [null];
  const queries = sources.map((word): TreeQuery => {
    const source: PatchSource | null =
      word === null ? stdin : word.opaque || dir === null ? null : { kind: 'file', path: isAbsolute(word.text) ? word.text : resolve(dir, word.text) };
    return source === null ? { kind: 'unknown' } : { kind: 'patch', source, strip, directory };
  });
  return wholesale(...queries);
}

/** The operands that are revisions: not options, not the value of an option that takes one, nothing after `--`. */
function revOperands(rest: readonly Word[], valued: ReadonlySet<string>): string[] {
  const revs: string[] = [];
  for (let j = 0; j < rest.length; j++) {
    const text = rest[j]!.text;
    if (text === '--') break;
    if (valued.has(text)) {
      j++;
      continue;
    }
    if (text.startsWith('-') && text !== '-') continue;
    revs.push(text);
  }
  return revs;
}

function valueOf(rest: readonly Word[], option: string): string | undefined {
  for (let j = 0; j < rest.length; j++) {
    const text = rest[j]!.text;
    if (text === option) return rest[j + 1]?.text;
    if (text.startsWith(`${option}=`)) return text.slice(option.length + 1);
  }
  return undefined;
}

/** `-p N` / `-pN`: leading path components a patch's paths lose (1 by default). */
function stripOf(rest: readonly Word[]): number {
  for (let j = 0; j < rest.length; j++) {
    const text = rest[j]!.text;
    const match = /^-p(\d+)$/.exec(text);
    if (match) return Number(match[1]);
    if (text === '-p' && /^\d+$/.test(rest[j + 1]?.text ?? '')) return Number(rest[j + 1]!.text);
  }
  return 1;
}

/**
 * `git config` setting, unsetting or renaming away core.hooksPath (old and new
 * syntax, any scope or --file): reading it is fine.
 */
function configWritesHooksPath(rest: readonly Word[]): boolean {
  const valued = new Set(['-f', '--file', '--blob', '--type', '--default', '--comment', '--value']);
  const positional = operands(rest.filter((_word, j) => !valued.has(rest[j - 1]?.text ?? ''))).map((word) => word.text);
  const flags = rest.map((word) => word.text);
  if (flags.some((text) => text === '--remove-section' || text === '--rename-section')) return positional.some((text) => text.toLowerCase() === 'core');
  const newStyle = positional[0] === 'set' || positional[0] === 'unset';
  const key = newStyle ? positional[1] : positional[0];
  if (key === undefined || !HOOKS_PATH.test(key)) return false;
  if (newStyle) return true;
  return positional.length >= 2 || flags.some((text) => ['--unset', '--unset-all', '--add', '--replace-all'].includes(text));
}
