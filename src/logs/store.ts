import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeCrypto } from '../core/builtins.js';
import { isSha256, sha256, type Sha256 } from '../core/digest.js';
import type { ReleasedLog } from '../ledger/ledger.js';
import type { LogRecord } from '../receipt/receipt.js';
import { decodeLog, type DecodedLog } from './log-file.js';

/**
 * Stored logs live beside the ledger, in the workspace's .vouch/logs/, one
 * file per receipt named by the SHA-256 of its stored (compressed) bytes:
 * the name checks the content, and a PostgreSQL ledger keeps its logs here
 * too (they are this machine's record of what it ran).
 */
export function logDir(stateDir: string): string {
  return join(stateDir, 'logs');
}

export function logPath(stateDir: string, digest: Sha256): string {
  return join(logDir(stateDir), `${digest}.gz`);
}

/** Writes a log (atomically: a reader sees all of it or no file) and returns the record a receipt keeps. */
export function writeLog(stateDir: string, stored: Buffer): LogRecord {
  const digest = sha256(stored);
  mkdirSync(logDir(stateDir), { recursive: true });
  const temp = join(logDir(stateDir), `.${digest}.${nodeCrypto().randomBytes(4).toString('hex')}.tmp`);
  writeFileSync(temp, stored, { mode: 0o600 });
  renameSync(temp, logPath(stateDir, digest));
  return { sha256: digest, bytes: stored.length };
}

/** Why a receipt's log cannot be shown. */
export type LogMissing =
  /** The receipt was recorded without one (before vouch kept logs, or it never ran). */
  | { readonly reason: 'not_recorded' }
  /** The receipt names a log that is not here (removed by hand, another machine's receipt). */
  | { readonly reason: 'absent'; readonly path: string }
  /** The file is there but its bytes are not the ones the receipt names. */
  | { readonly reason: 'damaged'; readonly path: string };

export type LogRead = { readonly ok: true; readonly log: DecodedLog } | { readonly ok: false; readonly missing: LogMissing };

export function readLog(stateDir: string, record: LogRecord | undefined): LogRead {
  if (!record || !isSha256(record.sha256)) return { ok: false, missing: { reason: 'not_recorded' } };
  const path = logPath(stateDir, record.sha256);
  let stored: Buffer;
  try {
    stored = readFileSync(path);
  } catch {
    return { ok: false, missing: { reason: 'absent', path } };
  }
  const log = sha256(stored) === record.sha256 ? decodeLog(stored) : undefined;
  return log ? { ok: true, log } : { ok: false, missing: { reason: 'damaged', path } };
}

/**
 * Removes the logs of receipts gc removed, once that removal is committed.
 * A file goes only if its header names the removed receipt: each receipt's
 * log is its own file, so a log a kept receipt refers to is never removed,
 * whatever a damaged body claims. One already gone is not an error.
 * Returns how many files were removed.
 */
export function removeReleasedLogs(stateDir: string, released: readonly ReleasedLog[]): number {
  let removed = 0;
  for (const { receipt, sha256: digest } of released) {
    const read = readLog(stateDir, { sha256: digest, bytes: 0 });
    if (!read.ok || read.log.header.receipt !== receipt) continue;
    try {
      rmSync(logPath(stateDir, digest));
      removed++;
    } catch {
      // ENOENT: removed meanwhile.
    }
  }
  return removed;
}

/**
 * Removes the stored logs written before `before` (ms since the epoch; the
 * file's mtime, as written once and never touched), whoever's receipt they
 * belong to: `retention.log_days`. The receipts stay (they hash the whole
 * output; the log is a convenience for people), and `vouch show --log`
 * then says the log is absent. Only files named as vouch names a log.
 */
export function removeLogsOlderThan(stateDir: string, before: number): number {
  let names: string[];
  try {
    names = readdirSync(logDir(stateDir));
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    if (!name.endsWith('.gz') || !isSha256(name.slice(0, -3))) continue;
    const path = join(logDir(stateDir), name);
    try {
      const stat = lstatSync(path);
      if (!stat.isFile() || stat.mtimeMs >= before) continue;
      rmSync(path);
      removed++;
    } catch {
      // Gone meanwhile.
    }
  }
  return removed;
}
