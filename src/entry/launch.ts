// The executable (dist/cli.js, CommonJS): picks what answers this command
// line, and loads nothing else. `hook`, `status` and `verify` run from the
// hot bundle (dist/hot.js) compiled with V8's code cache (dist/hot.js.cache,
// made at build and install by scripts/code-cache.mjs); every other command
// starts the code-split build (dist/esm/main.js), which loads each
// command's own chunks. See docs/speed.md.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { Script } from 'node:vm';
import { commandIndex, dirOption } from '../cli/command-word.js';
import { startEarlyStatus, type EarlyStatus } from '../core/early-git.js';
import { cannotRun } from './cannot-run.js';
import { bundleBuild, decodeCodeCache, encodeCodeCache } from './code-cache.js';
import type { CodeCache } from '../core/start.js';
import { VERSION } from '../version.js';

/** Every command, code-split; beside this file once built (a name, not a module the type checker should look for). */
const SPLIT_BUILD = './esm/main.js';

/** The commands the hot bundle answers. */
const HOT = new Set(['hook', 'status', 'verify']);

interface HotBundle {
  run(codeCache: CodeCache, early: EarlyStatus | null): Promise<void>;
}

/**
 * Compiles the hot bundle as Node compiles a CommonJS module (the same
 * wrapper), with the code cache file's data when it was made for this
 * bundle's build. scripts/code-cache.mjs makes the cache through this very
 * function, so the two compile the same text.
 */
export function compileHot(file: string, cacheFile?: Buffer): { script: Script; build: string | undefined; codeCache: CodeCache } {
  // esbuild writes ASCII only (non-ASCII is escaped), so latin1 reads it exactly, without UTF-8 decoding.
  const source = readFileSync(file, 'latin1');
  const build = bundleBuild(source);
  const cachedData = cacheFile && decodeCodeCache(cacheFile, build);
  const script = new Script(`(function (exports, require, module, __filename, __dirname) { ${source}\n});`, {
    filename: file,
    ...(cachedData && { cachedData }),
  });
  const codeCache = cacheFile === undefined ? 'absent' : cachedData === undefined || script.cachedDataRejected === true ? 'rejected' : 'accepted';
  return { script, build, codeCache };
}

// scripts/code-cache.mjs warms the hot bundle up as this launcher runs it.
export { encodeCodeCache, startEarlyStatus };

/**
 * Loads dist/hot.js with its code cache when there is one for its build:
 * V8 refuses a cache made by another V8 or for source of another length,
 * and then compiles the source as usual.
 */
function loadHot(dir: string): { bundle: HotBundle; codeCache: CodeCache } {
  const file = join(dir, 'hot.js');
  let cacheFile: Buffer | undefined;
  try {
    cacheFile = readFileSync(`${file}.cache`);
  } catch {
    cacheFile = undefined;
  }
  const { script, codeCache } = compileHot(file, cacheFile);
  const module = { exports: {} as HotBundle };
  (script.runInThisContext() as (...args: unknown[]) => void).call(module.exports, module.exports, createRequire(file), module, file, dir);
  return { bundle: module.exports, codeCache };
}

/** Runs this process's command line (called when this file is the main module, or by plugin/run.mjs, which imports it). */
export function launch(): void {
  const argv = process.argv.slice(2);
  const at = commandIndex(argv);
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    process.stdout.write(`${VERSION}\n`);
  } else if (HOT.has(argv[at] ?? '')) {
    // verify's receipts need git's status of the tree: started now, git reads the index while vouch compiles (core/early-git.ts).
    // Where -C points, when it is given: the workspace (and so, most often, its repository) is found from there.
    const early = argv[at] === 'verify' && !argv.includes('--help') ? startEarlyStatus(resolve(dirOption(argv) ?? '.'), process.env) : null;
    let loaded: ReturnType<typeof loadHot>;
    try {
      loaded = loadHot(__dirname);
    } catch (error) {
      early?.isolated.close();
      const why = `vouch's hot bundle (${join(__dirname, 'hot.js')}) could not be loaded (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); reinstall vouch (npm ci builds it)`;
      process.exitCode = cannotRun(argv[at]!, argv.slice(at + 1), why);
      return;
    }
    void loaded.bundle.run(loaded.codeCache, early);
  } else {
    void import(SPLIT_BUILD);
  }
}

// Run as the executable; imported (plugin/run.mjs, scripts/code-cache.mjs), it only lends launch, compileHot and what the warm-up needs.
if (require.main === module) launch();
