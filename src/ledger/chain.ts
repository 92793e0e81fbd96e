import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { sha256, type Sha256 } from '../core/digest.js';
import { canonicalize } from '../core/jcs.js';
import type { Manifest } from '../scope/manifest.js';
import type { SubjectEventBody } from './events.js';
import type { Signer } from './ledger.js';

/*
 * The chain's rules, in one place for both backends (SQLite and
 * PostgreSQL): how an entry is linked, hashed and signed when it is
 * appended, how a manifest is stored, and when a stored entry is believed.
 * A backend decides only where the bytes go.
 */

/** An entry ready to store: its body with `prev_hash`, the canonical text that is hashed and signed, its hash and signature. */
export interface Link<B> {
  readonly body: B & { readonly prev_hash: Sha256 | null };
  readonly text: string;
  readonly hash: Sha256;
  readonly signature: string | null;
}

/** Links a draft after `prev` (null for the first entry): canonical JSON, SHA-256 of that text, and the signer's signature of the same text. */
export function link<D extends object>(draft: D, prev: Sha256 | null, sign: Signer | undefined): Link<D> {
  const body = { ...draft, prev_hash: prev };
  const text = canonicalize(body);
  return { body, text, hash: sha256(text), signature: sign ? sign(text) : null };
}

/** Manifests are stored as deflated canonical JSON, once per digest. */
export function encodeManifest(manifest: Manifest): Buffer {
  return deflateRawSync(canonicalize({ files: manifest.files, refused: manifest.refused }));
}

export function decodeManifest(blob: Buffer): Manifest | undefined {
  try {
    return JSON.parse(inflateRawSync(blob).toString('utf8')) as Manifest;
  } catch {
    return undefined;
  }
}

/**
 * The one rule for believing a stored entry on read: its text still hashes
 * to its stored hash and names the row's id. Whether the chain links and
 * signatures hold is `vouch audit`'s work, not every read's.
 */
export function intact(text: string, hash: string, body: { readonly id?: unknown }, id: string): boolean {
  return sha256(text) === hash && body.id === id;
}

/** Parses stored text, or undefined when it is not JSON. */
export function parseBody<T>(text: string | undefined): T | undefined {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

/** A subject event row as read: believed only when intact and its row agrees with its kind and subject; a damaged one is returned as such, never as what it claims. */
export function readEvent<T extends SubjectEventBody>(
  row: { readonly seq: number; readonly id: string; readonly hash: string; readonly signature: string | null; readonly subject: string },
  text: string | undefined,
  kind: string,
): { seq: number; hash: Sha256; body: T; signature: string | null; intact: boolean } {
  const body = parseBody<T>(text);
  const ok = body !== undefined && intact(text!, row.hash, body, row.id) && body.kind === kind && body.subject === row.subject;
  return {
    seq: row.seq,
    hash: row.hash as Sha256,
    body: body ?? ({ v: 1, kind, id: row.id, at: '', subject: row.subject, event: 'damaged' } as unknown as T),
    signature: row.signature,
    intact: ok,
  };
}
