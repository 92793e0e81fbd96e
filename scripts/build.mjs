// Bundles the CLI with esbuild. One entry, code-split: the hot path (hook,
// status) loads a small chunk; heavy front ends load their own chunks only
// when a command asks for them (dynamic import).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

// A digest of every source file and the locked dependencies: what
// src/build-id.ts calls this build.
const sources = readdirSync(new URL('../src', import.meta.url), { recursive: true })
  .filter((name) => name.endsWith('.ts'))
  .sort();
const buildId = createHash('sha256');
for (const name of sources) buildId.update(`${name}\0`).update(readFileSync(new URL(`../src/${name}`, import.meta.url))).update('\0');
buildId.update(readFileSync(new URL('../package-lock.json', import.meta.url)));

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  // The hash worker is its own entry: worker threads load it by path (src/scope/hash-pool.ts).
  entryPoints: { cli: 'src/bin.ts', 'hash-worker': 'src/scope/hash-worker.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Native addon and anything with a native part stays a runtime require.
  external: ['better-sqlite3'],
  banner: {
    js: "import { createRequire as __vouchCreateRequire } from 'node:module'; const require = __vouchCreateRequire(import.meta.url);",
  },
  define: { __VOUCH_BUILD__: JSON.stringify(buildId.digest('hex').slice(0, 32)) },
  chunkNames: 'chunks/[name]-[hash]',
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
});
