import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, it } from 'vitest';

/**
 * Tests against a real PostgreSQL: the machine's own server on
 * 127.0.0.1:5432 (trust auth), or VOUCH_TEST_PG_URL naming a database whose
 * user may CREATE DATABASE. Each test suite gets its own database with a
 * random name, dropped afterwards.
 */
export const PG_ADMIN_URL = process.env.VOUCH_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function probe(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

const missing = await probe();
const inCi = process.env.CI === 'true' || process.env.CI === '1';

if (missing !== undefined && !inCi) {
  process.stderr.write(
    `\n!!! PostgreSQL is not reachable at ${PG_ADMIN_URL} (${missing}).\n` +
      '!!! The PostgreSQL ledger, service and load tests are SKIPPED. Start a server (see README, "Set up on a fresh machine")\n' +
      '!!! or set VOUCH_TEST_PG_URL. With CI=true these tests fail instead.\n\n',
  );
}

/**
 * `describe` for tests that need PostgreSQL. Without a server: in CI one
 * failing test says so (never a silent skip); elsewhere the suite is
 * skipped, with the loud message above.
 */
export function describePg(name: string, body: () => void): void {
  if (missing === undefined) {
    describe(name, body);
  } else if (inCi) {
    describe(name, () => {
      it('needs PostgreSQL, which is not reachable', () => {
        throw new Error(`PostgreSQL is required for "${name}" and is not reachable at ${PG_ADMIN_URL}: ${missing}. .ci/run starts it; see README.`);
      });
    });
  } else {
    // Outside CI only, after the loud banner above: a developer without PostgreSQL still runs everything else (README, Set up).
    describe.skip(`${name} (SKIPPED: no PostgreSQL at ${PG_ADMIN_URL})`, body);
  }
}

export interface TempDatabase {
  /** postgres:// URL of the new database. */
  readonly url: string;
  readonly name: string;
  drop(): Promise<void>;
}

/** CREATE DATABASE with a random name; drop() removes it, ending its connections first. */
export async function tempDatabase(): Promise<TempDatabase> {
  const name = `vouch_test_${randomBytes(6).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Runs SQL in a database directly, as an operator (or an attacker with its credentials) would. */
export async function sql<T extends pg.QueryResultRow = Record<string, unknown>>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url, options: '-c search_path=vouch' });
  await client.connect();
  try {
    return (await client.query<T>(text, params)).rows;
  } finally {
    await client.end();
  }
}
