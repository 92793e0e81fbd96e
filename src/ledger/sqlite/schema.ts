/**
 * The SQLite ledger's schema, by version. A migration runs once, inside a
 * transaction, and records the version it reached in `meta`.
 */
export const LEDGER_FORMAT = 'vouch-ledger';

export const MIGRATIONS: readonly string[] = [
  // 1: the chain of entries (receipts and gc records), manifests by digest,
  // and the hashes of entries removed by gc so the chain still links.
  `
  CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE chain (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    check_id TEXT,
    manifest TEXT,
    created_at INTEGER NOT NULL,
    hash TEXT NOT NULL,
    body TEXT NOT NULL,
    signature TEXT
  );
  CREATE INDEX chain_by_check ON chain (check_id, seq) WHERE kind = 'receipt';
  CREATE TABLE manifests (digest TEXT PRIMARY KEY, body BLOB NOT NULL) WITHOUT ROWID;
  CREATE TABLE pruned (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, hash TEXT NOT NULL, gc_id TEXT NOT NULL);
  `,
  // 2: session entries (an agent's untrusted trail, the gate's decisions) are
  // chain entries too; this column finds one session's entries without
  // reading every body.
  `
  ALTER TABLE chain ADD COLUMN session TEXT;
  CREATE INDEX chain_by_session ON chain (session, seq) WHERE session IS NOT NULL;
  `,
  // 3: events about a subject (a task card, a dispatched agent) are chain
  // entries too; this column finds one subject's events without reading
  // every body.
  `
  ALTER TABLE chain ADD COLUMN subject TEXT;
  CREATE INDEX chain_by_subject ON chain (kind, subject, seq) WHERE subject IS NOT NULL;
  `,
  // 4: compact bodies (body-store.ts). A chain row's body is either its
  // canonical text (dict NULL: every row written before this schema, and
  // every gc record, session entry and subject event) or, for a receipt,
  // that text DEFLATE-compressed against a dictionary: the full text of an
  // earlier receipt of the same check. AUTOINCREMENT: a dictionary id is never
  // reused, so an id remembered by another connection never names other bytes.
  `
  CREATE TABLE dicts (id INTEGER PRIMARY KEY AUTOINCREMENT, check_id TEXT NOT NULL, since_seq INTEGER NOT NULL, body BLOB NOT NULL);
  CREATE INDEX dicts_by_check ON dicts (check_id, id);
  ALTER TABLE chain ADD COLUMN dict INTEGER;
  `,
  // 5: proven states (engine/reuse.ts): a PASS receipt's fingerprint, so an
  // earlier PASS of the same files, definition and pins is found by one
  // index probe, never by reading receipts. Receipts written before this
  // have none and are never reused.
  `
  ALTER TABLE chain ADD COLUMN pass_fingerprint TEXT;
  CREATE INDEX chain_by_pass ON chain (check_id, pass_fingerprint, seq) WHERE pass_fingerprint IS NOT NULL;
  `,
];
