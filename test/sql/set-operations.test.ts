/**
 * UNION, INTERSECT and EXCEPT, DISTINCT and ALL. Oracle tests over fast-check inputs: after
 * applying the changelog, the result equals a batch computation of the multiset operation,
 * over insert-only inputs and over changing ones (a GROUP BY underneath, whose rows update,
 * and a GROUP BY over a GROUP BY, whose rows are also deleted), at parallelism 1 and 2.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { finalRows } from './query-changes.js';

type Cell = number | null;
type Pair = readonly [Cell, Cell];

const cellArb = fc.option(fc.integer({ min: 0, max: 3 }), { nil: null, freq: 5 });
const rowsArb = fc.array(fc.tuple(cellArb, cellArb), { minLength: 1, maxLength: 25 });

/** A view `name (k, v)` over VALUES of INT cells. */
function view(name: string, rows: readonly Pair[]): string {
  const cell = (c: Cell) => (c === null ? 'CAST(NULL AS INT)' : String(c));
  const values = rows.map(([k, v]) => `(${cell(k)}, ${cell(v)})`).join(', ');
  return `CREATE TEMPORARY VIEW ${name} AS SELECT EXPR$0 AS k, EXPR$1 AS v FROM (VALUES ${values});`;
}

const OPS = ['UNION', 'INTERSECT', 'INTERSECT ALL', 'EXCEPT', 'EXCEPT ALL'] as const;
type Op = (typeof OPS)[number];

/** The three inputs of each side: its rows, its counts per k, and the number of k per count. */
const SHAPES = {
  rows: (t: string) => `SELECT k, v FROM ${t}`,
  counts: (t: string) => `SELECT k, COUNT(*) AS c FROM ${t} GROUP BY k`,
  countsOfCounts: (t: string) =>
    `SELECT c, COUNT(*) AS n FROM (SELECT k, COUNT(*) AS c FROM ${t} GROUP BY k) GROUP BY c`,
} as const;
type Shape = keyof typeof SHAPES;

/** Each shape computed in batch, as JSON texts of rows (a multiset). */
function batch(shape: Shape, rows: readonly Pair[]): string[] {
  if (shape === 'rows') return rows.map((r) => JSON.stringify(r));
  const counts = new Map<Cell, number>();
  for (const [k] of rows) counts.set(k, (counts.get(k) ?? 0) + 1);
  if (shape === 'counts') return [...counts].map((r) => JSON.stringify(r));
  const perCount = new Map<number, number>();
  for (const c of counts.values()) perCount.set(c, (perCount.get(c) ?? 0) + 1);
  return [...perCount].map((r) => JSON.stringify(r));
}

/** The multiset operation in batch. */
function oracle(op: Op, left: readonly string[], right: readonly string[]): string[] {
  const count = (rows: readonly string[]) => {
    const m = new Map<string, number>();
    for (const r of rows) m.set(r, (m.get(r) ?? 0) + 1);
    return m;
  };
  const l = count(left);
  const r = count(right);
  const out: string[] = [];
  const keys = new Set([...l.keys(), ...r.keys()]);
  for (const row of keys) {
    const a = l.get(row) ?? 0;
    const b = r.get(row) ?? 0;
    const copies =
      op === 'UNION'
        ? 1
        : op === 'INTERSECT'
          ? Math.min(a, b, 1)
          : op === 'INTERSECT ALL'
            ? Math.min(a, b)
            : op === 'EXCEPT'
              ? a > 0 && b === 0
                ? 1
                : 0
              : Math.max(a - b, 0);
    for (let i = 0; i < copies; i++) out.push(row);
  }
  return out.sort();
}

const CASES = (Object.keys(SHAPES) as Shape[]).flatMap((shape) =>
  OPS.map((op) => ({ shape, op, sql: `${SHAPES[shape]('a')} ${op} ${SHAPES[shape]('b')}` })),
);

describe('set operations', () => {
  for (const parallelism of [1, 2]) {
    it(`equal the batch multiset operations over insert-only and changing inputs (parallelism ${parallelism})`, async () => {
      await fc.assert(
        fc.asyncProperty(rowsArb, rowsArb, async (a, b) => {
          const rows = await finalRows(
            view('a', a) + view('b', b),
            CASES.map((c) => c.sql),
            parallelism,
          );
          CASES.forEach((c, i) => {
            const expected = oracle(c.op, batch(c.shape, a), batch(c.shape, b));
            expect(rows[i], c.sql).toEqual(expected);
          });
        }),
        { numRuns: 12 },
      );
    }, 120_000);
  }

  it('refuses sides of different widths or types, naming the column', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    tEnv.executeSql(view('a', [[1, 2]]) + view('b', [[1, 2]]));
    expect(() => tEnv.sqlQuery('SELECT k FROM a INTERSECT SELECT k, v FROM b')).toThrow(
      'INTERSECT of 1 and 2 columns',
    );
    expect(() =>
      tEnv.sqlQuery("SELECT k FROM a EXCEPT ALL SELECT DATE '2026-01-01' FROM b"),
    ).toThrow(/EXCEPT ALL column 1: INT NOT NULL and DATE NOT NULL have no common type/);
  });
});
