// Bundles the CLI with esbuild, code-split: the hot path (hook, status)
// loads a small chunk; heavy front ends load their own chunks only when a
// command asks for them (dynamic import). The hash worker is a second entry
// of that build; the MCP server is a bundle of its own (see below).
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
  define: { __VOUCH_BUILD__: JSON.stringify(buildId.digest('hex').slice(0, 32)) },
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

await build({
  ...common,
  // The hash worker is its own entry: worker threads load it by path (src/scope/hash-pool.ts).
  entryPoints: { cli: 'src/bin.ts', 'hash-worker': 'src/scope/hash-worker.ts' },
  outdir: 'dist',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  plugins: [mcpServerIsExternal],
});
await build({ ...common, entryPoints: { [MCP_SERVER.replace(/\.js$/, '')]: 'src/mcp/serve.ts' }, outdir: 'dist' });
