import { applyEdits, findNodeAtLocation, modify, parseTree, type FormattingOptions } from 'jsonc-parser';
import type { Change, Json, Refusal } from './intent.js';
import { cloneValue, isPlainObject, pathText, sameValue } from './json-value.js';
import type { Built } from './plan.js';

type JsonChange = Extract<Change, { kind: 'json-append' | 'json-set' }>;

/**
 * Builds the edited JSON text in memory. The intended document is computed
 * on the parsed value first; the text is then edited in place (jsonc-parser
 * keeps the rest of the file byte for byte), parsed again and compared with
 * the intended document. Any difference refuses the edit.
 */
export function applyJson(before: string | null, change: JsonChange, manual: readonly string[]): Built {
  const parsed = parseObject(before, manual);
  if (!parsed.ok) return parsed;
  const intended = cloneValue(parsed.value);
  const created: string[][] = [];
  if (change.at.length === 0) return refuse('unexpected_shape', 'the change names no key', manual);
  const container = reach(intended, change.at.slice(0, -1), created, manual);
  if (!container.ok) return container;

  let text = before ?? '{}\n';
  const options = formatting(text);
  if (change.kind === 'json-set') {
    const key = change.at[change.at.length - 1]!;
    const current = container.value.holder[key];
    if (current !== undefined) {
      if (sameValue(current, change.value)) return { ok: true, text: null, created: [] };
      return refuse('conflict', `${pathText(change.at)} already holds another value`, manual);
    }
    container.value.holder[key] = cloneValue(change.value);
    text = applyEdits(text, modify(text, [...change.at], change.value, { formattingOptions: options }));
  } else {
    const key = change.at[change.at.length - 1]!;
    const array = container.value.holder[key];
    if (array !== undefined && !Array.isArray(array)) return refuse('unexpected_shape', `${pathText(change.at)} is not a list`, manual);
    const items: unknown[] = array ?? [];
    const missing = change.entries.filter((entry) => !items.some((item) => sameValue(item, entry)));
    if (missing.length === 0) return { ok: true, text: null, created: [] };
    const outdated = change.entries.length === 1 ? items.findIndex((item) => isEarlier(change, item)) : -1;
    if (outdated >= 0) {
      // An earlier vouch's entry, upgraded in place.
      items[outdated] = cloneValue(change.entries[0]);
      text = applyEdits(text, modify(text, [...change.at, outdated], change.entries[0], { formattingOptions: options }));
      return verify(text, intended, manual, created);
    }
    const marker = change.marker;
    const foreign = marker === undefined ? undefined : items.find((item) => JSON.stringify(item).includes(marker));
    if (foreign !== undefined) {
      return refuse('conflict', `${pathText(change.at)} already has a vouch entry that differs from this one: ${JSON.stringify(foreign)}`, manual);
    }
    if (array === undefined) {
      created.push([...change.at]);
      container.value.holder[key] = [...missing];
      text = applyEdits(text, modify(text, [...change.at], missing, { formattingOptions: options }));
    } else {
      for (const entry of missing) {
        text = appendToArray(text, change.at, entry, options);
        items.push(entry);
      }
    }
  }
  if (before === null) text = `${JSON.stringify(intended, null, 2)}\n`;
  return verify(text, intended, manual, created);
}

/**
 * Takes the change back out of the current text: the key, or the list
 * entries, and then any container the install created (per its record)
 * that is now empty; nothing else moves.
 */
export function removeJson(current: string, change: JsonChange, createdByInstall: readonly (readonly string[])[], manual: readonly string[]): Built {
  const parsed = parseObject(current, manual);
  if (!parsed.ok) return parsed;
  const intended = cloneValue(parsed.value);
  const options = formatting(current);
  let text = current;
  const holderAt = (at: readonly string[]) => {
    let node: unknown = intended;
    for (const key of at) node = isPlainObject(node) ? node[key] : undefined;
    return node;
  };
  if (change.kind === 'json-set') {
    const parent = holderAt(change.at.slice(0, -1));
    const key = change.at[change.at.length - 1]!;
    if (!isPlainObject(parent) || parent[key] === undefined) return { ok: true, text: null, created: [] };
    if (!sameValue(parent[key], change.value)) return refuse('conflict', `${pathText(change.at)} was changed since vouch set it`, manual);
    delete parent[key];
    text = applyEdits(text, modify(text, [...change.at], undefined, { formattingOptions: options }));
  } else {
    const list = holderAt(change.at);
    if (!Array.isArray(list)) return { ok: true, text: null, created: [] };
    const indexes = list.flatMap((item, i) => (change.entries.some((entry) => sameValue(item, entry)) || isEarlier(change, item) ? [i] : []));
    if (indexes.length === 0) {
      // Ours by its marker, but neither what this vouch nor an earlier one wrote: edited since, left to the person.
      const marker = change.marker;
      const edited: unknown = marker === undefined ? undefined : list.find((item) => JSON.stringify(item).includes(marker));
      if (edited !== undefined)
        return refuse(
          'conflict',
          `${pathText(change.at)} has a vouch entry that differs from the one vouch writes (edited since?): ${JSON.stringify(edited)}`,
          manual,
        );
      return { ok: true, text: null, created: [] };
    }
    for (const i of indexes.reverse()) {
      list.splice(i, 1);
      text = applyEdits(text, modify(text, [...change.at, i], undefined, { formattingOptions: options }));
    }
  }
  // Containers the install created, deepest first, go when they are empty again.
  for (const at of [...createdByInstall].sort((a, b) => b.length - a.length)) {
    const node = holderAt(at);
    const empty = Array.isArray(node) ? node.length === 0 : isPlainObject(node) && Object.keys(node).length === 0;
    const parent = holderAt(at.slice(0, -1));
    if (!empty || !isPlainObject(parent)) continue;
    delete parent[at[at.length - 1]!];
    text = applyEdits(text, modify(text, [...at], undefined, { formattingOptions: options }));
  }
  return verify(text, intended, manual, []);
}

function parseObject(text: string | null, manual: readonly string[]): { ok: true; value: Record<string, unknown> } | { ok: false; refusal: Refusal } {
  if (text === null) return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return refuse('invalid_file', `the file is not valid JSON (${(error as Error).message}); vouch edits only files it can read exactly`, manual);
  }
  if (!isPlainObject(value)) return refuse('unexpected_shape', 'the file does not hold a JSON object at the top level', manual);
  return { ok: true, value };
}

/** Walks (and creates) the objects down to `at`, refusing anything on the way that is not an object. */
function reach(
  root: Record<string, unknown>,
  at: readonly string[],
  created: string[][],
  manual: readonly string[],
): { ok: true; value: { holder: Record<string, unknown> } } | { ok: false; refusal: Refusal } {
  let node = root;
  for (let i = 0; i < at.length; i++) {
    const key = at[i]!;
    const next = node[key];
    if (next === undefined) {
      node[key] = {};
      created.push(at.slice(0, i + 1));
    } else if (!isPlainObject(next)) {
      return refuse(
        'unexpected_shape',
        `${pathText(at.slice(0, i + 1))} is ${Array.isArray(next) ? 'a list' : typeof next}, where vouch expects an object`,
        manual,
      );
    }
    node = node[key] as Record<string, unknown>;
  }
  return { ok: true, value: { holder: node } };
}

function verify(text: string, intended: unknown, manual: readonly string[], created: string[][]): Built {
  let reparsed: unknown;
  try {
    reparsed = JSON.parse(text);
  } catch (error) {
    return refuse('verify_mismatch', `the edited text would not be valid JSON (${(error as Error).message})`, manual);
  }
  if (!sameValue(reparsed, intended))
    return refuse('verify_mismatch', 'the edited file, parsed again, differs from the intended change in another place', manual);
  return { ok: true, text, created };
}

/**
 * Appends one element after the last element of an array, in the style of
 * that element's line. (jsonc-parser's own array insertion reformats the
 * whole array, which would rewrite the user's lines.)
 */
function appendToArray(text: string, at: readonly string[], entry: unknown, options: FormattingOptions): string {
  const tree = parseTree(text);
  const array = tree ? findNodeAtLocation(tree, [...at]) : undefined;
  const last = array?.children?.[array.children.length - 1];
  if (!array || !last) return applyEdits(text, modify(text, [...at, 0], entry, { formattingOptions: options, isArrayInsertion: true }));
  const lineStart = text.lastIndexOf('\n', last.offset) + 1;
  const lead = text.slice(lineStart, last.offset);
  const end = last.offset + last.length;
  // The last element shares its line with other text: add the new one on that line too.
  if (!/^[ \t]*$/.test(lead)) return `${text.slice(0, end)}, ${JSON.stringify(entry)}${text.slice(end)}`;
  const unit = options.insertSpaces ? ' '.repeat(options.tabSize ?? 2) : '\t';
  const eol = options.eol ?? '\n';
  const body = JSON.stringify(entry, null, unit).split('\n').join(`${eol}${lead}`);
  return `${text.slice(0, end)},${eol}${lead}${body}${text.slice(end)}`;
}

/** Keeps the file's own indentation and line endings. */
function formatting(text: string): FormattingOptions {
  const indent = /\n([ \t]+)\S/.exec(text)?.[1] ?? '  ';
  return { insertSpaces: !indent.startsWith('\t'), tabSize: indent.startsWith('\t') ? 1 : indent.length, eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

function refuse(code: Refusal['code'], message: string, manual: readonly string[]): { ok: false; refusal: Refusal } {
  return { ok: false, refusal: { code, message, manual } };
}

export type { Json };

/** An element an earlier vouch wrote for this change. */
function isEarlier(change: Extract<JsonChange, { kind: 'json-append' }>, item: unknown): boolean {
  return (change.earlier ?? []).some((entry) => sameValue(item, entry));
}
