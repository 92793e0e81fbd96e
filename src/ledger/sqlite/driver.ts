import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';

const load = createRequire(import.meta.url);
let driver: typeof Database | undefined;

/**
 * better-sqlite3, loaded on the first ledger open rather than at start-up:
 * its JavaScript and native addon cost more than the rest of a `vouch
 * --version`, which never touches a ledger.
 */
export function sqlite(): typeof Database {
  return (driver ??= load('better-sqlite3') as typeof Database);
}
