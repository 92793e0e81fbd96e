// Bundles the CLI with esbuild. One entry, code-split: the hot path (hook,
// status) loads a small chunk; heavy front ends load their own chunks only
// when a command asks for them (dynamic import).
import { build } from 'esbuild';
import { rmSync } from 'node:fs';

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
  entryPoints: { cli: 'src/bin.ts' },
  outdir: 'dist',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  plugins: [mcpServerIsExternal],
});
await build({ ...common, entryPoints: { [MCP_SERVER.replace(/\.js$/, '')]: 'src/mcp/serve.ts' }, outdir: 'dist' });
