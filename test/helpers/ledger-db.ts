import Database from 'better-sqlite3';
import type { Rig } from './rig.js';

export interface Row {
  seq: number;
  id: string;
  kind: string;
  check_id: string | null;
  manifest: string | null;
  created_at: number;
  hash: string;
  body: string;
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

export function rows(rig: Rig): Row[] {
  return withLedgerDb(rig, (db) => db.prepare('SELECT * FROM chain ORDER BY seq').all() as Row[]);
}
