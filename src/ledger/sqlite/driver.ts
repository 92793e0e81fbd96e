import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Database from 'better-sqlite3';
import { noteLoaded } from '../../core/start.js';

const load = createRequire(import.meta.url);

/** better-sqlite3's class, and the options that hand it its native addon. */
export interface SqliteDriver {
  readonly Database: typeof Database;
  /** `{ nativeBinding }` when the addon was found where npm puts it; empty, better-sqlite3 looks for it itself. */
  readonly options: Pick<Database.Options, 'nativeBinding'>;
}

let driver: SqliteDriver | undefined;

/**
 * better-sqlite3, loaded on the first ledger open rather than at start-up:
 * its JavaScript and native addon cost more than the rest of a `vouch
 * --version`, which never touches a ledger.
 *
 * Its addon is loaded from the package's build/Release, where npm's
 * install builds or unpacks it: better-sqlite3 would otherwise ask the
 * `bindings` package, which tries a dozen places (several milliseconds of
 * every `status`). Found there, the JavaScript is the copy bundled into
 * the hot bundle (a literal require, which esbuild bundles; evaluated here,
 * at the first open, under the code cache). Elsewhere, and under the test
 * runner, which has no require, the package is loaded from node_modules
 * and finds its addon as it always does.
 */
export function sqlite(): SqliteDriver {
  if (driver) return driver;
  noteLoaded('sqlite');
  const addon = builtAddon();
  if (addon === undefined) return (driver = { Database: load('better-sqlite3') as typeof Database, options: {} });
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the literal call is what esbuild bundles (see above)
  const Bundled = typeof require === 'function' ? (require('better-sqlite3') as typeof Database) : (load('better-sqlite3') as typeof Database);
  return (driver = { Database: Bundled, options: { nativeBinding: addon } });
}

const ADDON = 'better-sqlite3/build/Release/better_sqlite3.node';
// vouch's own node_modules, from dist/ (the hot bundle), dist/esm/, dist/esm/chunks/ (the split build) and src/ledger/sqlite/ (tests).
const OWN = ['../node_modules/', '../../node_modules/', '../../../node_modules/'];

/**
 * Where better-sqlite3's native addon is: in vouch's own node_modules (a
 * clone, a global install), else wherever Node resolves the package from
 * here (a hoisted install); undefined when it is not there. Looked for
 * directly first: resolving reads package.json files on the way.
 */
function builtAddon(): string | undefined {
  for (const dir of OWN) {
    const file = fileURLToPath(new URL(dir + ADDON, import.meta.url));
    if (existsSync(file)) return file;
  }
  try {
    const file = join(dirname(load.resolve('better-sqlite3/package.json')), 'build', 'Release', 'better_sqlite3.node');
    return existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}
