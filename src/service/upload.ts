import type { Pool } from 'pg';
import { newId } from '../core/ids.js';
import type { GitState } from '../engine/git.js';
import { inTransaction } from '../ledger/postgres/pool.js';
import type { JobState } from './jobs.js';

/** What a client asks for, known before its upload is read. */
export interface JobRequest {
  readonly client: string;
  readonly specSha256: string;
  readonly checks: readonly string[];
  readonly timeLimitSeconds: number;
  /** The client's fresh nonce: one job per client and nonce. */
  readonly nonce: string;
  /** The client's claim about its git work tree, recorded as such. */
  readonly clientGit: GitState | null;
}

export type BeginResult =
  /** A job row in 'receiving': the upload may now be read into it. */
  | { readonly kind: 'receiving'; readonly id: string }
  /** This client already submitted a job with this nonce (a retried submission): its answer, and nothing is read. */
  | { readonly kind: 'existing'; readonly id: string; readonly state: JobState }
  | { readonly kind: 'busy'; readonly open: number };

/**
 * An upload that has been arriving for longer than this is taken to be
 * abandoned (its server died mid-upload): it stops counting against its
 * client and is removed when that client next submits.
 */
export const STALE_UPLOAD_SECONDS = 900;

/**
 * Opens a job before a byte of its upload is read, unless the client
 * already has `maxOpen` receiving, queued or running. The count and the
 * insert happen under a per-client advisory lock, so two submissions at
 * once cannot both slip under the limit, on this server or another.
 */
export async function beginJob(pool: Pool, request: JobRequest, maxOpen: number): Promise<BeginResult> {
  return inTransaction(pool, async (client) => {
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('vouch-client:' || $1))`, [request.client]);
    await client.query(`DELETE FROM jobs WHERE client = $1 AND state = 'receiving' AND created_at < clock_timestamp() - make_interval(secs => $2)`, [
      request.client,
      STALE_UPLOAD_SECONDS,
    ]);
    const existing = (
      await client.query<{ id: string; state: JobState }>('SELECT id, state FROM jobs WHERE client = $1 AND nonce = $2', [request.client, request.nonce])
    ).rows[0];
    if (existing) return { kind: 'existing', id: existing.id, state: existing.state };
    const open = (
      await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM jobs WHERE client = $1 AND state IN ('receiving', 'queued', 'running')`, [
        request.client,
      ])
    ).rows[0]!.n;
    if (open >= maxOpen) return { kind: 'busy', open };
    const id = newId();
    await client.query(
      `INSERT INTO jobs (id, client, state, spec_sha256, check_ids, archive_sha256, archive_bytes, time_limit_s, nonce, client_git)
       VALUES ($1, $2, 'receiving', $3, $4, '', 0, $5, $6, $7)`,
      [
        id,
        request.client,
        request.specSha256,
        JSON.stringify(request.checks),
        request.timeLimitSeconds,
        request.nonce,
        request.clientGit && JSON.stringify(request.clientGit),
      ],
    );
    return { kind: 'receiving', id };
  });
}

/** Stores one part of a job's upload as it arrives. */
export async function storePart(pool: Pool, jobId: string, part: number, bytes: Buffer): Promise<void> {
  await pool.query('INSERT INTO job_archive_parts (job_id, part, bytes) VALUES ($1, $2, $3)', [jobId, part, bytes]);
}

/** The upload has arrived whole: the job is queued for the workers. */
export async function finishUpload(pool: Pool, jobId: string, parts: number, bytes: number, sha256: string): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query(`UPDATE jobs SET state = 'queued', archive_parts = $2, archive_bytes = $3, archive_sha256 = $4 WHERE id = $1 AND state = 'receiving'`, [
      jobId,
      parts,
      bytes,
      sha256,
    ]);
    await client.query(`SELECT pg_notify('vouch_jobs', $1)`, [jobId]);
  });
}

/** The upload was refused or broke off: the job and whatever arrived of it are gone, as if never submitted. */
export async function abandonUpload(pool: Pool, jobId: string): Promise<void> {
  await pool.query(`DELETE FROM jobs WHERE id = $1 AND state = 'receiving'`, [jobId]);
}
