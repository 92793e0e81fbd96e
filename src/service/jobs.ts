import type { Pool } from 'pg';
import { newId } from '../core/ids.js';
import { appendLocked, lockHead } from '../ledger/postgres/append.js';
import { inTransaction } from '../ledger/postgres/pool.js';
import type { Signer } from '../ledger/ledger.js';
import type { ReceiptDraft, SandboxRecord } from '../receipt/receipt.js';
import type { Manifest } from '../scope/manifest.js';

export type JobState = 'queued' | 'running' | 'done' | 'failed';

/** Why a job ended without receipts: stable codes, shown to the client. */
export interface JobError {
  readonly code: 'spec_not_allowed' | 'spec_mismatch' | 'check_not_found' | 'archive_refused' | 'attempts_exhausted';
  readonly message: string;
}

export interface JobView {
  readonly id: string;
  readonly client: string;
  readonly state: JobState;
  readonly spec_sha256: string;
  readonly checks: readonly string[];
  readonly attempts: number;
  readonly created_at: string;
  readonly started_at: string | null;
  readonly finished_at: string | null;
  readonly error: JobError | null;
  readonly sandbox: SandboxRecord | null;
  readonly receipts: readonly { readonly id: string; readonly check_id: string; readonly verdict: string; readonly reason: string }[];
}

export interface NewJob {
  readonly client: string;
  readonly specSha256: string;
  readonly checks: readonly string[];
  readonly archive: Buffer;
  readonly archiveSha256: string;
  readonly timeLimitSeconds: number;
}

export type SubmitResult = { readonly kind: 'queued'; readonly id: string } | { readonly kind: 'busy'; readonly open: number };

/**
 * Queues a job unless the client already has `maxOpen` queued or running.
 * The count and the insert happen under a per-client advisory lock, so two
 * submissions at once cannot both slip under the limit.
 */
export async function submitJob(pool: Pool, job: NewJob, maxOpen: number): Promise<SubmitResult> {
  return inTransaction(pool, async (client) => {
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('vouch-client:' || $1))`, [job.client]);
    const open = (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM jobs WHERE client = $1 AND state IN ('queued', 'running')`, [job.client]))
      .rows[0]!.n;
    if (open >= maxOpen) return { kind: 'busy', open };
    const id = newId();
    await client.query(
      `INSERT INTO jobs (id, client, state, spec_sha256, check_ids, archive, archive_sha256, archive_bytes, time_limit_s)
       VALUES ($1, $2, 'queued', $3, $4, $5, $6, $7, $8)`,
      [id, job.client, job.specSha256, JSON.stringify(job.checks), job.archive, job.archiveSha256, job.archive.length, job.timeLimitSeconds],
    );
    await client.query(`SELECT pg_notify('vouch_jobs', $1)`, [id]);
    return { kind: 'queued', id };
  });
}

interface JobRow {
  id: string;
  client: string;
  state: JobState;
  spec_sha256: string;
  check_ids: string[];
  attempts: number;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  error: JobError | null;
  sandbox: SandboxRecord | null;
}

/** A job as its client sees it; undefined when there is none with this id for this client. */
export async function jobView(pool: Pool, id: string, clientName: string): Promise<JobView | undefined> {
  const row = (
    await pool.query<JobRow>(
      `SELECT id, client, state, spec_sha256, check_ids, attempts, created_at, started_at, finished_at, error, sandbox
       FROM jobs WHERE id = $1 AND client = $2`,
      [id, clientName],
    )
  ).rows[0];
  if (!row) return undefined;
  const receipts = await pool.query<{ id: string; check_id: string; body: string }>(
    `SELECT c.id, c.check_id, c.body FROM job_receipts j JOIN chain c ON c.id = j.receipt_id WHERE j.job_id = $1 ORDER BY c.seq`,
    [id],
  );
  return {
    id: row.id,
    client: row.client,
    state: row.state,
    spec_sha256: row.spec_sha256,
    checks: row.check_ids,
    attempts: row.attempts,
    created_at: row.created_at.toISOString(),
    started_at: row.started_at?.toISOString() ?? null,
    finished_at: row.finished_at?.toISOString() ?? null,
    error: row.error,
    sandbox: row.sandbox,
    receipts: receipts.rows.map((r) => {
      const body = JSON.parse(r.body) as { verdict: string; reason: string };
      return { id: r.id, check_id: r.check_id, verdict: body.verdict, reason: body.reason };
    }),
  };
}

/** A job a worker holds: what it needs to run it. */
export interface ClaimedJob {
  readonly id: string;
  readonly specSha256: string;
  readonly checks: readonly string[];
  readonly archive: Buffer;
  readonly timeLimitSeconds: number;
  readonly attempt: number;
}

/**
 * Claims the oldest job that is queued, or running under a lease that ran
 * out (its worker died or hung). SKIP LOCKED: workers never wait on each
 * other's candidates. A job claimed `maxAttempts` times without finishing
 * is failed instead, so a tree that kills workers cannot loop forever.
 */
export async function claimJob(pool: Pool, worker: string, leaseSeconds: number, maxAttempts: number): Promise<ClaimedJob | undefined> {
  return inTransaction(pool, async (client) => {
    for (;;) {
      const row = (
        await client.query<{ id: string; spec_sha256: string; check_ids: string[]; archive: Buffer; time_limit_s: number; attempts: number }>(
          `SELECT id, spec_sha256, check_ids, archive, time_limit_s, attempts FROM jobs
           WHERE state = 'queued' OR (state = 'running' AND lease_until < clock_timestamp())
           ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED`,
        )
      ).rows[0];
      if (!row) return undefined;
      if (row.attempts >= maxAttempts) {
        await client.query(
          `UPDATE jobs SET state = 'failed', finished_at = clock_timestamp(), lease_owner = NULL, lease_until = NULL, archive = NULL, error = $2 WHERE id = $1`,
          [row.id, JSON.stringify({ code: 'attempts_exhausted', message: `the job was started ${row.attempts} times and no worker finished it` } satisfies JobError)],
        );
        continue;
      }
      await client.query(
        `UPDATE jobs SET state = 'running', attempts = attempts + 1, lease_owner = $2,
                lease_until = clock_timestamp() + make_interval(secs => $3), started_at = COALESCE(started_at, clock_timestamp())
         WHERE id = $1`,
        [row.id, worker, leaseSeconds],
      );
      return { id: row.id, specSha256: row.spec_sha256, checks: row.check_ids, archive: row.archive, timeLimitSeconds: row.time_limit_s, attempt: row.attempts + 1 };
    }
  });
}

/** Extends the lease; false when this worker no longer holds it (it expired and another claimed the job). */
export async function heartbeat(pool: Pool, jobId: string, worker: string, leaseSeconds: number): Promise<boolean> {
  const result = await pool.query(
    `UPDATE jobs SET lease_until = clock_timestamp() + make_interval(secs => $3)
     WHERE id = $1 AND state = 'running' AND lease_owner = $2 AND lease_until > clock_timestamp()`,
    [jobId, worker, leaseSeconds],
  );
  return result.rowCount === 1;
}

/** One receipt a worker made, not yet in the chain. */
export interface PendingReceipt {
  readonly draft: ReceiptDraft;
  readonly manifest: Manifest;
}

export type CompleteResult = { readonly kind: 'completed'; readonly receipts: readonly string[] } | { readonly kind: 'lease_lost' };

/**
 * Appends a job's receipts and marks it done in one transaction, only if
 * this worker still holds an unexpired lease. A worker whose lease was lost
 * writes nothing: the job's receipts come from exactly one run, and
 * job_receipts' primary key (job, check) refuses a second one regardless.
 */
export async function completeJob(
  pool: Pool,
  jobId: string,
  worker: string,
  receipts: readonly PendingReceipt[],
  sign: Signer,
  sandbox: SandboxRecord,
): Promise<CompleteResult> {
  return inTransaction(pool, async (client) => {
    const held = await client.query(
      `SELECT 1 FROM jobs WHERE id = $1 AND state = 'running' AND lease_owner = $2 AND lease_until > clock_timestamp() FOR UPDATE`,
      [jobId, worker],
    );
    if (held.rowCount !== 1) return { kind: 'lease_lost' };
    const head = await lockHead(client);
    const ids: string[] = [];
    for (const pending of receipts) {
      const stored = await appendLocked(client, head, pending.draft, pending.manifest, sign);
      await client.query('INSERT INTO job_receipts (job_id, check_id, receipt_id) VALUES ($1, $2, $3)', [jobId, stored.body.check_id, stored.body.id]);
      ids.push(stored.body.id);
    }
    await client.query(
      `UPDATE jobs SET state = 'done', finished_at = clock_timestamp(), lease_owner = NULL, lease_until = NULL, archive = NULL, sandbox = $2 WHERE id = $1`,
      [jobId, JSON.stringify(sandbox)],
    );
    return { kind: 'completed', receipts: ids };
  });
}

/** Ends a job that cannot run (spec not allowed, archive refused) with the reason; no receipt. */
export async function failJob(pool: Pool, jobId: string, worker: string, error: JobError): Promise<boolean> {
  const result = await pool.query(
    `UPDATE jobs SET state = 'failed', finished_at = clock_timestamp(), lease_owner = NULL, lease_until = NULL, archive = NULL, error = $3
     WHERE id = $1 AND state = 'running' AND lease_owner = $2 AND lease_until > clock_timestamp()`,
    [jobId, worker, JSON.stringify(error)],
  );
  return result.rowCount === 1;
}

/** Gives a job back to the queue (the worker is stopping): another worker starts it afresh. */
export async function releaseJob(pool: Pool, jobId: string, worker: string): Promise<void> {
  await pool.query(
    `UPDATE jobs SET state = 'queued', lease_owner = NULL, lease_until = NULL, attempts = GREATEST(attempts - 1, 0)
     WHERE id = $1 AND state = 'running' AND lease_owner = $2`,
    [jobId, worker],
  );
}

/** A receipt of one of this client's jobs, as stored, with its manifest. */
export async function receiptForClient(
  pool: Pool,
  receiptId: string,
  clientName: string,
): Promise<{ seq: number; hash: string; body: string; signature: string | null; job: string; manifest: Buffer | null } | undefined> {
  const row = (
    await pool.query<{ seq: number; hash: string; body: string; signature: string | null; job: string; manifest: Buffer | null }>(
      `SELECT c.seq, c.hash, c.body, c.signature, j.job_id AS job, m.body AS manifest
       FROM job_receipts j JOIN jobs ON jobs.id = j.job_id JOIN chain c ON c.id = j.receipt_id
       LEFT JOIN manifests m ON m.digest = c.manifest
       WHERE j.receipt_id = $1 AND jobs.client = $2`,
      [receiptId, clientName],
    )
  ).rows[0];
  return row;
}
