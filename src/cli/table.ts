/** A column of a plain-text table: numbers read best right-aligned. */
export interface Column {
  readonly header: string;
  readonly align?: 'left' | 'right';
}

/**
 * Lays out rows as fixed-width text columns separated by two spaces, header
 * first. Widths come from the content, so the table stays compact.
 */
export function renderTable(
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
): string[] {
  const widths = columns.map((c, i) =>
    Math.max(c.header.length, ...rows.map((r) => (r[i] ?? '').length)),
  );
  const line = (cells: readonly string[]): string =>
    columns
      .map((c, i) => {
        const cell = cells[i] ?? '';
        const width = widths[i]!;
        return c.align === 'right' ? cell.padStart(width) : cell.padEnd(width);
      })
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...rows.map(line)];
}
