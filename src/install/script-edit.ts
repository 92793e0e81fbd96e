import type { Change } from './intent.js';
import type { Built } from './plan.js';

type FileChange = Extract<Change, { kind: 'file' }>;

/** A file vouch owns whole: written where there is none; refused over anyone else's. */
export function applyScript(before: string | null, change: FileChange, manual: readonly string[]): Built {
  if (before === null) return { ok: true, text: change.content, created: [] };
  if (before === change.content) return { ok: true, text: null, created: [] };
  return { ok: false, refusal: { code: 'conflict', message: 'a different file is already there; vouch does not overwrite or merge it', manual } };
}

/** Removing it: only when it is still exactly what vouch wrote. `text: ''` with `remove` means delete the file. */
export function removeScript(current: string, change: FileChange, manual: readonly string[]): Built | { readonly ok: true; readonly remove: true } {
  if (current === change.content) return { ok: true, remove: true };
  if (!current.includes(change.content.trim().split('\n').pop() ?? '\u0000')) return { ok: true, text: null, created: [] };
  return { ok: false, refusal: { code: 'conflict', message: 'the file was changed since vouch wrote it; vouch does not edit it', manual } };
}
