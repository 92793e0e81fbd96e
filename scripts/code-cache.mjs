// Writes dist/hot.js.cache: V8's code cache for the hot bundle, which the
// launcher (src/entry/launch.ts) hands to V8 so that `hook`, `status` and
// `verify` start without parsing it. Made by the Node that will run it: by
// scripts/build.mjs, and again at install (package.json's install script).
// The file starts with the bundle's build id (src/entry/code-cache.ts). A
// cache from another Node or another build is not used and the source is
// compiled as usual, so a missing or stale cache costs time, never
// correctness. Never fails the install.
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const file = new URL('../dist/hot.js', import.meta.url).pathname;

function makeCache() {
  try {
    // Compiled by the launcher's own function: same wrapper, same file name; the file names the bundle's build.
    const { compileHot, encodeCodeCache } = createRequire(import.meta.url)('../dist/cli.js');
    const { script, build } = compileHot(file);
    if (build === undefined) throw new Error('dist/hot.js does not name its build on its first line');
    const temporary = `${file}.cache.${process.pid}`;
    writeFileSync(temporary, encodeCodeCache(build, script.createCachedData()));
    renameSync(temporary, `${file}.cache`);
  } catch (error) {
    process.stderr.write(`vouch: no code cache for the hot bundle (${error.message}); vouch works without it, only starts slower\n`);
  }
}

// In a fresh clone `npm ci` runs this before `prepare` has built dist/: nothing to cache yet.
if (existsSync(file)) makeCache();
process.exitCode = 0;
