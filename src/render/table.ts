import { displayWidth } from './terminal.js';
import { oneLine } from './visible.js';

/**
 * Left-aligned columns. A row is one line: a cell cannot break it (a newline
 * in a file name or an id is shown escaped), and widths count what is shown,
 * not vouch's colour tokens.
 */
export function table(rows: readonly (readonly string[])[], indent = '  '): string {
  const lines = rows.map((row) => row.map(oneLine));
  const widths: number[] = [];
  for (const row of lines) {
    row.forEach((cell, i) => {
      if (i < row.length - 1) widths[i] = Math.max(widths[i] ?? 0, displayWidth(cell));
    });
  }
  return lines
    .map(
      (row) =>
        indent +
        row
          .map((cell, i) => (i < row.length - 1 ? cell + ' '.repeat((widths[i] ?? 0) - displayWidth(cell)) : cell))
          .join('  ')
          .trimEnd(),
    )
    .join('\n');
}
