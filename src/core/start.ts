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

/** Called at the top level of a heavy module: it runs once, when the module is evaluated. */
export function noteLoaded(part: string): void {
  parts.add(part);
}

/** `bundle=hot code_cache=accepted loaded=keystore,yaml` */
export function startFields(): string {
  return [`bundle=${bundle}`, ...(cache ? [`code_cache=${cache}`] : []), `loaded=${[...parts].sort().join(',') || '-'}`].join(' ');
}
