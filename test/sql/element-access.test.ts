/**
 * Element access as Flink: `a[i]` counts from 1 and is NULL out of range, `m[k]` is NULL for a
 * missing key, `a[i].f` and `(expr).f` read ROW fields. Compiled expressions against a plain
 * computation (fast-check), their types, the refusals with line and column, and the forms in
 * projections, filters, GROUP BY keys and join conditions against a batch computation.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Change, type Row, SqlError } from '../../src/index.js';
import { compileScalar } from '../../src/sql/expressions/compile.js';
import { Scope } from '../../src/sql/expressions/scope.js';
import { parseExpression } from '../../src/sql/parser/parser.js';
import { formatType, type LogicalType, T } from '../../src/sql/types/logical-type.js';
import { materialize } from '../changelog/helpers.js';
import { queryChanges } from './query-changes.js';

const LINE: LogicalType = {
  kind: 'ROW',
  nullable: true,
  fields: [
    { name: 'sku', type: T.string() },
    { name: 'qty', type: T.int() },
  ],
};
const scope = new Scope([
  {
    name: 'tags',
    type: { kind: 'ARRAY', nullable: true, element: T.string() },
    qualifier: 't',
    rowtime: false,
  },
  { name: 'i', type: T.int(), qualifier: 't', rowtime: false },
  {
    name: 'attrs',
    type: { kind: 'MAP', nullable: true, key: T.string(), value: T.bigint() },
    qualifier: 't',
    rowtime: false,
  },
  { name: 'k', type: T.string(), qualifier: 't', rowtime: false },
  {
    name: 'lines',
    type: { kind: 'ARRAY', nullable: true, element: LINE },
    qualifier: 't',
    rowtime: false,
  },
]);

const compiled = (sql: string) => compileScalar(parseExpression(sql), scope);
const evaluate = (sql: string, row: unknown[]) => compiled(sql).fn(row);
const refusal = (sql: string): string => {
  try {
    compiled(sql);
  } catch (e) {
    expect(e).toBeInstanceOf(SqlError);
    return (e as Error).message;
  }
  throw new Error(`compiled: ${sql}`);
};

describe('element access in expressions', () => {
  it('a[i] is the i-th element from 1, NULL out of range; m[k] is NULL without k (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.option(fc.array(fc.option(fc.string({ maxLength: 3 })), { maxLength: 4 })),
        fc.option(fc.integer({ min: -2, max: 6 })),
        fc.option(
          fc.dictionary(
            fc.constantFrom('a', 'b', 'c'),
            fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
          ),
        ),
        fc.option(fc.constantFrom('a', 'b', 'c', 'd')),
        (tags, i, dict, k) => {
          // A BIGINT within 2^53 is a number in a row (types/long.ts).
          const attrs =
            dict === null
              ? null
              : new Map(
                  Object.entries(dict).map(([key, v]) => [
                    key,
                    Number.isSafeInteger(Number(v)) ? Number(v) : v,
                  ]),
                );
          const row = [tags, i, attrs, k, null];
          const element =
            tags === null || i === null || i < 1 || i > tags.length ? null : tags[i - 1];
          expect(evaluate('tags[i]', row)).toBe(element);
          expect(evaluate('t.tags[i + 1]', row)).toBe(
            tags === null || i === null || i + 1 > tags.length || i + 1 < 1 ? null : tags[i],
          );
          const value = attrs === null || k === null ? null : (attrs.get(k) ?? null);
          expect(evaluate('attrs[k]', row)).toBe(value);
          expect(evaluate("attrs['a'] IS NULL", row)).toBe((attrs?.get('a') ?? null) === null);
        },
      ),
      { seed: 14, numRuns: 300 },
    );
  });

  it('reads fields of ROW elements, of constructed values, and chains', () => {
    const row = [['x', null], 2, new Map([['n', 5]]), 'n', [['s1', 3], null, ['s3', 7]]];
    expect(evaluate('lines[1].sku', row)).toBe('s1');
    expect(evaluate('lines[2].qty', row)).toBeNull();
    expect(evaluate('lines[3].qty * 2', row)).toBe(14);
    expect(evaluate('lines[4].sku', row)).toBeNull();
    expect(evaluate('(lines[i + 1]).qty', row)).toBe(7);
    expect(evaluate('ARRAY[10, 20, 30][i]', row)).toBe(20);
    expect(evaluate("MAP['a', 1, 'b', 2]['b']", row)).toBe(2);
    expect(evaluate("ARRAY[MAP['a', i]][1]['a']", row)).toBe(2);
    expect(evaluate('tags[CAST(1 AS BIGINT)]', row)).toBe('x');
    expect(evaluate('tags[NULL]', row)).toBeNull();
  });

  it('types the result as the element, MAP value or field, nullable', () => {
    expect(formatType(compiled('tags[1]').type)).toBe('STRING');
    expect(compiled('ARRAY[1, 2][1]').type.nullable).toBe(true);
    expect(formatType(compiled("attrs['a']").type)).toBe('BIGINT');
    expect(formatType(compiled('lines[1].qty').type)).toBe('INT');
    expect(formatType(compiled("MAP['a', 1.5]['a']").type)).toBe('DECIMAL(2, 1)');
  });

  it('refuses a wrong index or a value that is not a collection, with line and column', () => {
    expect(refusal("tags['a']")).toBe(
      'line 1, column 6: an ARRAY index must be an integer, got CHAR(1) NOT NULL',
    );
    expect(refusal('tags[1.5]')).toMatch(/^line 1, column 6: an ARRAY index must be an integer/);
    expect(refusal('attrs[1]')).toMatch(
      /^line 1, column 7: MAP key: INT NOT NULL cannot be converted implicitly to STRING/,
    );
    expect(refusal('i[1]')).toBe('line 1, column 2: [...] needs an ARRAY or a MAP, got INT');
    expect(refusal('lines[1][1]')).toMatch(/a ROW field is read with \.name/);
    expect(refusal('lines[1].nope')).toMatch(
      /^line 1, column 9: field 'nope' not found; the fields are: sku, qty/,
    );
    expect(refusal('tags[1].f')).toMatch(/^line 1, column 8: 'f' is not a field/);
    expect(refusal('tags[1')).toMatch(/^line 1, column 7: /);
  });
});

const BASE = Date.UTC(2026, 0, 1);
const orderArb = fc.record({
  id: fc.integer({ min: 0, max: 50 }),
  tags: fc.option(fc.array(fc.option(fc.constantFrom('x', 'y', 'z')), { maxLength: 3 })),
  attrs: fc.option(
    fc
      .dictionary(fc.constantFrom('n', 'm'), fc.integer({ min: -3, max: 3 }))
      .map((d) => new Map(Object.entries(d))),
  ),
  ts: fc.integer({ min: BASE, max: BASE + 10_000 }),
});

const at = <T>(a: readonly T[] | null, i: number): T | null =>
  a === null || i < 1 || i > a.length ? null : (a[i - 1] ?? null);
const get = (m: Map<string, number> | null, k: string): number | null => m?.get(k) ?? null;
const sorted = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort();
const finalRows = (changes: readonly Change<Row>[]) => materialize(changes);

describe('element access in queries', () => {
  it('in a projection, a filter, GROUP BY keys and a join condition equals a batch computation', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(orderArb, { maxLength: 25 }),
        fc.constantFrom(1, 2),
        async (orders, parallelism) => {
          const rows = orders.map((o) => [o.id, o.tags, o.attrs, o.ts]);
          const [projected, filtered, grouped, joined] = (
            await queryChanges(
              {
                name: 'o',
                rows,
                columns: [
                  { name: 'id', type: 'INT' },
                  { name: 'tags', type: 'ARRAY<STRING>' },
                  { name: 'attrs', type: 'MAP<STRING, INT>' },
                  { name: 'ts', type: 'TIMESTAMP(3)' },
                ],
                watermark: { column: 'ts', expression: 'ts' },
              },
              [
                "SELECT id, tags[1], tags[MOD(id, 4)], attrs['n'] FROM o",
                "SELECT id FROM o WHERE tags[2] = 'y' OR attrs['m'] > 0",
                "SELECT tags[1] AS t, COUNT(*) AS c, SUM(attrs['n']) AS s FROM o GROUP BY tags[1]",
                "SELECT a.id, b.id FROM o AS a JOIN o AS b ON a.tags[1] = b.tags[2] AND a.attrs['n'] = b.id",
              ],
              { parallelism, batchSize: 3 },
            )
          ).map(finalRows);
          expect(projected).toEqual(
            sorted(
              orders.map((o) => [o.id, at(o.tags, 1), at(o.tags, o.id % 4), get(o.attrs, 'n')]),
            ),
          );
          expect(filtered).toEqual(
            sorted(
              orders
                .filter((o) => at(o.tags, 2) === 'y' || (get(o.attrs, 'm') ?? 0) > 0)
                .map((o) => [o.id]),
            ),
          );
          const groups = new Map<string | null, { c: number; s: number | null }>();
          for (const o of orders) {
            const g = groups.get(at(o.tags, 1)) ?? { c: 0, s: null };
            const n = get(o.attrs, 'n');
            groups.set(at(o.tags, 1), { c: g.c + 1, s: n === null ? g.s : (g.s ?? 0) + n });
          }
          expect(grouped).toEqual(sorted([...groups].map(([t, g]) => [t, g.c, g.s])));
          expect(joined).toEqual(
            sorted(
              orders.flatMap((a) =>
                orders
                  .filter(
                    (b) =>
                      at(a.tags, 1) !== null &&
                      at(a.tags, 1) === at(b.tags, 2) &&
                      get(a.attrs, 'n') === b.id,
                  )
                  .map((b) => [a.id, b.id]),
              ),
            ),
          );
        },
      ),
      { seed: 14, numRuns: 10 },
    );
  }, 120_000);
});
