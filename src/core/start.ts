/**
 * How this process was started, and which heavy parts of vouch it has
 * evaluated: what `VOUCH_TRACE=1` prints, so that a test can see that a
 * hook ran from the hot bundle with its code cache, and that `status`
 * answered from caches never evaluated the YAML parser.
 */

/** The code cache the launcher gave the hot bundle: used, refused by V8 (another Node), or not there. */
export type CodeCache = 'accepted' | 'rejected' | 'absent';

let bundle: 'hot' | 'split' = 'split';
let cache: CodeCache | undefined;
const parts = new Set<string>();

/** Called by the hot bundle's entry: it answers this process, with what became of its code cache. */
export function noteHotBundle(codeCache: CodeCache): void {
  bundle = 'hot';
  cache = codeCache;
}

/** What became of the git status the launcher started for a verify (core/early-git.ts): handed over, then taken by the receipts' git. */
let earlyGit: 'started' | 'taken' | undefined;

export function noteEarlyGit(state: 'started' | 'taken'): void {
  earlyGit = state;
}

/** Called at the top level of a heavy module: it runs once, when the module is evaluated. */
export function noteLoaded(part: string): void {
  parts.add(part);
}

/**
 * Node's own modules that cost milliseconds to load (each brings others:
 * net and tty the socket machinery, stream a dozen modules), which a hook
 * or a `status` should load only when it uses them.
 */
const HEAVY_BUILTINS = ['child_process', 'crypto', 'net', 'stream', 'tty', 'zlib'];

/** Which of HEAVY_BUILTINS this process has loaded, from Node's list of the modules it compiled. */
function heavyBuiltins(): string[] {
  const list = new Set((process as { moduleLoadList?: readonly string[] }).moduleLoadList ?? []);
  return HEAVY_BUILTINS.filter((name) => list.has(`NativeModule ${name}`));
}

/** `bundle=hot code_cache=accepted loaded=keystore,yaml builtins=crypto early_git=taken` */
export function startFields(): string {
  return [
    `bundle=${bundle}`,
    ...(cache ? [`code_cache=${cache}`] : []),
    `loaded=${[...parts].sort().join(',') || '-'}`,
    `builtins=${heavyBuiltins().join(',') || '-'}`,
    ...(earlyGit ? [`early_git=${earlyGit}`] : []),
  ].join(' ');
}
