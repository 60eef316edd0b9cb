/**
 * Uncorrelated scalar subqueries in a SELECT list and a WHERE clause, planned as a LEFT JOIN
 * with the subquery's row: the final rows (after the changelog of an updating subquery) equal
 * a plain computation over the same rows, at parallelism 1 and 2.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runScenario, scenarioRows, sorted, valuesView } from './flink-scenario-runner.js';

const AB = [
  ['a', 'INT'],
  ['b', 'STRING'],
] as const;

describe('scalar subqueries', () => {
  it('in WHERE and in the SELECT list, over an aggregate that changes as rows arrive', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: -20, max: 20 }), fc.constantFrom('x', 'y')), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.constantFrom(1, 2),
        async (rows, parallelism) => {
          const setup = valuesView('T', AB, rows);
          const avg = Math.trunc(rows.reduce((s, [a]) => s + a, 0) / rows.length);
          const max = Math.max(...rows.map(([a]) => a));
          const [above, withMax] = await runScenario(
            setup,
            [
              'SELECT a, b FROM T WHERE a > (SELECT AVG(a) FROM T)',
              'SELECT a, (SELECT MAX(a) FROM T) AS m, a = (SELECT MAX(a) FROM T) AS top FROM T',
            ],
            { parallelism },
          );
          expect(above?.rows).toEqual(
            sorted(rows.filter(([a]) => a > avg).map(([a, b]) => `${a},${b}`)),
          );
          expect(withMax?.rows).toEqual(sorted(rows.map(([a]) => `${a},${max},${a === max}`)));
        },
      ),
      { numRuns: 12 },
    );
  });

  it('an empty subquery gives NULL; SELECT * leaves the joined column out; without FROM', async () => {
    const setup = valuesView('T', AB, [
      [1, 'x'],
      [2, 'y'],
    ]);
    expect(await scenarioRows(setup, 'SELECT a, (SELECT a FROM T WHERE a > 5) FROM T')).toEqual(
      sorted(['1,null', '2,null']),
    );
    expect(await scenarioRows(setup, 'SELECT * FROM T WHERE a < (SELECT MAX(a) FROM T)')).toEqual([
      '1,x',
    ]);
    expect(await scenarioRows(setup, 'SELECT (SELECT COUNT(*) FROM T) + 1')).toEqual(['3']);
  });

  it('refuses a subquery of two columns, and one in a GROUP BY query, with positions', async () => {
    const setup = valuesView('T', AB, [[1, 'x']]);
    await expect(
      scenarioRows(setup, 'SELECT a FROM T WHERE a = (SELECT a, b FROM T)'),
    ).rejects.toThrow(/names 1 column, but the query has 2/);
    await expect(
      scenarioRows(setup, 'SELECT b, COUNT(*) FROM T WHERE a < (SELECT MAX(a) FROM T) GROUP BY b'),
    ).rejects.toThrow(/line 1, column \d+: a scalar subquery is supported .* not here yet/);
  });

  it('correlated by equalities: an aggregate per outer row, COUNT over no rows 0', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.constantFrom('x', 'y')), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: -9, max: 9 })), {
          maxLength: 10,
        }),
        fc.constantFrom(1, 2),
        async (outer, inner, parallelism) => {
          const setup = `${valuesView('T', AB, outer)}\n${valuesView(
            'U',
            [
              ['k', 'INT'],
              ['v', 'INT'],
            ],
            inner.length === 0 ? [[99, 0]] : inner,
          )}`;
          const rowsOfU = inner.length === 0 ? [[99, 0]] : inner;
          const [counts, maxima] = await runScenario(
            setup,
            [
              'SELECT t.a, t.b, (SELECT COUNT(*) FROM U u WHERE u.k = t.a AND u.v > 0) AS n FROM T t',
              'SELECT t.a FROM T t WHERE 0 < (SELECT MAX(u.v) FROM U u WHERE u.k = t.a)',
            ],
            { parallelism },
          );
          const n = (a: number) => rowsOfU.filter(([k, v]) => k === a && (v as number) > 0).length;
          const max = (a: number) => {
            const vs = rowsOfU.filter(([k]) => k === a).map(([, v]) => v as number);
            return vs.length === 0 ? null : Math.max(...vs);
          };
          expect(counts?.rows).toEqual(sorted(outer.map(([a, b]) => `${a},${b},${n(a)}`)));
          expect(maxima?.rows).toEqual(
            sorted(
              outer
                .filter(([a]) => {
                  const m = max(a);
                  return m !== null && m > 0;
                })
                .map(([a]) => String(a)),
            ),
          );
        },
      ),
      { numRuns: 10 },
    );
  });

  it('refuses a correlated subquery that is not one aggregate tied by equalities', async () => {
    const setup = `${valuesView('T', AB, [[1, 'x']])}\n${valuesView('U', AB, [[1, 'x']])}`;
    await expect(
      scenarioRows(setup, 'SELECT (SELECT u.b FROM U u WHERE u.a = t.a) FROM T t'),
    ).rejects.toThrow(/line 1, column 8: a correlated scalar subquery other than one aggregate/);
    await expect(
      scenarioRows(setup, 'SELECT (SELECT MAX(u.a) FROM U u WHERE u.a < t.a) FROM T t'),
    ).rejects.toThrow(/other than by equalities/);
  });
});
