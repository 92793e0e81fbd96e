import { join } from 'node:path';
import type { Problem } from '../core/problem.js';
import { err, ok, type Result } from '../core/result.js';

/**
 * Where a workspace's receipts live: the embedded SQLite file under
 * `.vouch/`, or a PostgreSQL schema shared by a team. Chosen by
 * VOUCH_LEDGER, else `ledger:` in vouch.yaml, else SQLite. The environment
 * wins so that a URL carrying credentials never has to be committed.
 */
export type LedgerLocation =
  | { readonly kind: 'sqlite'; readonly path: string }
  | {
      readonly kind: 'postgres';
      /** The connection URL as given to the driver (without our `schema` parameter). */
      readonly url: string;
      /** The PostgreSQL schema holding this ledger: one chain per schema. */
      readonly schema: string;
      /** The URL with any password masked, for messages and `--json`. */
      readonly display: string;
      /** What chose it, for messages. */
      readonly source: 'VOUCH_LEDGER' | 'ledger' | 'flag';
    };

export const DEFAULT_PG_SCHEMA = 'vouch';
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
export const POSTGRES_URL = /^postgres(ql)?:\/\//;

export const LEDGER_URL_EXPECTED =
  'a PostgreSQL URL such as postgres://user@127.0.0.1:5432/vouch (optionally ?schema=NAME, a lowercase identifier; default "vouch")';

/** The SQLite ledger of a workspace. */
export function sqliteLocation(stateDir: string): LedgerLocation {
  return { kind: 'sqlite', path: join(stateDir, 'ledger.db') };
}

/** Parses a `postgres://` URL into a location, or says what is wrong with it. */
export function postgresLocation(value: string, source: 'VOUCH_LEDGER' | 'ledger' | 'flag'): Result<LedgerLocation, Problem> {
  const where = source === 'flag' ? '--ledger' : source;
  const bad = (message: string): Result<never, Problem> =>
    err({
      code: 'usage',
      message,
      where,
      expected: LEDGER_URL_EXPECTED,
      found: mask(value),
      hint: 'fix the URL; VOUCH_LEDGER overrides `ledger:` in vouch.yaml',
    });
  if (!POSTGRES_URL.test(value)) return bad('the ledger is not a postgres:// URL');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return bad('the ledger URL cannot be parsed');
  }
  const schema = url.searchParams.get('schema') ?? DEFAULT_PG_SCHEMA;
  if (!SCHEMA_NAME.test(schema)) return bad(`the schema "${schema}" is not a lowercase identifier`);
  url.searchParams.delete('schema');
  const driverUrl = url.toString();
  return ok({ kind: 'postgres', url: driverUrl, schema, display: `${mask(driverUrl)}${schema === DEFAULT_PG_SCHEMA ? '' : ` (schema ${schema})`}`, source });
}

/**
 * Which ledger a workspace uses: a command's `--ledger URL` (given as
 * `flag`, for the server-side commands), else VOUCH_LEDGER, else the
 * spec's `ledger:`, else `.vouch/ledger.db` (`stateDir` null: none, for
 * the commands that have no SQLite fallback). The one place this order is
 * decided. `specLedger` is asked only when nothing before it answers.
 */
export function ledgerLocation(
  env: NodeJS.ProcessEnv,
  stateDir: string,
  specLedger: string | null | (() => string | null),
  flag?: string,
): Result<LedgerLocation, Problem>;
export function ledgerLocation(
  env: NodeJS.ProcessEnv,
  stateDir: null,
  specLedger: string | null | (() => string | null),
  flag?: string,
): Result<LedgerLocation, Problem> | null;
export function ledgerLocation(
  env: NodeJS.ProcessEnv,
  stateDir: string | null,
  specLedger: string | null | (() => string | null),
  flag?: string,
): Result<LedgerLocation, Problem> | null {
  if (flag !== undefined) return postgresLocation(flag, 'flag');
  const fromEnv = env.VOUCH_LEDGER;
  if (fromEnv !== undefined && fromEnv !== '') return postgresLocation(fromEnv, 'VOUCH_LEDGER');
  const fromSpec = typeof specLedger === 'function' ? specLedger() : specLedger;
  if (fromSpec !== null) return postgresLocation(fromSpec, 'ledger');
  return stateDir === null ? null : ok(sqliteLocation(stateDir));
}

/** Where a location is, for people: the file path or the masked URL. */
export function describeLocation(at: LedgerLocation): string {
  return at.kind === 'sqlite' ? at.path : at.display;
}

/** The URL with its password replaced, so messages never print a secret. */
export function mask(value: string): string {
  try {
    const url = new URL(value);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return value.replace(/:\/\/([^:@/]*):[^@/]*@/, '://$1:***@');
  }
}
