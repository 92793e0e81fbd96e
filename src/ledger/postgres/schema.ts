/**
 * The PostgreSQL ledger's schema, by version. `vouch db migrate` applies the
 * missing ones in order, in one transaction, and records the
 * version reached in `meta`. Nothing else creates or alters tables: a
 * command that finds the schema behind refuses and says to migrate.
 *
 * Statements are unqualified; they run with search_path set to the
 * ledger's schema (one chain per schema).
 */
export const PG_LEDGER_FORMAT = 'vouch-ledger';

export const PG_MIGRATIONS: readonly string[] = [
  // 1: the chain (receipts, gc records, agent session entries, card and
  // dispatch events; `session` and `subject` find those without reading
  // every body) in seq order, manifests by
  // digest, the traces gc leaves, and `head`: the one row every append
  // locks, so appends are serialised per chain and seq has no holes
  // (a sequence would leave one at every rolled-back transaction).
  `
  CREATE TABLE head (only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row), seq bigint NOT NULL);
  INSERT INTO head (seq) VALUES (0);
  CREATE TABLE chain (
    seq bigint PRIMARY KEY,
    id text COLLATE "C" NOT NULL UNIQUE,
    kind text NOT NULL,
    check_id text,
    manifest text,
    created_at bigint NOT NULL,
    hash text NOT NULL,
    body text NOT NULL,
    signature text,
    session text,
    subject text
  );
  CREATE INDEX chain_by_check ON chain (check_id, seq) WHERE kind = 'receipt';
  CREATE INDEX chain_by_session ON chain (session, seq) WHERE session IS NOT NULL;
  CREATE INDEX chain_by_subject ON chain (kind, subject, seq) WHERE subject IS NOT NULL;
  CREATE TABLE manifests (digest text PRIMARY KEY, body bytea NOT NULL);
  CREATE TABLE pruned (seq bigint PRIMARY KEY, id text NOT NULL, hash text NOT NULL, gc_id text NOT NULL);
  `,
  // 2: the verifier service: client tokens (SHA-256 only), the job queue
  // and which receipt each job's check produced. The primary key of
  // job_receipts is what makes a second receipt for a job's check
  // impossible, whatever a worker does.
  `
  CREATE TABLE service_tokens (
    name text PRIMARY KEY,
    token_sha256 text NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
  );
  CREATE TABLE jobs (
    id text COLLATE "C" PRIMARY KEY,
    client text NOT NULL,
    state text NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
    spec_sha256 text NOT NULL,
    check_ids jsonb NOT NULL,
    archive bytea,
    archive_sha256 text NOT NULL,
    archive_bytes integer NOT NULL,
    time_limit_s integer NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    lease_owner text,
    lease_until timestamptz,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    started_at timestamptz,
    finished_at timestamptz,
    error jsonb,
    sandbox jsonb
  );
  CREATE INDEX jobs_open ON jobs (created_at) WHERE state IN ('queued', 'running');
  CREATE INDEX jobs_open_by_client ON jobs (client) WHERE state IN ('queued', 'running');
  CREATE TABLE job_receipts (
    job_id text COLLATE "C" NOT NULL REFERENCES jobs (id),
    check_id text NOT NULL,
    receipt_id text COLLATE "C" NOT NULL UNIQUE,
    PRIMARY KEY (job_id, check_id)
  );
  `,
  // 3: the verifier service's boundary. An upload is stored in parts of at
  // most 1 MiB as it arrives, and read back part by part, so neither the
  // server nor a worker ever holds a whole archive in memory; the client's
  // nonce (one job per client and nonce: a retried submission finds its
  // job) and its claim about its git work tree travel with the job.
  // 'receiving' is a job whose upload is still arriving: it counts against
  // the client's open jobs and no worker claims it.
  `
  CREATE TABLE job_archive_parts (
    job_id text COLLATE "C" NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    part integer NOT NULL,
    bytes bytea NOT NULL,
    PRIMARY KEY (job_id, part)
  );
  ALTER TABLE jobs ADD COLUMN nonce text, ADD COLUMN client_git jsonb, ADD COLUMN archive_parts integer NOT NULL DEFAULT 0;
  INSERT INTO job_archive_parts (job_id, part, bytes) SELECT id, 0, archive FROM jobs WHERE archive IS NOT NULL;
  UPDATE jobs SET archive_parts = 1 WHERE archive IS NOT NULL;
  ALTER TABLE jobs DROP COLUMN archive;
  ALTER TABLE jobs DROP CONSTRAINT jobs_state_check;
  ALTER TABLE jobs ADD CONSTRAINT jobs_state_check CHECK (state IN ('receiving', 'queued', 'running', 'done', 'failed'));
  CREATE UNIQUE INDEX jobs_client_nonce ON jobs (client, nonce);
  DROP INDEX jobs_open_by_client;
  CREATE INDEX jobs_open_by_client ON jobs (client) WHERE state IN ('receiving', 'queued', 'running');
  CREATE INDEX jobs_receiving ON jobs (created_at) WHERE state = 'receiving';
  `,
  // 4: fair claims (service/jobs.ts): when each client was last given a
  // worker, read as the latest started_at of its jobs, one index probe
  // per client waiting.
  `
  CREATE INDEX jobs_started_by_client ON jobs (client, started_at);
  `,
  // 5: proven states (engine/reuse.ts): a PASS receipt's fingerprint, so an
  // earlier PASS of the same files, definition and pins is found by one
  // index probe, never by reading receipts. Receipts written before this
  // have none and are never reused.
  `
  ALTER TABLE chain ADD COLUMN pass_fingerprint text;
  CREATE INDEX chain_by_pass ON chain (check_id, pass_fingerprint, seq) WHERE pass_fingerprint IS NOT NULL;
  `,
];
