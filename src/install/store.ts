import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256, type Sha256 } from '../core/digest.js';
import type { Change, EditFormat } from './intent.js';

/**
 * What vouch remembers of an edit it made, under VOUCH_HOME (never next to
 * the edited file, never in a repository): the bytes before (as a backup
 * file and their hash) and the hash of the bytes it wrote. Uninstall restores
 * the backup exactly when the file is still what vouch wrote.
 */
export interface InstallRecord {
  readonly v: 1;
  readonly path: string;
  readonly format: EditFormat;
  readonly summary: string;
  readonly changes: readonly Change[];
  /** null: the file did not exist. */
  readonly before_sha256: Sha256 | null;
  /** Where the bytes before are kept; null when there were none. */
  readonly backup: string | null;
  /** Permission bits of the file before (or of the new file). */
  readonly mode: number;
  readonly after_sha256: Sha256;
  /** JSON containers the edit created, so a later removal can drop them once empty. */
  readonly created: readonly (readonly string[])[];
  /** Directories the edit created for the file, outermost first. */
  readonly created_dirs: readonly string[];
  /**
   * false when the bytes before already held an earlier vouch's entries
   * (an upgrade of a file edited since that install): restoring them would
   * put those back, so uninstall removes the entries instead.
   */
  readonly restorable?: false;
  readonly at: string;
}

const key = (path: string) => sha256(path).slice(0, 32);

/**
 * One record per file and per what was edited in it: two MCP servers vouch
 * added to one file under different names are two installs, each undone on
 * its own. The values are left out, so a record is found again after vouch or
 * node moved.
 */
function recordKey(path: string, changes: readonly Change[]): string {
  const what = changes.map((change) => (change.kind === 'file' ? [change.kind] : [change.kind, change.at]));
  return sha256(`${path}\n${JSON.stringify(what)}`).slice(0, 32);
}

export function recordFile(home: string, path: string, changes: readonly Change[]): string {
  return join(home, 'installs', `${recordKey(path, changes)}.json`);
}

/** The record of the install of these changes into this file, if vouch made it. */
export function readRecord(home: string, path: string, changes: readonly Change[]): InstallRecord | undefined {
  let text: string;
  try {
    text = readFileSync(recordFile(home, path, changes), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const record = JSON.parse(text) as InstallRecord;
  // A record for another path (a copied file) says nothing about this one.
  return record.path === path ? record : undefined;
}

export function writeRecord(home: string, record: InstallRecord): void {
  const file = recordFile(home, record.path, record.changes);
  mkdirSync(join(home, 'installs'), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, file);
}

export function removeRecord(home: string, path: string, changes: readonly Change[]): void {
  rmSync(recordFile(home, path, changes), { force: true });
}

/** Keeps a copy of the bytes before an edit; returns where. */
export function backup(home: string, path: string, bytes: Buffer, now: Date): string {
  const dir = join(home, 'installs', 'backups');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${key(path)}-${now.toISOString().replace(/[:.]/g, '-')}.bak`);
  writeFileSync(file, bytes, { mode: 0o600, flag: 'wx' });
  return file;
}

/** Every install record under VOUCH_HOME/installs (what vouch has promised to have wired); one that does not parse is skipped. */
export function listRecords(home: string): InstallRecord[] {
  let names: string[];
  try {
    names = readdirSync(join(home, 'installs'));
  } catch {
    return [];
  }
  const records: InstallRecord[] = [];
  for (const name of names.sort()) {
    if (!name.endsWith('.json')) continue;
    try {
      const record = JSON.parse(readFileSync(join(home, 'installs', name), 'utf8')) as InstallRecord;
      if (record.v === 1 && typeof record.path === 'string' && Array.isArray(record.changes)) records.push(record);
    } catch {
      // A record vouch cannot read promises nothing it can check; uninstall reports it.
    }
  }
  return records;
}
