// Bundles the CLI with esbuild. One entry, code-split: the hot path (hook,
// status) loads a small chunk; heavy front ends load their own chunks only
// when a command asks for them (dynamic import).
import { build } from 'esbuild';
import { rmSync } from 'node:fs';

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: { cli: 'src/bin.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Native addon and anything with a native part stays a runtime require.
  external: ['better-sqlite3'],
  // jsonc-parser's default (UMD) build loads its parts with require() calls a
  // bundler cannot follow; its ESM build bundles cleanly.
  alias: { 'jsonc-parser': './node_modules/jsonc-parser/lib/esm/main.js' },
  banner: {
    js: "import { createRequire as __vouchCreateRequire } from 'node:module'; const require = __vouchCreateRequire(import.meta.url);",
  },
  chunkNames: 'chunks/[name]-[hash]',
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
});
