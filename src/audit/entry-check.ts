import { sha256 } from '../core/digest.js';
import { canonicalize } from '../core/jcs.js';
import { CHAIN_KINDS, isChainKind } from '../ledger/kinds.js';
import type { LedgerEntry } from '../ledger/ledger.js';
import type { AuditCode } from './finding.js';

type LiveEntry = Extract<LedgerEntry, { state: 'live' }>;

/** A live entry's body as far as the audit needs it. */
export interface ParsedEntry {
  /** Whether the stored bytes still hash to the stored hash. */
  readonly hashOk: boolean;
  /** The body's prev_hash; undefined when the body could not be read or cannot be believed. */
  readonly prevHash: string | null | undefined;
  /** The parsed body; undefined when it is not JSON or was altered. */
  readonly body: Record<string, unknown> | undefined;
  readonly problems: readonly { readonly code: AuditCode; readonly detail: string }[];
}

const short = (hash: unknown) => (typeof hash === 'string' ? `${hash.slice(0, 12)}…` : String(hash));

/** Checks one live entry on its own: hash, canonical form, shape, and that its row agrees with its body. */
export function checkEntry(entry: LiveEntry): ParsedEntry {
  const problems: { code: AuditCode; detail: string }[] = [];
  const actual = sha256(entry.body);
  const hashOk = actual === entry.hash;
  if (!hashOk) {
    // Nothing in an altered body can be believed, its links and fields included: one finding says it all.
    problems.push({ code: 'body_altered', detail: `the stored body hashes to ${short(actual)}, the chain records ${short(entry.hash)}` });
    return { hashOk, prevHash: undefined, body: undefined, problems };
  }

  let parsed: unknown;
  try {
    parsed = JSON.parse(entry.body);
  } catch {
    problems.push({ code: 'entry_invalid', detail: 'the stored body is not JSON' });
    return { hashOk, prevHash: undefined, body: undefined, problems };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    problems.push({ code: 'entry_invalid', detail: 'the stored body is not a JSON object' });
    return { hashOk, prevHash: undefined, body: undefined, problems };
  }
  const body = parsed as Record<string, unknown>;
  if (canonicalize(body) !== entry.body) {
    problems.push({ code: 'not_canonical', detail: 'the body is not in RFC 8785 canonical form: it was rewritten, not produced by vouch' });
  }
  if (!isChainKind(body.kind)) {
    problems.push({ code: 'entry_invalid', detail: `the body's kind is ${JSON.stringify(body.kind)}, not one of ${CHAIN_KINDS.join(', ')}` });
  }
  const prev = body.prev_hash;
  const prevHash = prev === null || typeof prev === 'string' ? prev : undefined;
  if (prevHash === undefined) problems.push({ code: 'entry_invalid', detail: 'the body has no prev_hash' });

  const mismatched: string[] = [];
  if (body.id !== entry.id) mismatched.push(`id ${JSON.stringify(entry.id)} vs ${JSON.stringify(body.id)}`);
  if (body.kind !== entry.kind) mismatched.push(`kind ${JSON.stringify(entry.kind)} vs ${JSON.stringify(body.kind)}`);
  if (body.kind === 'receipt') {
    if (body.check_id !== entry.checkId) mismatched.push(`check ${JSON.stringify(entry.checkId)} vs ${JSON.stringify(body.check_id)}`);
    if (body.manifest_digest !== entry.manifest) mismatched.push('manifest digest');
  }
  // A card, dispatch or exec event is found by its subject column: one moved to another subject would be read as that one's.
  if ((body.kind === 'card' || body.kind === 'dispatch' || body.kind === 'exec') && entry.subject !== undefined && body.subject !== entry.subject) {
    mismatched.push(`subject ${JSON.stringify(entry.subject)} vs ${JSON.stringify(body.subject)}`);
  }
  if (mismatched.length > 0) problems.push({ code: 'row_mismatch', detail: `row and body disagree: ${mismatched.join(', ')}` });
  return { hashOk, prevHash, body, problems };
}
