// Bundles the CLI with esbuild: a small launcher (dist/cli.js); the hot
// path (hook, status, verify) as one CommonJS bundle with a code cache; and
// every command code-split in dist/esm/, where each loads its own chunks
// only when it runs (dynamic import). The hash worker is a second entry of
// the split build; the MCP server is a bundle of its own (see below).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

// A digest of every source file and the locked dependencies: what
// src/build-id.ts calls this build.
const sources = readdirSync(new URL('../src', import.meta.url), { recursive: true })
  .filter((name) => name.endsWith('.ts'))
  .sort();
const buildId = createHash('sha256');
for (const name of sources)
  buildId
    .update(`${name}\0`)
    .update(readFileSync(new URL(`../src/${name}`, import.meta.url)))
    .update('\0');
buildId.update(readFileSync(new URL('../package-lock.json', import.meta.url)));

const BUILD = buildId.digest('hex').slice(0, 32);

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

const common = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Native addon and anything with a native part stays a runtime require.
  // The service's dependencies (PostgreSQL driver, HTTP server, tar) stay
  // in node_modules too: only the commands that use them import them, and a
  // test can see from the module URLs that no other command does.
  external: ['better-sqlite3', 'pg', 'fastify', 'tar-stream'],
  // jsonc-parser's default (UMD) build loads its parts with require() calls a
  // bundler cannot follow; its ESM build bundles cleanly.
  alias: { 'jsonc-parser': './node_modules/jsonc-parser/lib/esm/main.js' },
  banner: {
    js: "import { createRequire as __vouchCreateRequire } from 'node:module'; const require = __vouchCreateRequire(import.meta.url);",
  },
  // Both bundles come from the same sources, so they share one build id.
  define: { __VOUCH_BUILD__: JSON.stringify(BUILD) },
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
};

// The MCP server is its own bundle (dist/mcp-server.js), not a chunk of the
// CLI's build. esbuild tree-shakes a module once per build: inside one build,
// the MCP SDK's use of zod's classic API would keep that code alive in the
// zod chunk that `status` and every hook call load too. A separate build
// gives the server its own copy and leaves the hot path as it was.
const MCP_SERVER = 'mcp-server.js';
const mcpServerIsExternal = {
  name: 'mcp-server-is-external',
  setup(b) {
    // Imported from dist/chunks/<command chunk>; the server bundle sits in dist/.
    b.onResolve({ filter: /\/mcp\/serve\.js$/ }, () => ({ path: `../${MCP_SERVER}`, external: true }));
  },
};

// picomatch's module sets up its tables and expressions when evaluated
// (about 2.5 ms), and a bundle evaluates it where a module imports it. A
// hook that checks an edit against no protect: glob, or a `status` that
// answers from its scope records, never matches a glob: vouch's modules get
// a stand-in with the same calls (the function, scan, makeRe) that
// evaluates picomatch at the first call, and notes it for VOUCH_TRACE.
const LAZY_PICOMATCH = 'lazy-picomatch';
const lazyPicomatch = {
  name: LAZY_PICOMATCH,
  setup(b) {
    b.onResolve({ filter: /^picomatch$/ }, (args) => (args.importer.includes('/src/') ? { path: 'picomatch', namespace: LAZY_PICOMATCH } : undefined));
    b.onLoad({ filter: /.*/, namespace: LAZY_PICOMATCH }, () => ({
      resolveDir: new URL('../src/core/', import.meta.url).pathname,
      loader: 'js',
      contents: `import { noteLoaded } from './start.ts';
let real;
function load() {
  if (real === undefined) {
    real = require('picomatch');
    noteLoaded('picomatch');
  }
  return real;
}
export default function picomatch(...args) { return load()(...args); }
picomatch.scan = (...args) => load().scan(...args);
picomatch.makeRe = (...args) => load().makeRe(...args);
`,
    }));
  },
};

// The code-split build: every command (dist/esm/main.js) and the hash
// worker, in dist/esm/ with a package.json that makes its .js files ES modules.
await build({
  ...common,
  // The hash worker is its own entry: worker threads load it by path (src/scope/hash-pool.ts).
  entryPoints: { main: 'src/entry/split.ts', 'hash-worker': 'src/scope/hash-worker.ts' },
  outdir: 'dist/esm',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  plugins: [mcpServerIsExternal, lazyPicomatch],
});
await build({ ...common, entryPoints: { [MCP_SERVER.replace(/\.js$/, '')]: 'src/mcp/serve.ts' }, outdir: 'dist/esm' });
writeFileSync(new URL('../dist/esm/package.json', import.meta.url), `${JSON.stringify({ type: 'module' })}\n`);

// The hot bundle (dist/hot.js): `hook`, `status` and `verify` in one CommonJS file,
// which the launcher compiles with V8's code cache. Other commands' modules
// are left out: the launcher never sends them here, and if it did, the
// command would say so instead of running (a test holds the launcher to it).
const HOT_COMMANDS = new Set(['hook', 'status', 'verify', 'hook-git']);
const onlyHotCommands = {
  name: 'only-hot-commands',
  setup(b) {
    b.onResolve({ filter: /^\.\/commands\/[a-z-]+\.js$/ }, (args) => {
      const name = /([a-z-]+)\.js$/.exec(args.path)[1];
      if (!args.importer.endsWith('/src/cli/registry.ts') || HOT_COMMANDS.has(name)) return undefined;
      return { path: name, namespace: 'cold-command' };
    });
    b.onLoad({ filter: /.*/, namespace: 'cold-command' }, (args) => ({
      contents: `export const help = ''; export function run() { throw new Error('the hot bundle does not hold the command ${args.path}: the launcher sends it to dist/esm/main.js'); }`,
      loader: 'js',
    }));
  },
};
const cjs = {
  ...common,
  format: 'cjs',
  // CommonJS has no import.meta: the one thing vouch reads of it is its URL.
  define: { ...common.define, 'import.meta.url': '__vouchModuleUrl' },
  banner: { js: "const __vouchModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
};
// Whitespace and syntax minified: a third less to read and hash at each start; names are kept, so stack traces still read.
// `supported`: an import() of a package left outside (pg, for a team ledger) becomes a require(); the launcher
// compiles the bundle as a script, which has no ES module loader behind a real import().
// Its first line names the build: the code cache is used only with the bundle of the build it was made for (src/entry/code-cache.ts).
// better-sqlite3's JavaScript is bundled here too (src/ledger/sqlite/driver.ts hands it its addon): a dozen
// modules fewer to find and compile on every `status`. Its addon, and `bindings`, stay outside.
await build({
  ...cjs,
  external: ['bindings', 'pg', 'fastify', 'tar-stream'],
  entryPoints: { hot: 'src/entry/hot.ts' },
  outdir: 'dist',
  banner: { js: `// vouch build ${BUILD}\n${cjs.banner.js}` },
  supported: { 'dynamic-import': false },
  minifyWhitespace: true,
  minifySyntax: true,
  plugins: [onlyHotCommands, mcpServerIsExternal, lazyPicomatch],
});
// The launcher: dist/cli.js, what package.json's bin names and what installed hooks run.
await build({ ...cjs, entryPoints: { cli: 'src/entry/launch.ts' }, outdir: 'dist', banner: { js: `#!/usr/bin/env node\n${cjs.banner.js}` } });
writeFileSync(new URL('../dist/package.json', import.meta.url), `${JSON.stringify({ type: 'commonjs' })}\n`);
// The launcher reads the hot bundle as latin1 (no UTF-8 decoding): it must be ASCII, as esbuild writes by default.
if (/[^\x00-\x7f]/.test(readFileSync(new URL('../dist/hot.js', import.meta.url), 'latin1')))
  throw new Error('dist/hot.js is not ASCII: the launcher reads it as latin1');
// V8's code cache for the hot bundle, made by this Node (scripts/code-cache.mjs).
await import('./code-cache.mjs');
