/** Left-aligned columns; colour codes do not count towards widths. */
export function table(rows: readonly (readonly string[])[], indent = '  '): string {
  const visible = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '').length;
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      if (i < row.length - 1) widths[i] = Math.max(widths[i] ?? 0, visible(cell));
    });
  }
  return rows
    .map((row) => indent + row.map((cell, i) => (i < row.length - 1 ? cell + ' '.repeat((widths[i] ?? 0) - visible(cell)) : cell)).join('  ').trimEnd())
    .join('\n');
}
