/** Order-insensitive comparison of query results (rows as JSON strings). */

/** What differs between two multisets of rows; empty lists mean equal. */
export interface MultisetDiff {
  readonly expectedRows: number;
  readonly actualRows: number;
  /** Up to `limit` rows (with multiplicity) only in `expected`. */
  readonly missing: string[];
  /** Up to `limit` rows only in `actual`. */
  readonly unexpected: string[];
}

function counts(rows: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const r of rows) m.set(r, (m.get(r) ?? 0) + 1);
  return m;
}

function surplus(a: Map<string, number>, b: Map<string, number>, limit: number): string[] {
  const out: string[] = [];
  for (const [row, n] of a) {
    for (let k = b.get(row) ?? 0; k < n && out.length < limit; k++) out.push(row);
    if (out.length >= limit) break;
  }
  return out;
}

/** Compares `actual` with `expected` as multisets. */
export function multisetDiff(
  expected: readonly string[],
  actual: readonly string[],
  limit = 5,
): MultisetDiff {
  const e = counts(expected);
  const a = counts(actual);
  return {
    expectedRows: expected.length,
    actualRows: actual.length,
    missing: surplus(e, a, limit),
    unexpected: surplus(a, e, limit),
  };
}
