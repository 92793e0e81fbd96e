import { isScalar, parseAllDocuments, parseDocument, type Document, type Node, type Pair, type YAMLMap } from 'yaml';
import type { Change, Refusal } from './intent.js';
import { cloneValue, isPlainObject, pathText, sameValue, valueAt } from './json-value.js';
import type { Built } from './plan.js';
import { blockLines, column, contentEnd, detectStyle, lineAfter, pairLines, unsupported, YAML_OPTIONS, type Style } from './yaml-layout.js';

type YamlChange = Extract<Change, { kind: 'yaml-set' }>;

/**
 * Sets a key in a YAML file (e.g. mcp_servers.vouch) by adding block lines
 * after the last entry of the mapping that holds it: the document is parsed
 * with the yaml package, the place is found from its source ranges, and
 * every other byte (comments, blank lines, the user's own indentation and
 * quoting) stays as it was. The intended document is computed on the parsed
 * value; the edited text is parsed again and compared with it. A shape the
 * edit would have to rewrite, or whose meaning lives elsewhere (anchors,
 * aliases and merge keys on the path, flow mappings, several documents), is
 * refused, not guessed at.
 */
export function applyYaml(before: string | null, change: YamlChange, manual: readonly string[]): Built {
  if (change.at.length === 0) return refuse('unexpected_shape', 'the change names no key', manual);
  const text = before ?? '';
  const parsed = parseYaml(text, 'invalid_file', manual);
  if (!parsed.ok) return parsed;
  const style = detectStyle(text, parsed.doc.contents);
  const found = locate(text, parsed.doc, change.at, style, manual);
  if (found.kind === 'refused') return found.refusal;
  if (found.kind === 'present') {
    if (sameValue(valueAt(parsed.value, change.at), change.value)) return { ok: true, text: null, created: [] };
    return refuse('conflict', `${pathText(change.at)} already holds another value`, manual);
  }

  const intended = cloneValue(parsed.value);
  let holder: Record<string, unknown> = intended;
  for (const key of change.at.slice(0, -1)) {
    if (holder[key] === undefined || holder[key] === null) holder[key] = {};
    const next = holder[key];
    if (!isPlainObject(next)) return refuse('unexpected_shape', `${pathText(change.at)} cannot be reached through a mapping`, manual);
    holder = next;
  }
  holder[change.at[change.at.length - 1]!] = cloneValue(change.value);

  // The keys still missing, from the first absent one down, as one nested block.
  const rest = change.at.slice(found.depth);
  const nested = rest.reduceRight<unknown>((inner, key) => ({ [key]: inner }), change.value);
  const lead = found.offset === text.length && text !== '' && !text.endsWith('\n') ? style.eol : '';
  const edited = text.slice(0, found.offset) + lead + blockLines(nested, found.column, style) + text.slice(found.offset);
  const created = change.at.slice(found.depth, -1).map((_, i) => change.at.slice(0, found.depth + i + 1));
  return verify(edited, intended, manual, created);
}

/**
 * Takes the key back out: its lines, and the lines of any mapping the
 * install created for it that would be left empty. Refused when the value
 * was changed since vouch set it.
 */
export function removeYaml(current: string, change: YamlChange, createdByInstall: readonly (readonly string[])[], manual: readonly string[]): Built {
  const parsed = parseYaml(current, 'invalid_file', manual);
  if (!parsed.ok) return parsed;
  const found = locate(current, parsed.doc, change.at, detectStyle(current, parsed.doc.contents), manual);
  if (found.kind === 'refused') return found.refusal;
  if (found.kind === 'absent') return { ok: true, text: null, created: [] };
  if (!sameValue(valueAt(parsed.value, change.at), change.value)) return refuse('conflict', `${pathText(change.at)} was changed since vouch set it`, manual);

  // Climb to the outermost mapping that holds only this entry and that the install created.
  const created = new Set(createdByInstall.map((at) => JSON.stringify(at)));
  let level = change.at.length - 1;
  while (level > 0 && found.chain[level]!.map.items.length === 1 && created.has(JSON.stringify(change.at.slice(0, level)))) level--;
  const lines = pairLines(current, found.chain[level]!.pair);
  if (lines === null)
    return refuse('unexpected_shape', `${pathText(change.at.slice(0, level + 1))} shares its line with other content; remove it by hand`, manual);

  const intended = cloneValue(parsed.value);
  const parent = valueAt(intended, change.at.slice(0, level)) as Record<string, unknown>;
  delete parent[change.at[level]!];
  // A block mapping left with no entries reads as null, its key kept.
  if (level > 0 && Object.keys(parent).length === 0)
    (valueAt(intended, change.at.slice(0, level - 1)) as Record<string, unknown>)[change.at[level - 1]!] = null;
  return verify(current.slice(0, lines.start) + current.slice(lines.end), intended, manual, []);
}

type Located =
  | { readonly kind: 'present'; readonly chain: readonly { readonly map: YAMLMap; readonly pair: Pair }[] }
  /** The key at `depth` is the first one missing; its block goes at `offset`, indented `column` spaces. */
  | { readonly kind: 'absent'; readonly depth: number; readonly offset: number; readonly column: number }
  | { readonly kind: 'refused'; readonly refusal: { ok: false; refusal: Refusal } };

/** Follows `at` through block mappings, refusing any node on the way that vouch would have to rewrite or that means something elsewhere. */
function locate(text: string, doc: Document, at: readonly string[], style: Style, manual: readonly string[]): Located {
  let node = doc.contents as unknown;
  const chain: { map: YAMLMap; pair: Pair }[] = [];
  for (const [depth, key] of at.entries()) {
    // An empty document (or only comments): the block goes at the end.
    if (depth === 0 && node === null) return { kind: 'absent', depth, offset: text.length, column: 0 };
    const why = unsupported(node);
    if (why) return { kind: 'refused', refusal: refuse('unexpected_shape', `${depth === 0 ? 'the top level' : pathText(at.slice(0, depth))} ${why}`, manual) };
    const map = node as YAMLMap;
    const pair = map.items.find((item) => isScalar(item.key) && String(item.key.value) === key);
    const first = map.items[0]?.key as Node | undefined;
    if (pair === undefined) {
      if (!first?.range)
        return { kind: 'refused', refusal: refuse('unexpected_shape', `${pathText(at.slice(0, depth))} has no entry to place a new one after`, manual) };
      return { kind: 'absent', depth, offset: lineAfter(text, contentEnd(map)), column: column(text, first.range[0]) };
    }
    if (typeof (pair.key as { value: unknown }).value !== 'string') {
      return {
        kind: 'refused',
        refusal: refuse(
          'unexpected_shape',
          `${pathText(at.slice(0, depth + 1))} is written as a ${typeof (pair.key as { value: unknown }).value} key, not a string`,
          manual,
        ),
      };
    }
    chain.push({ map, pair });
    if (depth === at.length - 1) return { kind: 'present', chain };
    const value = pair.value as Node | null;
    // `key:` with nothing after it: the block goes on the next line, one level in.
    if (value === null || (isScalar(value) && value.value === null && value.range?.[0] === value.range?.[1])) {
      const keyStart = (pair.key as Node).range![0];
      return { kind: 'absent', depth: depth + 1, offset: lineAfter(text, contentEnd(pair)), column: column(text, keyStart) + style.indent };
    }
    node = value;
  }
  return { kind: 'refused', refusal: refuse('unexpected_shape', 'the change names no key', manual) };
}

type ParsedYaml = { ok: true; doc: Document; value: Record<string, unknown> } | { ok: false; refusal: Refusal };

function parseYaml(text: string, code: 'invalid_file' | 'verify_mismatch', manual: readonly string[]): ParsedYaml {
  const what = code === 'invalid_file' ? 'the file is not valid YAML' : 'the edited text would not be valid YAML';
  const docs = parseAllDocuments(text, YAML_OPTIONS);
  if (docs.length > 1) return refuse('unexpected_shape', `the file holds ${docs.length} YAML documents; vouch edits a file with one`, manual);
  const doc = docs[0] ?? parseDocument(text, YAML_OPTIONS);
  const error = doc.errors[0];
  if (error) return refuse(code, `${what} (${error.message.split('\n')[0]!.replace(/:$/, '')}); vouch edits only files it can read exactly`, manual);
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (thrown) {
    return refuse(code, `${what} (${(thrown as Error).message})`, manual);
  }
  // An empty file and an empty mapping are the same configuration.
  if (value === null || value === undefined) value = {};
  if (!isPlainObject(value)) return refuse('unexpected_shape', 'the file does not hold a mapping at the top level', manual);
  return { ok: true, doc, value };
}

function verify(text: string, intended: unknown, manual: readonly string[], created: readonly (readonly string[])[]): Built {
  const reparsed = parseYaml(text, 'verify_mismatch', manual);
  if (!reparsed.ok) return reparsed;
  if (!sameValue(reparsed.value, intended))
    return refuse('verify_mismatch', 'the edited file, parsed again, differs from the intended change in another place', manual);
  return { ok: true, text, created };
}

function refuse(code: Refusal['code'], message: string, manual: readonly string[]): { ok: false; refusal: Refusal } {
  return { ok: false, refusal: { code, message, manual } };
}
