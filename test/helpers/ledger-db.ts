import Database from 'better-sqlite3';
import { BodyStore } from '../../src/ledger/sqlite/body-store.js';
import type { Rig } from './rig.js';

export interface Row {
  seq: number;
  id: string;
  kind: string;
  check_id: string | null;
  manifest: string | null;
  created_at: number;
  hash: string;
  /** The canonical text, decoded (rows may store it compressed: body-store.ts). */
  body: string;
  /** The dictionary the stored body was compressed against; null when it is stored as text. */
  dict: number | null;
  signature: string | null;
}

/** Opens the workspace's ledger file directly, as an attacker with the same permissions would. */
export function withLedgerDb<T>(rig: Rig, work: (db: Database.Database) => T): T {
  const db = new Database(rig.path('.vouch/ledger.db'));
  try {
    return work(db);
  } finally {
    db.close();
  }
}

/** Every chain row, its body decoded to text (undecodable: the empty string). */
export function rows(rig: Rig): Row[] {
  return withLedgerDb(rig, (db) => {
    const bodies = new BodyStore(db);
    const stored = db.prepare('SELECT * FROM chain ORDER BY seq').all() as (Omit<Row, 'body'> & { body: string | Buffer })[];
    return stored.map((row) => ({ ...row, body: bodies.decode(row) ?? '' }));
  });
}

/** The canonical text of one entry, decoded as vouch reads it. */
export function bodyAt(db: Database.Database, seq: number): string {
  const row = db.prepare('SELECT body, dict FROM chain WHERE seq = ?').get(seq) as { body: string | Buffer; dict: number | null };
  const text = new BodyStore(db).decode(row);
  if (text === undefined) throw new Error(`the body of seq ${seq} cannot be decoded`);
  return text;
}

/** Stores `text` as the body of an entry, as plain text (a form vouch reads as well as a compressed one). */
export function setBody(db: Database.Database, seq: number, text: string): void {
  db.prepare('UPDATE chain SET body = ?, dict = NULL WHERE seq = ?').run(text, seq);
}

/** Rewrites the text of an entry's body, whatever form it is stored in (an attacker who reads the schema can). */
export function editBody(db: Database.Database, seq: number, edit: (text: string) => string): void {
  setBody(db, seq, edit(bodyAt(db, seq)));
}
