import type { Pool, PoolClient } from 'pg';
import { appendLocked, lockHead } from '../ledger/postgres/append.js';
import { inTransaction } from '../ledger/postgres/pool.js';
import type { Signer } from '../ledger/ledger.js';
import type { ReceiptDraft, SandboxRecord } from '../receipt/receipt.js';
import type { GitState } from '../engine/git.js';
import type { Manifest } from '../scope/manifest.js';

/** 'receiving': its upload is still arriving (no worker claims it yet). */
export type JobState = 'receiving' | 'queued' | 'running' | 'done' | 'failed';

/** Why a job ended without receipts: stable codes, shown to the client. */
export interface JobError {
  readonly code: 'spec_not_allowed' | 'spec_mismatch' | 'check_not_found' | 'archive_refused' | 'attempts_exhausted' | 'no_receipt';
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

/** A job a worker holds: what it needs to run it. Its archive is read part by part (archive-parts.ts). */
export interface ClaimedJob {
  readonly id: string;
  readonly specSha256: string;
  readonly checks: readonly string[];
  /** How many parts the archive was stored in. */
  readonly archiveParts: number;
  readonly timeLimitSeconds: number;
  readonly attempt: number;
  /** The client's fresh nonce, which every receipt of the job carries. */
  readonly nonce: string | null;
  /** What the client said of its git work tree (never checked: the verifier runs no git on an upload). */
  readonly clientGit: GitState | null;
}

/**
 * The order claims take, round-robin by client: each client's oldest ready
 * job (queued, or running under a lease that ran out) is a candidate; the
 * client with the fewest jobs running goes first, then the one given a
 * worker least recently (never: first), then the oldest job. So a client's
 * backlog never holds the queue: with one worker alice, bob, carol, alice
 * again...; with alice's jobs on every worker, the next free one goes to
 * bob. Reads one index probe per waiting client (jobs_started_by_client).
 */
const CANDIDATES = `
  WITH ready AS (
    SELECT DISTINCT ON (client) id, client, created_at FROM jobs
    WHERE state = 'queued' OR (state = 'running' AND lease_until < clock_timestamp())
    ORDER BY client, created_at, id
  )
  SELECT ready.id FROM ready
  ORDER BY
    (SELECT count(*) FROM jobs r WHERE r.client = ready.client AND r.state = 'running' AND r.lease_until >= clock_timestamp()),
    (SELECT max(s.started_at) FROM jobs s WHERE s.client = ready.client) NULLS FIRST,
    ready.created_at, ready.id
  LIMIT 16`;

/**
 * Claims the next job in the fair order (CANDIDATES). Claims are taken one
 * at a time per ledger (a transaction-scoped advisory lock, held for the
 * few statements of a claim): the order counts the jobs running, so two
 * claims at once would both count the same and hand one client two
 * workers. The chosen row is still locked with SKIP LOCKED, so a claim
 * never waits on a job another transaction holds (a completion, a
 * heartbeat). A job claimed `maxAttempts` times without finishing is
 * failed instead, so a tree that kills workers cannot loop forever.
 */
export async function claimJob(pool: Pool, worker: string, leaseSeconds: number, maxAttempts: number): Promise<ClaimedJob | undefined> {
  return inTransaction(pool, async (client) => {
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('vouch-claim:' || current_schema()))`);
    for (;;) {
      const row = await nextCandidate(client);
      if (!row) return undefined;
      if (row.attempts >= maxAttempts) {
        await client.query(
          `UPDATE jobs SET state = 'failed', finished_at = clock_timestamp(), lease_owner = NULL, lease_until = NULL, error = $2 WHERE id = $1`,
          [
            row.id,
            JSON.stringify({ code: 'attempts_exhausted', message: `the job was started ${row.attempts} times and no worker finished it` } satisfies JobError),
          ],
        );
        await dropArchive(client, row.id);
        continue;
      }
      await client.query(
        `UPDATE jobs SET state = 'running', attempts = attempts + 1, lease_owner = $2,
                lease_until = clock_timestamp() + make_interval(secs => $3), started_at = COALESCE(started_at, clock_timestamp())
         WHERE id = $1`,
        [row.id, worker, leaseSeconds],
      );
      return {
        id: row.id,
        specSha256: row.spec_sha256,
        checks: row.check_ids,
        archiveParts: row.archive_parts,
        timeLimitSeconds: row.time_limit_s,
        attempt: row.attempts + 1,
        nonce: row.nonce,
        clientGit: row.client_git,
      };
    }
  });
}

type CandidateRow = {
  id: string;
  spec_sha256: string;
  check_ids: string[];
  archive_parts: number;
  time_limit_s: number;
  attempts: number;
  nonce: string | null;
  client_git: GitState | null;
};

/** The first job in the fair order that no other transaction holds, locked; undefined when none is ready. */
async function nextCandidate(client: PoolClient): Promise<CandidateRow | undefined> {
  const ids = (await client.query<{ id: string }>(CANDIDATES)).rows.map((row) => row.id);
  for (const id of ids) {
    const row = (
      await client.query<CandidateRow>(
        `SELECT id, spec_sha256, check_ids, archive_parts, time_limit_s, attempts, nonce, client_git FROM jobs
         WHERE id = $1 AND (state = 'queued' OR (state = 'running' AND lease_until < clock_timestamp())) FOR UPDATE SKIP LOCKED`,
        [id],
      )
    ).rows[0];
    if (row) return row;
  }
  return undefined;
}

/**
 * Why a worker no longer holds a job: its own lease ran out before it was
 * renewed (no other worker has taken the job yet), another worker took the
 * job over, or the job has ended meanwhile.
 */
export type LeaseLoss = { readonly kind: 'expired' } | { readonly kind: 'taken'; readonly by: string } | { readonly kind: 'ended'; readonly state: string };

export type LeaseCheck = { readonly kind: 'held' } | LeaseLoss;

/** Extends the lease while this worker holds it unexpired; otherwise says what became of it. */
export async function heartbeat(pool: Pool, jobId: string, worker: string, leaseSeconds: number): Promise<LeaseCheck> {
  const result = await pool.query(
    `UPDATE jobs SET lease_until = clock_timestamp() + make_interval(secs => $3)
     WHERE id = $1 AND state = 'running' AND lease_owner = $2 AND lease_until > clock_timestamp()`,
    [jobId, worker, leaseSeconds],
  );
  if (result.rowCount === 1) return { kind: 'held' };
  return leaseLoss(pool, jobId, worker);
}

/** What became of a lease this worker found it no longer holds. */
async function leaseLoss(db: Pool | PoolClient, jobId: string, worker: string): Promise<LeaseLoss> {
  const row = (await db.query<{ state: string; lease_owner: string | null }>('SELECT state, lease_owner FROM jobs WHERE id = $1', [jobId])).rows[0];
  if (!row || (row.state !== 'running' && row.state !== 'queued')) return { kind: 'ended', state: row?.state ?? 'gone' };
  if (row.lease_owner !== null && row.lease_owner !== worker) return { kind: 'taken', by: row.lease_owner };
  return { kind: 'expired' };
}

/** One receipt a worker made, not yet in the chain. */
export interface PendingReceipt {
  readonly draft: ReceiptDraft;
  readonly manifest: Manifest;
}

export type CompleteResult = { readonly kind: 'completed'; readonly receipts: readonly string[] } | { readonly kind: 'lease_lost'; readonly loss: LeaseLoss };

/**
 * Appends a job's receipts and ends it in one transaction, only if this
 * worker still holds an unexpired lease. A worker whose lease was lost
 * writes nothing: the job's receipts come from exactly one run, and
 * job_receipts' primary key (job, check) refuses a second one regardless.
 * With `error` the job ends failed, its receipts kept (a requested check
 * that has none: the job did not do what was asked).
 */
export async function completeJob(
  pool: Pool,
  jobId: string,
  worker: string,
  receipts: readonly PendingReceipt[],
  sign: Signer,
  sandbox: SandboxRecord,
  error?: JobError,
): Promise<CompleteResult> {
  return inTransaction(pool, async (client) => {
    const held = await client.query(
      `SELECT 1 FROM jobs WHERE id = $1 AND state = 'running' AND lease_owner = $2 AND lease_until > clock_timestamp() FOR UPDATE`,
      [jobId, worker],
    );
    if (held.rowCount !== 1) return { kind: 'lease_lost', loss: await leaseLoss(client, jobId, worker) };
    const head = await lockHead(client);
    const ids: string[] = [];
    for (const pending of receipts) {
      const stored = await appendLocked(client, head, pending.draft, pending.manifest, sign);
      await client.query('INSERT INTO job_receipts (job_id, check_id, receipt_id) VALUES ($1, $2, $3)', [jobId, stored.body.check_id, stored.body.id]);
      ids.push(stored.body.id);
    }
    await client.query(
      `UPDATE jobs SET state = $3, finished_at = clock_timestamp(), lease_owner = NULL, lease_until = NULL, sandbox = $2, error = $4 WHERE id = $1`,
      [jobId, JSON.stringify(sandbox), error ? 'failed' : 'done', error ? JSON.stringify(error) : null],
    );
    await dropArchive(client, jobId);
    return { kind: 'completed', receipts: ids };
  });
}

export type FailResult = { readonly kind: 'failed' } | { readonly kind: 'lease_lost'; readonly loss: LeaseLoss };

/** Ends a job that cannot run (spec not allowed, archive refused) with the reason; no receipt. */
export async function failJob(pool: Pool, jobId: string, worker: string, error: JobError): Promise<FailResult> {
  return inTransaction(pool, async (client) => {
    const result = await client.query(
      `UPDATE jobs SET state = 'failed', finished_at = clock_timestamp(), lease_owner = NULL, lease_until = NULL, error = $3
       WHERE id = $1 AND state = 'running' AND lease_owner = $2 AND lease_until > clock_timestamp()`,
      [jobId, worker, JSON.stringify(error)],
    );
    if (result.rowCount !== 1) return { kind: 'lease_lost', loss: await leaseLoss(client, jobId, worker) };
    await dropArchive(client, jobId);
    return { kind: 'failed' };
  });
}

/** An ended job's upload is not kept. */
async function dropArchive(client: PoolClient, jobId: string): Promise<void> {
  await client.query('DELETE FROM job_archive_parts WHERE job_id = $1', [jobId]);
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
