import { Document, isAlias, isMap, isPair, isScalar, isSeq, type Node, type Pair } from 'yaml';

/*
 * Where things are in a YAML file's text, read from the parsed document's
 * source ranges, so an edit can add or remove whole lines and leave every
 * other byte alone. (The yaml package's own toString() re-serialises the
 * whole document: it keeps comments, but re-indents lists, respaces flow
 * collections and trailing comments, and drops blank lines.)
 */

/** YAML 1.1: what PyYAML reads, and so Hermes. Its booleans (yes, on...) are quoted when vouch writes them as strings. */
export const YAML_OPTIONS = { version: '1.1', uniqueKeys: true, prettyErrors: true } as const;

/** The column a source offset is at. */
export function column(text: string, offset: number): number {
  const start = lineStart(text, offset);
  // A byte order mark is not indentation.
  return offset - start - (start === 0 && text.startsWith('\uFEFF') ? 1 : 0);
}

export function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/**
 * The start of the line after the one holding the character before `end`:
 * where a new line goes after content that ends at `end`, past any comment
 * on the same line. A block scalar's range already ends after its newline,
 * so the line it points into is not split. The text's length at the end of
 * a file without a final newline.
 */
export function lineAfter(text: string, end: number): number {
  const newline = text.indexOf('\n', Math.max(end - 1, 0));
  return newline < 0 ? text.length : newline + 1;
}

/**
 * Where the content of a node ends: its last scalar or closing bracket, not
 * the comments and blank lines a block collection's range runs on to.
 */
export function contentEnd(node: Node | Pair | null | undefined): number {
  if (node === null || node === undefined) return 0;
  if (isPair(node)) return Math.max(contentEnd(node.key as Node | null), contentEnd(node.value as Node | null));
  if ((isMap(node) || isSeq(node)) && !node.flow) {
    const last = node.items[node.items.length - 1] as Node | Pair | undefined;
    return last === undefined ? (node.range?.[1] ?? 0) : contentEnd(last);
  }
  return node.range?.[1] ?? 0;
}

/** The lines a pair occupies, from the start of its key's line to the line after its content; null when its key shares a line with something else. */
export function pairLines(text: string, pair: Pair): { readonly start: number; readonly end: number } | null {
  const keyStart = (pair.key as Node).range?.[0];
  if (keyStart === undefined) return null;
  const start = lineStart(text, keyStart);
  if (!/^[ \t]*$/.test(text.slice(start, keyStart))) return null;
  return { start, end: lineAfter(text, contentEnd(pair)) };
}

export interface Style {
  /** Spaces per nesting level. */
  readonly indent: number;
  /** Whether "- item" is indented under its key (true) or level with it (false). */
  readonly indentSeq: boolean;
  readonly eol: '\n' | '\r\n';
}

/** The file's own indentation step, list style and line ending, from its first nested mapping and list. */
export function detectStyle(text: string, root: Node | null): Style {
  let indent: number | undefined;
  let indentSeq: boolean | undefined;
  const visit = (node: unknown, depth: number) => {
    if (depth > 32 || !isMap(node) || node.flow) return;
    for (const pair of node.items) {
      const key = pair.key as Node | null;
      const value = pair.value as Node | null;
      const keyStart = key?.range?.[0];
      if (keyStart === undefined || !value?.range) continue;
      if (isMap(value) && !value.flow && indent === undefined) {
        const first = value.items[0]?.key as Node | undefined;
        const step = first?.range ? column(text, first.range[0]) - column(text, keyStart) : 0;
        if (step > 0) indent = step;
      }
      if (isSeq(value) && !value.flow && indentSeq === undefined) indentSeq = column(text, value.range[0]) > column(text, keyStart);
      visit(value, depth + 1);
    }
  };
  visit(root, 0);
  return { indent: indent ?? 2, indentSeq: indentSeq ?? true, eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

/** `value` as block YAML lines at `indent` columns, in the file's style, ending with a line break. */
export function blockLines(value: unknown, indent: number, style: Style): string {
  const rendered = new Document(value, { version: YAML_OPTIONS.version }).toString({ indent: style.indent, indentSeq: style.indentSeq, lineWidth: 0 });
  const pad = ' '.repeat(indent);
  return rendered
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => (line === '' ? line : pad + line))
    .join(style.eol)
    .concat(style.eol);
}

/** Why a node on the edited path is not one vouch edits, or null when it is a block mapping it can add lines to. */
export function unsupported(node: unknown): string | null {
  if (isAlias(node)) return 'is an alias (*name) of another node; adding to it would change what it refers to';
  if (!isMap(node))
    return isSeq(node) ? 'is a list, where vouch expects a mapping' : isScalar(node) ? 'is a single value, where vouch expects a mapping' : 'is not a mapping';
  if (node.anchor) return `carries an anchor (&${node.anchor}); every alias of it would change too`;
  if (node.flow) return 'is a flow mapping ({...}); vouch would have to rewrite it';
  if (node.items.some((pair) => isScalar(pair.key) && (typeof pair.key.value === 'symbol' || pair.key.value === '<<'))) {
    return 'uses a merge key (<<); what it holds is partly elsewhere';
  }
  return null;
}
