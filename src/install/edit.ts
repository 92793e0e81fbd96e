import { existsSync, mkdirSync, readFileSync, renameSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { sha256 } from '../core/digest.js';
import type { Change, EditIntent, EditOutcome, Refusal } from './intent.js';
import { applyJson, removeJson } from './json-edit.js';
import type { Built } from './plan.js';
import { applyScript, removeScript } from './script-edit.js';
import { backup, readRecord, removeRecord, writeRecord, type InstallRecord } from './store.js';
import { applyToml, applyTomlKey, removeToml, removeTomlKey } from './toml-edit.js';
import { applyYaml, removeYaml } from './yaml-edit.js';

export interface EditOptions {
  /** VOUCH_HOME: where backups and install records live. */
  readonly home: string;
  readonly now?: () => Date;
}

/**
 * Applies an intent to its file, safely: the result is built in memory,
 * parsed again and compared with the intent; anything unexpected refuses the
 * edit with the reason and the manual steps, and nothing is written. The
 * bytes before are backed up under VOUCH_HOME first, and the new file
 * replaces the old in one rename. Applying an intent that is already in
 * place changes nothing.
 */
export function installEdit(intent: EditIntent, options: EditOptions): EditOutcome {
  const read = readCurrent(intent.path, intent.manual);
  if (!read.ok) return refused(intent, read.refusal);
  const built = buildAll(intent, read.text);
  if (!built.ok) return refused(intent, built.refusal);
  if (built.text === null) return { kind: 'unchanged', path: intent.path, why: 'already installed' };
  const now = (options.now ?? (() => new Date()))();
  try {
    // An earlier install of the same edit (an upgrade of vouch's entries).
    const previous = readRecord(options.home, intent.path, intent.changes);
    const saved = read.bytes ? backup(options.home, intent.path, read.bytes, now) : null;
    const file = intent.changes.find((change) => change.kind === 'file');
    const mode = read.mode ?? (file?.kind === 'file' ? file.mode : 0o644);
    const createdDirs = missingDirs(dirname(intent.path));
    writeAtomically(intent.path, built.text, mode);
    const created = [...(previous?.created ?? []), ...built.created.filter((at) => !previous?.created.some((p) => p.join('\0') === at.join('\0')))];
    const common = {
      v: 1 as const,
      path: intent.path,
      format: intent.format,
      summary: intent.summary,
      changes: intent.changes,
      after_sha256: sha256(built.text),
      created,
      at: now.toISOString(),
    };
    const record: InstallRecord =
      previous && read.bytes && sha256(read.bytes) === previous.after_sha256
        ? // The file is exactly what the earlier install wrote: its original bytes are still the ones to restore.
          {
            ...common,
            before_sha256: previous.before_sha256,
            backup: previous.backup,
            mode: previous.mode,
            created_dirs: previous.created_dirs,
            ...(previous.restorable === false && { restorable: false }),
          }
        : {
            ...common,
            before_sha256: read.bytes ? sha256(read.bytes) : null,
            backup: saved,
            mode,
            created_dirs: createdDirs,
            ...(heldVouchEntries(intent, read.text) && { restorable: false as const }),
          };
    writeRecord(options.home, record);
    return { kind: 'written', path: intent.path, backup: saved, how: 'applied' };
  } catch (error) {
    return refused(intent, ioRefusal(error, intent.manual));
  }
}

/**
 * Takes an intent back. When the file is still exactly what vouch wrote, the
 * original bytes are restored from the backup (or the file removed, if there
 * was none). When it changed since, exactly what vouch added is removed, and
 * the result is checked like an install.
 */
export function uninstallEdit(intent: EditIntent, options: EditOptions): EditOutcome {
  const read = readCurrent(intent.path, intent.manual);
  if (!read.ok) return refused(intent, read.refusal);
  let record: InstallRecord | undefined;
  try {
    record = readRecord(options.home, intent.path, intent.changes);
  } catch (error) {
    return refused(intent, ioRefusal(error, intent.manual));
  }
  if (!record && intent.onlyWithRecord) return { kind: 'unchanged', path: intent.path, why: 'vouch has no record of making this edit' };
  try {
    if (record && record.restorable !== false && read.bytes && sha256(read.bytes) === record.after_sha256) return restore(intent, record, options);
    if (read.text === null) {
      if (record) removeRecord(options.home, intent.path, intent.changes);
      return { kind: 'unchanged', path: intent.path, why: 'the file does not exist' };
    }
    // What the install actually wrote (vouch or node may have moved since) is what comes out.
    const removed = unbuildAll(intent, record?.changes ?? intent.changes, read.text, record?.created ?? []);
    if (!removed.ok) return refused(intent, removed.refusal);
    if ('remove' in removed) {
      rmSync(intent.path);
    } else if (removed.text === null) {
      if (record) removeRecord(options.home, intent.path, intent.changes);
      return { kind: 'unchanged', path: intent.path, why: 'nothing of vouch is in it' };
    } else {
      backup(options.home, intent.path, read.bytes!, (options.now ?? (() => new Date()))());
      writeAtomically(intent.path, removed.text, read.mode ?? 0o644);
    }
    if (record) removeRecord(options.home, intent.path, intent.changes);
    return { kind: 'written', path: intent.path, backup: null, how: 'removed' };
  } catch (error) {
    return refused(intent, ioRefusal(error, intent.manual));
  }
}

function restore(intent: EditIntent, record: InstallRecord, options: EditOptions): EditOutcome {
  if (record.backup === null) {
    rmSync(intent.path);
    // Directories the install created for the file go too, when nothing else is in them.
    for (const dir of [...record.created_dirs].reverse()) {
      try {
        rmdirSync(dir);
      } catch {
        break;
      }
    }
  } else {
    const bytes = readFileSync(record.backup);
    if (sha256(bytes) !== record.before_sha256) {
      return refused(intent, {
        code: 'io_error',
        message: `the backup ${record.backup} no longer matches what was saved; nothing was restored`,
        manual: intent.manual,
      });
    }
    writeAtomically(intent.path, bytes, record.mode);
  }
  removeRecord(options.home, intent.path, intent.changes);
  return { kind: 'written', path: intent.path, backup: record.backup, how: 'restored' };
}

/** Whether the text holds entries of this intent (by their markers): an earlier vouch's, being upgraded. */
function heldVouchEntries(intent: EditIntent, text: string | null): boolean {
  return text !== null && intent.changes.some((change) => change.kind === 'json-append' && change.marker !== undefined && text.includes(change.marker));
}

/** Applies every change in order, in memory; null text when all were already in place. */
function buildAll(intent: EditIntent, before: string | null): Built {
  let text = before;
  let changed = false;
  const created: (readonly string[])[] = [];
  for (const change of intent.changes) {
    const built = build(intent, change, text, intent.manual);
    if (!built.ok) return built;
    if (built.text !== null) {
      text = built.text;
      changed = true;
      created.push(...built.created);
    }
  }
  return { ok: true, text: changed ? text : null, created };
}

/** Takes every change back out, last first. */
function unbuildAll(
  intent: EditIntent,
  changes: readonly Change[],
  current: string,
  created: InstallRecord['created'],
): Built | { readonly ok: true; readonly remove: true } {
  let text = current;
  let changed = false;
  for (const change of [...changes].reverse()) {
    const removed = unbuild(intent, change, text, created);
    if (!removed.ok || 'remove' in removed) return removed;
    if (removed.text !== null) {
      text = removed.text;
      changed = true;
    }
  }
  return { ok: true, text: changed ? text : null, created: [] };
}

function build(intent: EditIntent, change: Change, text: string | null, manual: readonly string[]): Built {
  switch (change.kind) {
    case 'json-append':
    case 'json-set':
      return intent.format === 'json' ? applyJson(text, change, manual) : formatMismatch(intent, manual);
    case 'toml-table':
      return intent.format === 'toml' ? applyToml(text, change, manual) : formatMismatch(intent, manual);
    case 'toml-key':
      return intent.format === 'toml' ? applyTomlKey(text, change, manual) : formatMismatch(intent, manual);
    case 'yaml-set':
      return intent.format === 'yaml' ? applyYaml(text, change, manual) : formatMismatch(intent, manual);
    case 'file':
      return intent.format === 'script' ? applyScript(text, change, manual) : formatMismatch(intent, manual);
  }
}

function unbuild(intent: EditIntent, change: Change, text: string, created: InstallRecord['created']) {
  const manual = intent.manual;
  switch (change.kind) {
    case 'json-append':
    case 'json-set':
      return removeJson(text, change, created, manual);
    case 'toml-table':
      return removeToml(text, change, manual);
    case 'toml-key':
      return removeTomlKey(text, change, manual);
    case 'yaml-set':
      return removeYaml(text, change, created, manual);
    case 'file':
      return removeScript(text, change, manual);
  }
}

function formatMismatch(intent: EditIntent, manual: readonly string[]): Built {
  return { ok: false, refusal: { code: 'unexpected_shape', message: `this change does not apply to a ${intent.format} file`, manual } };
}

type Current =
  | { readonly ok: true; readonly bytes: Buffer | null; readonly text: string | null; readonly mode: number | null }
  | { readonly ok: false; readonly refusal: Refusal };

function readCurrent(path: string, manual: readonly string[]): Current {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, bytes: null, text: null, mode: null };
    return { ok: false, refusal: ioRefusal(error, manual) };
  }
  const text = bytes.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(bytes)) {
    return { ok: false, refusal: { code: 'invalid_file', message: 'the file is not valid UTF-8; vouch edits only files it can read exactly', manual } };
  }
  return { ok: true, bytes, text, mode: statSync(path).mode & 0o7777 };
}

/** The new bytes replace the old in one rename: a reader sees one or the other, never half. */
function writeAtomically(path: string, content: string | Buffer, mode: number): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.vouch-${process.pid}.tmp`;
  try {
    writeFileSync(temp, content, { mode, flag: 'wx' });
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

function missingDirs(dir: string): string[] {
  const missing: string[] = [];
  for (let current = dir; !existsSync(current); current = dirname(current)) {
    missing.unshift(current);
    if (dirname(current) === current) break;
  }
  return missing;
}

function ioRefusal(error: unknown, manual: readonly string[]): Refusal {
  const code = (error as NodeJS.ErrnoException).code;
  return { code: 'io_error', message: `${code ?? 'error'}: ${(error as Error).message}`, manual };
}

function refused(intent: EditIntent, refusal: Refusal): EditOutcome {
  return { kind: 'refused', path: intent.path, refusal };
}

/**
 * Whether an intent is in force as it stands, read only (`vouch doctor`):
 * `in_force` when installing it would change nothing, `absent` when it
 * would make the edit, `other` when its place holds something else (another
 * vouch's hook command, a changed value), `unreadable` when the file cannot
 * be read as its format. `promised` says whether vouch has a record of
 * making it (VOUCH_HOME/installs).
 */
export function intentState(
  intent: EditIntent,
  home: string,
): { readonly state: 'in_force' | 'absent' | 'other' | 'unreadable'; readonly promised: boolean; readonly why?: string } {
  let promised = false;
  try {
    promised = readRecord(home, intent.path, intent.changes) !== undefined;
  } catch {
    promised = true;
  }
  const read = readCurrent(intent.path, intent.manual);
  if (!read.ok) return { state: 'unreadable', promised, why: read.refusal.message };
  const built = buildAll(intent, read.text);
  if (!built.ok) return { state: built.refusal.code === 'conflict' ? 'other' : 'unreadable', promised, why: built.refusal.message };
  return { state: built.text === null ? 'in_force' : 'absent', promised };
}
