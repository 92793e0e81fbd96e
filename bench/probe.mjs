// Bundles bench/probe.ts and runs it: node bench/probe.mjs WORKSPACE [--cold] [--no-workers] [--pool] [--home DIR] [--runs N]
// --pool: hash the workspace's git-tracked files alone, then with one worker thread.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    cold: { type: 'boolean' },
    'no-workers': { type: 'boolean' },
    pool: { type: 'boolean' },
    home: { type: 'string' },
    runs: { type: 'string', default: '3' },
  },
});
const outfile = join(repo, 'node_modules', '.cache', 'vouch-bench', 'probe.mjs');
await build({
  entryPoints: [join(repo, 'bench', 'probe.ts')],
  outfile,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['better-sqlite3'],
  banner: { js: "import { createRequire as __benchCreateRequire } from 'node:module'; const require = __benchCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
const { probe, comparePool } = await import(pathToFileURL(outfile).href);
const root = resolve(positionals[0] ?? '.');
const home = resolve(values.home ?? process.env.VOUCH_HOME ?? join(root, '..', 'vouch-home'));
for (let i = 0; i < Number(values.runs); i++) {
  if (values.pool) console.log(JSON.stringify(await comparePool(root, join(repo, 'dist', 'hash-worker.js'))));
  else console.log(JSON.stringify(await probe(root, home, values.cold === true, values['no-workers'] ? undefined : join(repo, 'dist', 'hash-worker.js'))));
}
