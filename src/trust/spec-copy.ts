import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { trustRecordPath } from './trust.js';

/** Beside trust/, not in it: trust/ holds one record per workspace and nothing else. */
const FOLDER = 'allowed-specs';

/**
 * The bytes of the spec a person last allowed in a workspace, kept under
 * VOUCH_HOME/allowed-specs, named as its trust record (the person's directory, never the
 * repository's) so the next `vouch allow` can show what changed since.
 * Only for display: trust is decided by the record's SHA-256 alone, and a
 * copy that is missing or unreadable only means no diff is shown.
 */
export function specCopyPath(home: string, workspaceRoot: string): string {
  return join(home, FOLDER, basename(trustRecordPath(home, workspaceRoot)).replace(/\.json$/, '.yaml'));
}

/** The copy kept at the last allow, or undefined when there is none (or it cannot be read). */
export function readSpecCopy(home: string, workspaceRoot: string): string | undefined {
  try {
    return readFileSync(specCopyPath(home, workspaceRoot), 'utf8');
  } catch {
    return undefined;
  }
}

/** Keeps these bytes as the allowed spec's copy; false when it could not be written (the allow stands). */
export function writeSpecCopy(home: string, workspaceRoot: string, bytes: Buffer | string): boolean {
  const path = specCopyPath(home, workspaceRoot);
  try {
    mkdirSync(join(home, FOLDER), { recursive: true, mode: 0o700 });
    const temp = `${path}.${process.pid}.tmp`;
    writeFileSync(temp, bytes, { mode: 0o600 });
    renameSync(temp, path);
    return true;
  } catch {
    return false;
  }
}
