import { join } from 'node:path';
import type { Pool } from 'pg';
import { fail } from '../core/problem.js';
import { keysDir, loadSigningKey, type SigningKey } from '../crypto/keystore.js';
import { requireCurrentSchema } from '../ledger/postgres/migrate.js';
import { openPool, pgError } from '../ledger/postgres/pool.js';
import { integerFlag } from './args.js';
import type { PgTarget } from './pg-target.js';

/** The server's signing key, from its own VOUCH_HOME; it never leaves the server. */
export function serviceKey(home: string, name: string | undefined, command: string): SigningKey {
  if (name === undefined) {
    return fail({
      code: 'usage',
      message: "--key NAME is required: the key under VOUCH_HOME/keys that signs every receipt this service records",
      where: `vouch ${command}`,
      hint: 'create one on the server with `vouch keys generate --name NAME`; give clients its public key (`vouch keys export-public NAME --format hex`)',
    });
  }
  const key = loadSigningKey(home, name, undefined);
  return key.ok ? key.value : fail(key.error);
}

/** What the sandbox must hide from every check: the server's VOUCH_HOME and its key file (which may be a link to elsewhere). */
export function serviceSecrets(home: string, key: SigningKey): string[] {
  return [home, join(keysDir(home), `${key.name}.key`)];
}

/** A pool on a migrated ledger, or the ledger problem. */
export async function servicePool(at: PgTarget, size: number): Promise<Pool> {
  const pool = await openPool(at, size);
  try {
    await requireCurrentSchema(pool, at);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw pgError(error, at);
  }
  return pool;
}

export function positiveFlag(command: string, name: string, value: string | undefined, fallback: number): number {
  return integerFlag(command, name, value, 1) ?? fallback;
}
