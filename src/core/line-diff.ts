/** One line of a diff: kept, added or removed. */
export interface DiffLine {
  readonly kind: ' ' | '+' | '-';
  readonly text: string;
}

/** Past this many lines on either side, no line diff is computed (the table would be too large): the caller says the text changed. */
export const MAX_DIFF_LINES = 4000;

/**
 * The lines of `before` and `after` as a minimal edit (longest common
 * subsequence), or null when either side is longer than MAX_DIFF_LINES.
 * A spec is a few dozen lines; the quadratic table is small.
 */
export function lineDiff(before: string, after: string): DiffLine[] | null {
  const a = splitLines(before);
  const b = splitLines(after);
  if (a.length > MAX_DIFF_LINES || b.length > MAX_DIFF_LINES) return null;
  const width = b.length + 1;
  const table = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i * width + j] = a[i] === b[j] ? table[(i + 1) * width + j + 1]! + 1 : Math.max(table[(i + 1) * width + j]!, table[i * width + j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push({ kind: ' ', text: a[i++]! });
      j++;
    } else if (j < b.length && (i === a.length || table[i * width + j + 1]! >= table[(i + 1) * width + j]!)) {
      out.push({ kind: '+', text: b[j++]! });
    } else {
      out.push({ kind: '-', text: a[i++]! });
    }
  }
  return out;
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}
