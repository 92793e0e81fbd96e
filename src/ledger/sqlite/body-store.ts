import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type Database from 'better-sqlite3';

/** How a chain row's body is stored: the canonical text itself, or compressed against a dictionary. */
export interface StoredBody {
  /** TEXT: the canonical JSON; BLOB: raw DEFLATE of it against dictionary `dict`. */
  readonly body: string | Buffer;
  readonly dict: number | null;
}

/**
 * A new dictionary is taken from a receipt that compresses worse than this
 * against its check's current one (the check's output changed shape)...
 */
const REFRESH_RATIO = 0.5;
/** ...but at most once per this many entries, so a check whose output never repeats cannot double its storage. */
const REFRESH_AFTER = 32;

/**
 * Stores entry bodies compactly without changing a byte of what is hashed.
 *
 * Consecutive receipts of one check share almost everything (argv, digests,
 * proves, environment names, most of the output); only ids, times,
 * durations and prev_hash differ. So a body is DEFLATE-compressed with a
 * preset dictionary: the full canonical text of an earlier receipt of the
 * same check, kept once in `dicts`. A 1.2 KB receipt of an unchanged tree
 * stores in about 110 bytes. Decoding gives back the exact canonical text,
 * which is then checked against the stored hash as before: a damaged
 * dictionary or body reads as a receipt that no longer matches its hash,
 * never as other content.
 */
export class BodyStore {
  private readonly bytes = new Map<number, Buffer>();
  private readonly current: Database.Statement;
  private readonly create: Database.Statement;
  private readonly load: Database.Statement;

  constructor(db: Database.Database) {
    this.current = db.prepare('SELECT id, since_seq AS since FROM dicts WHERE check_id = ? ORDER BY id DESC LIMIT 1');
    this.create = db.prepare('INSERT INTO dicts (check_id, since_seq, body) VALUES (?, ?, ?)');
    this.load = db.prepare('SELECT body FROM dicts WHERE id = ?').pluck();
  }

  /**
   * Encodes the body of entry `seq` of a check. Runs inside the append
   * transaction: the dictionary is looked up there, never taken from a
   * memory of an earlier transaction (gc may have removed it since).
   */
  encode(checkId: string, text: string, seq: number): StoredBody {
    const raw = Buffer.from(text, 'utf8');
    const current = this.current.get(checkId) as { id: number; since: number } | undefined;
    let dict = current?.id;
    let encoded = current ? this.deflate(raw, current.id) : undefined;
    if (!current || (encoded !== undefined && encoded.length > raw.length * REFRESH_RATIO && seq - current.since >= REFRESH_AFTER)) {
      dict = Number(this.create.run(checkId, seq, raw).lastInsertRowid);
      this.bytes.set(dict, raw);
      encoded = this.deflate(raw, dict);
    }
    if (dict === undefined || encoded === undefined || encoded.length >= raw.length) return { body: text, dict: null };
    return { body: encoded, dict };
  }

  /** The canonical text of a stored body, or undefined when it cannot be decoded (damage). */
  decode(stored: { readonly body: unknown; readonly dict: number | null }): string | undefined {
    if (stored.dict === null) return typeof stored.body === 'string' ? stored.body : undefined;
    const dictionary = this.dictionary(stored.dict);
    if (!dictionary || !Buffer.isBuffer(stored.body)) return undefined;
    try {
      return inflateRawSync(stored.body, { dictionary }).toString('utf8');
    } catch {
      return undefined;
    }
  }

  private deflate(raw: Buffer, dict: number): Buffer | undefined {
    const dictionary = this.dictionary(dict);
    return dictionary && deflateRawSync(raw, { dictionary });
  }

  private dictionary(id: number): Buffer | undefined {
    let bytes = this.bytes.get(id);
    if (!bytes) {
      const row = this.load.get(id) as Buffer | undefined;
      if (!Buffer.isBuffer(row)) return undefined;
      bytes = row;
      this.bytes.set(id, bytes);
    }
    return bytes;
  }
}
