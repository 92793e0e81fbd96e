import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import { sha256 } from '../core/digest.js';

/**
 * Bearer tokens, one per client. Only the SHA-256 of a token is stored: a
 * copy of the database grants nothing. A token is shown once, when added.
 */
export const CLIENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const TOKEN_PREFIX = 'vouch_';

export interface TokenListing {
  readonly name: string;
  readonly created_at: string;
  readonly revoked_at: string | null;
}

export type AddResult = { readonly kind: 'added'; readonly token: string } | { readonly kind: 'exists' };

/**
 * A new token for a client: a new name, or a name whose token was revoked
 * (the client gets a new token; the revoked one stays dead, and the
 * client's earlier jobs stay its own). A name with a live token is left as
 * it is.
 */
export async function addToken(pool: Pool, name: string): Promise<AddResult> {
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  const inserted = await pool.query(
    `INSERT INTO service_tokens (name, token_sha256) VALUES ($1, $2)
     ON CONFLICT (name) DO UPDATE SET token_sha256 = EXCLUDED.token_sha256, created_at = now(), revoked_at = NULL
     WHERE service_tokens.revoked_at IS NOT NULL`,
    [name, sha256(token)],
  );
  return inserted.rowCount === 1 ? { kind: 'added', token } : { kind: 'exists' };
}

export async function listTokens(pool: Pool): Promise<TokenListing[]> {
  const rows = await pool.query<{ name: string; created_at: Date; revoked_at: Date | null }>(
    'SELECT name, created_at, revoked_at FROM service_tokens ORDER BY name',
  );
  return rows.rows.map((row) => ({ name: row.name, created_at: row.created_at.toISOString(), revoked_at: row.revoked_at?.toISOString() ?? null }));
}

/** Revokes a client's token; returns whether a live one was revoked. */
export async function revokeToken(pool: Pool, name: string): Promise<boolean> {
  const result = await pool.query('UPDATE service_tokens SET revoked_at = now() WHERE name = $1 AND revoked_at IS NULL', [name]);
  return result.rowCount === 1;
}

/** The client a bearer token belongs to, or undefined (unknown, revoked or malformed). */
export async function clientOf(pool: Pool, token: string): Promise<string | undefined> {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return undefined;
  const row = await pool.query<{ name: string }>('SELECT name FROM service_tokens WHERE token_sha256 = $1 AND revoked_at IS NULL', [sha256(token)]);
  return row.rows[0]?.name;
}
