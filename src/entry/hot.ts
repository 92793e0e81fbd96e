// The commands an agent's client calls on every tool call and every stop
// (`hook`, `status`), and `verify`, in one CommonJS file (dist/hot.js) that
// the launcher compiles with V8's code cache: no module resolution, no parsing of what
// was compiled before. Nothing else: every other command starts the split
// build (src/entry/split.ts).
import { runProcess } from '../cli/process.js';
import { receiveEarlyStatus, type EarlyStatus } from '../core/early-git.js';
import { noteHotBundle, type CodeCache } from '../core/start.js';

/** Called by the launcher with what became of the code cache, and the git status it started for a verify. */
export function run(codeCache: CodeCache, early?: EarlyStatus | null): Promise<void> {
  noteHotBundle(codeCache);
  receiveEarlyStatus(early);
  return runProcess(new URL('./esm/hash-worker.js', import.meta.url));
}
