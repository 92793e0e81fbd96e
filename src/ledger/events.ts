import type { Sha256 } from '../core/digest.js';

/** What a subject event is about: a task card, a dispatched agent, or one command `vouch exec` ran (its receipt is its only event). */
export type SubjectKind = 'card' | 'dispatch' | 'exec';

/**
 * An append-only event about one subject (a card opened, claimed, verified,
 * decided; a dispatch sent, reported, graded, closed). Events are chain
 * entries like receipts: hashed, linked by prev_hash, signed when the
 * workspace signs, walked by `vouch audit`. A feature's own fields come on
 * top of these.
 */
export interface SubjectEventBody {
  readonly v: 1;
  readonly kind: SubjectKind;
  /** This event's id (ULID-shaped, like a receipt's). */
  readonly id: string;
  /** ISO time of the event. */
  readonly at: string;
  /** The card's or the dispatch's id. */
  readonly subject: string;
  /** What happened: a feature-defined word (opened, claimed, verdict...). */
  readonly event: string;
}

export interface StoredEvent<T extends SubjectEventBody = SubjectEventBody> {
  readonly seq: number;
  readonly hash: Sha256;
  readonly body: T;
  readonly signature: string | null;
  /** False when the stored bytes no longer hash to the stored hash: read as damaged, never as what it claims. */
  readonly intact: boolean;
}
