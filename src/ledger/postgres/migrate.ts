import type { Pool, PoolClient } from 'pg';
import { LedgerError } from '../ledger.js';
import { inTransaction, type PgLocation } from './pool.js';
import { PG_LEDGER_FORMAT, PG_MIGRATIONS } from './schema.js';

export interface SchemaState {
  /** The version recorded in the schema; 0 when the schema or its meta table does not exist. */
  readonly version: number;
  /** The version this vouch brings its schema to. */
  readonly latest: number;
}

async function readVersion(client: Pool | PoolClient, at: PgLocation): Promise<number> {
  const meta = await client.query<{ present: boolean }>(`SELECT to_regclass(quote_ident($1) || '.meta') IS NOT NULL AS present`, [at.schema]);
  if (!meta.rows[0]?.present) return 0;
  const rows = await client.query<{ key: string; value: string }>(`SELECT key, value FROM meta WHERE key IN ('format', 'schema_version')`);
  const values = new Map(rows.rows.map((row) => [row.key, row.value]));
  const format = values.get('format');
  if (format !== undefined && format !== PG_LEDGER_FORMAT) {
    throw new LedgerError('corrupt', `schema "${at.schema}" holds a "meta" table that is not a vouch ledger's (format "${format}")`, at.display);
  }
  const version = Number(values.get('schema_version') ?? 0);
  if (!Number.isInteger(version) || version < 0) throw new LedgerError('corrupt', `unreadable schema version "${values.get('schema_version')}"`, at.display);
  return version;
}

export async function schemaState(pool: Pool, at: PgLocation): Promise<SchemaState> {
  return { version: await readVersion(pool, at), latest: PG_MIGRATIONS.length };
}

/**
 * Refuses a schema that is not exactly what this vouch writes: behind (run
 * `vouch db migrate`) or ahead (upgrade vouch). Commands never migrate by
 * themselves: changing a shared database is an operator's act.
 */
export async function requireCurrentSchema(pool: Pool, at: PgLocation): Promise<void> {
  const state = await schemaState(pool, at);
  if (state.version > state.latest) {
    throw new LedgerError('too_new', `ledger schema ${state.version} is newer than this vouch understands (${state.latest})`, at.display);
  }
  if (state.version < state.latest) {
    throw new LedgerError(
      'schema_behind',
      state.version === 0
        ? `schema "${at.schema}" holds no vouch ledger yet`
        : `the ledger schema is at version ${state.version}; this vouch needs ${state.latest}`,
      at.display,
    );
  }
}

/**
 * Applies the missing migrations in one transaction (all or none), under
 * an advisory lock so two `vouch db migrate` at once apply each step once.
 * Returns the versions before and after.
 */
export async function migrate(pool: Pool, at: PgLocation): Promise<{ from: number; to: number }> {
  return inTransaction(pool, async (client) => {
    // Transaction-scoped: released at commit, also if this process dies.
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('vouch-migrate:' || $1))`, [at.schema]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(at.schema)}`);
    await client.query(`CREATE TABLE IF NOT EXISTS meta (key text PRIMARY KEY, value text NOT NULL)`);
    const from = await readVersion(client, at);
    if (from > PG_MIGRATIONS.length) {
      throw new LedgerError('too_new', `ledger schema ${from} is newer than this vouch understands (${PG_MIGRATIONS.length})`, at.display);
    }
    for (let next = from; next < PG_MIGRATIONS.length; next++) {
      await client.query(PG_MIGRATIONS[next]!);
      await client.query(
        `INSERT INTO meta (key, value) VALUES ('format', $1), ('schema_version', $2)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        [PG_LEDGER_FORMAT, String(next + 1)],
      );
    }
    return { from, to: PG_MIGRATIONS.length };
  });
}

/** A schema name as a quoted identifier (names are checked to be [a-z_][a-z0-9_]* when parsed). */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
