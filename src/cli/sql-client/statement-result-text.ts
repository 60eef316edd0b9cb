/** SHOW and DESCRIBE answers as the SQL client and `weir sql -f` print them (Flink's boxed tables). */
import type { StatementResult } from '../../sql/catalog/catalog-statements.js';

/**
 * A boxed table with a row count, as Flink's SQL client prints a TableResult; a SHOW CREATE's
 * one statement as plain text (it spans lines); `Empty set` for no rows.
 */
export function statementResultText(result: StatementResult): string {
  if (result.columns.length === 1 && result.columns[0] === 'result')
    return result.rows.map((r) => r[0] ?? '').join('\n');
  if (result.rows.length === 0) return 'Empty set';
  const widths = result.columns.map((c, i) =>
    Math.max(c.length, ...result.rows.map((r) => (r[i] ?? '').length)),
  );
  const border = `+${widths.map((w) => '-'.repeat(w + 2)).join('+')}+`;
  const line = (cells: readonly string[]): string =>
    `|${widths.map((w, i) => ` ${(cells[i] ?? '').padEnd(w)} `).join('|')}|`;
  const count = `${result.rows.length} ${result.rows.length === 1 ? 'row' : 'rows'} in set`;
  return [border, line(result.columns), border, ...result.rows.map(line), border, count].join('\n');
}
