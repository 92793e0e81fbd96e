import type { Pool, PoolClient } from 'pg';
import { LedgerError } from '../ledger.js';
import type { LedgerLocation } from '../location.js';

export type PgLocation = Extract<LedgerLocation, { kind: 'postgres' }>;

/**
 * A connection pool whose sessions use the ledger's schema. `pg` is loaded
 * here, on first use: SQLite users never load it.
 */
export async function openPool(at: PgLocation, max: number): Promise<Pool> {
  const pg = await import('pg');
  // node-postgres returns bigint (int8) as a string; seq and counts fit a double.
  pg.default.types.setTypeParser(20, (value: string) => Number(value));
  const pool = new pg.default.Pool({
    connectionString: at.url,
    max,
    // search_path is set at connection start, so every statement is unqualified.
    options: `-c search_path=${at.schema}`,
    connectionTimeoutMillis: 10_000,
    application_name: 'vouch',
    // Idle connections never keep a finished command's process alive.
    allowExitOnIdle: true,
  });
  // An idle connection dropped by the server must not crash the process.
  pool.on('error', () => undefined);
  return pool;
}

/** Runs `work` in one transaction on one connection; rolls back on any error. */
export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** A driver or server error as a LedgerError naming the ledger, so the CLI reports it plainly. */
export function pgError(error: unknown, at: PgLocation): unknown {
  if (error instanceof LedgerError) return error;
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || /timeout/i.test(message)) {
    return new LedgerError('unreadable', `cannot reach the PostgreSQL ledger (${code ?? 'timeout'}: ${message})`, at.display, { cause: error });
  }
  // SQLSTATE classes: 08 connection, 28 authorization, 3D no database, 42 missing table or privilege, 53 resources, 57 shutdown.
  if (typeof code === 'string' && /^(08|28|3D|42|53|57|XX)/.test(code)) {
    return new LedgerError('unreadable', `the PostgreSQL ledger cannot be used (${code}: ${message})`, at.display, { cause: error });
  }
  return error;
}
