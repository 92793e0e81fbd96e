import { isMap, isPair, isScalar, isSeq, type Document, type LineCounter, type Node } from 'yaml';

export interface Location {
  readonly line: number;
  readonly col: number;
  /**
   * What is there, as its YAML type: a number, boolean or null as itself (so
   * it is shown as 5, not "5"), a string as the string, a list or mapping as
   * its source text, shortened; undefined when nothing is there.
   */
  readonly found?: string | number | boolean | null;
}

/**
 * Finds the YAML node at a schema path so a message can name line and column.
 * When the path does not exist (a missing key), the nearest existing
 * ancestor is used: that is where the key has to be added.
 */
export function locate(text: string, doc: Document, lines: LineCounter, path: readonly (string | number)[], atKey = false): Location {
  let node: unknown = doc.contents;
  let keyNode: Node | undefined;
  let exact = true;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && item.key.value === segment);
      if (!pair) {
        exact = false;
        break;
      }
      keyNode = pair.key as Node;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number' && node.items[segment] !== undefined) {
      keyNode = undefined;
      node = node.items[segment];
    } else {
      exact = false;
      break;
    }
  }
  const target = (atKey && exact && keyNode ? keyNode : node) as Node | null | undefined;
  const offset = target?.range?.[0] ?? 0;
  const { line, col } = lines.linePos(offset);
  if (!exact || !target?.range) return { line, col };
  return { line, col, found: valueOf(target, text) };
}

function valueOf(node: Node, text: string): string | number | boolean | null {
  if (isScalar(node)) {
    const value: unknown = node.value;
    if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
    if (typeof value === 'string') return shorten(value);
  }
  const [start, end] = node.range ?? [0, 0];
  return shorten(text.slice(start, end));
}

function shorten(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > 60 ? `${oneLine.slice(0, 57)}...` : oneLine;
}
