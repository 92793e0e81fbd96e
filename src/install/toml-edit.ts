import { parse, stringify } from 'smol-toml';
import type { Change, Refusal } from './intent.js';
import { cloneValue, isPlainObject, pathText, sameValue, valueAt } from './json-value.js';
import type { Built } from './plan.js';

type TomlChange = Extract<Change, { kind: 'toml-table' }>;
type TomlKeyChange = Extract<Change, { kind: 'toml-key' }>;

/**
 * Adds a table (e.g. [mcp_servers.vouch]) at the end of a TOML file: the
 * rest of the file, comments and order included, is not touched. The result
 * is parsed again and compared with the intended document; a file whose
 * shape would make the appended table mean something else (an inline table
 * of the same name, a key of that name) is refused, not guessed at.
 */
export function applyToml(before: string | null, change: TomlChange, manual: readonly string[]): Built {
  const parsed = parseToml(before, manual);
  if (!parsed.ok) return parsed;
  const intended = cloneValue(parsed.value) as Record<string, unknown>;
  let node: Record<string, unknown> = intended;
  for (const [i, key] of change.at.entries()) {
    const next = node[key];
    if (i === change.at.length - 1) {
      if (next === undefined) node[key] = cloneValue(change.value);
      else if (sameValue(next, change.value)) return { ok: true, text: null, created: [] };
      else return refuse('conflict', `${pathText(change.at)} already exists with other settings`, manual);
      break;
    }
    if (next === undefined) node[key] = {};
    else if (!isPlainObject(next)) return refuse('unexpected_shape', `${pathText(change.at.slice(0, i + 1))} is not a table`, manual);
    node = node[key] as Record<string, unknown>;
  }
  const text = `${separated(before ?? '')}${tableText(change)}`;
  return verify(text, intended, manual);
}

/**
 * Removes the table block vouch appended; refused when its settings were
 * changed since. A table that existed only as the appended header's parent
 * ([mcp_servers.vouch] defines mcp_servers) goes with it when nothing else is
 * in it, whichever install added it.
 */
export function removeToml(current: string, change: TomlChange, manual: readonly string[]): Built {
  const parsed = parseToml(current, manual);
  if (!parsed.ok) return parsed;
  const intended = cloneValue(parsed.value) as Record<string, unknown>;
  let parent: unknown = intended;
  for (const key of change.at.slice(0, -1)) parent = isPlainObject(parent) ? parent[key] : undefined;
  const last = change.at[change.at.length - 1]!;
  if (!isPlainObject(parent) || parent[last] === undefined) return { ok: true, text: null, created: [] };
  if (!sameValue(parent[last], change.value)) return refuse('conflict', `${pathText(change.at)} was changed since vouch added it`, manual);
  delete parent[last];
  const block = tableText(change);
  const at = current.lastIndexOf(block);
  if (at < 0) return refuse('unexpected_shape', `${pathText(change.at)} is not written the way vouch wrote it; remove it by hand`, manual);
  let start = at;
  // The blank line vouch put before its table goes with it.
  if (current.slice(0, start).endsWith('\n\n')) start -= 1;
  const text = current.slice(0, start) + current.slice(at + block.length);
  // Parents left empty: gone from the text when no header of their own defined them, which the re-parse shows.
  const reparsed = parseToml(text, manual);
  for (let depth = change.at.length - 1; reparsed.ok && depth > 0; depth--) {
    const holder = valueAt(intended, change.at.slice(0, depth - 1));
    const key = change.at[depth - 1]!;
    const table = isPlainObject(holder) ? holder[key] : undefined;
    if (!isPlainObject(holder) || !isPlainObject(table) || Object.keys(table).length > 0) break;
    if (valueAt(reparsed.value, change.at.slice(0, depth)) === undefined) delete holder[key];
  }
  return verify(text, intended, manual);
}

/**
 * Sets a top-level key (Codex's `default_permissions`) by writing it as the
 * file's first line: above every table header, so it is the document's own
 * key whatever follows. The same value already there: nothing to do; another
 * value: refused, never overwritten.
 */
export function applyTomlKey(before: string | null, change: TomlKeyChange, manual: readonly string[]): Built {
  const parsed = parseToml(before, manual);
  if (!parsed.ok) return parsed;
  const intended = cloneValue(parsed.value) as Record<string, unknown>;
  const current = intended[change.at[0]];
  if (current === change.value) return { ok: true, text: null, created: [] };
  if (current !== undefined) return refuse('conflict', `${change.at[0]} is already set to ${JSON.stringify(current)}`, manual);
  intended[change.at[0]] = change.value;
  return verify(`${keyLine(change)}${before ?? ''}`, intended, manual);
}

/** Takes out the line applyTomlKey wrote; refused when the key now holds another value. */
export function removeTomlKey(current: string, change: TomlKeyChange, manual: readonly string[]): Built {
  const parsed = parseToml(current, manual);
  if (!parsed.ok) return parsed;
  const intended = cloneValue(parsed.value) as Record<string, unknown>;
  if (intended[change.at[0]] === undefined) return { ok: true, text: null, created: [] };
  if (intended[change.at[0]] !== change.value) return refuse('conflict', `${change.at[0]} was changed since vouch set it`, manual);
  delete intended[change.at[0]];
  const line = keyLine(change);
  const after = current.indexOf(`\n${line}`);
  const at = current.startsWith(line) ? 0 : after < 0 ? -1 : after + 1;
  if (at < 0) return refuse('unexpected_shape', `${change.at[0]} is not written the way vouch wrote it; remove it by hand`, manual);
  return verify(current.slice(0, at) + current.slice(at + line.length), intended, manual);
}

function keyLine(change: TomlKeyChange): string {
  return stringify({ [change.at[0]]: change.value })
    .replace(/^\n+/, '')
    .replace(/\n*$/, '\n');
}

function tableText(change: TomlChange): string {
  let nested: Record<string, unknown> = { ...change.value };
  for (const key of [...change.at].reverse()) nested = { [key]: nested };
  return stringify(nested).replace(/^\n+/, '').replace(/\n*$/, '\n');
}

function separated(text: string): string {
  if (text === '') return '';
  return text.endsWith('\n\n') ? text : text.endsWith('\n') ? `${text}\n` : `${text}\n\n`;
}

function parseToml(text: string | null, manual: readonly string[]): { ok: true; value: unknown } | { ok: false; refusal: Refusal } {
  if (text === null) return { ok: true, value: {} };
  try {
    return { ok: true, value: parse(text) };
  } catch (error) {
    return refuse(
      'invalid_file',
      `the file is not valid TOML (${(error as Error).message.split('\n')[0]}); vouch edits only files it can read exactly`,
      manual,
    );
  }
}

function verify(text: string, intended: unknown, manual: readonly string[]): Built {
  let reparsed: unknown;
  try {
    reparsed = parse(text);
  } catch (error) {
    return refuse('verify_mismatch', `the edited text would not be valid TOML (${(error as Error).message.split('\n')[0]})`, manual);
  }
  if (!sameValue(reparsed, intended))
    return refuse('verify_mismatch', 'the edited file, parsed again, differs from the intended change in another place', manual);
  return { ok: true, text, created: [] };
}

function refuse(code: Refusal['code'], message: string, manual: readonly string[]): { ok: false; refusal: Refusal } {
  return { ok: false, refusal: { code, message, manual } };
}
