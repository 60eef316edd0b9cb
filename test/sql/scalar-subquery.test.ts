/**
 * Uncorrelated scalar subqueries in a SELECT list and a WHERE clause, planned as a LEFT JOIN
 * with the subquery's row: the final rows (after the changelog of an updating subquery) equal
 * a plain computation over the same rows, at parallelism 1 and 2.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { runScenario, scenarioRows, sorted, valuesView } from './flink-scenario-runner.js';
import { registerValues, registerValuesConnector } from './flink-values-connector.js';

beforeAll(registerValuesConnector);

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

  it('a subquery giving more than one row fails the job, as SINGLE_VALUE does in Flink', async () => {
    const setup = valuesView('T', AB, [
      [1, 'x'],
      [7, 'y'],
      [9, 'z'],
    ]);
    // One row: its value; none: NULL; the same subquery over more rows fails.
    expect(await scenarioRows(setup, 'SELECT a, (SELECT b FROM T WHERE a > 8) FROM T')).toEqual(
      sorted(['1,z', '7,z', '9,z']),
    );
    expect(
      await scenarioRows(setup, 'SELECT a FROM T WHERE a < (SELECT a FROM T WHERE a > 100)'),
    ).toEqual([]);
    await expect(
      scenarioRows(setup, 'SELECT a, (SELECT b FROM T WHERE a > 5) FROM T'),
    ).rejects.toThrow(/line 1, column 11: a scalar subquery gave more than one row/);
    // A row retracted before the next comes in (the subquery over an updating aggregate) is fine.
    expect(
      await scenarioRows(
        setup,
        'SELECT a, (SELECT n FROM (SELECT COUNT(*) AS n FROM T) WHERE n > 0) FROM T',
        { parallelism: 1 },
      ),
    ).toEqual(sorted(['1,3', '7,3', '9,3']));
  });

  it('refuses a subquery of two columns, and one beside an OVER window, with positions', async () => {
    const setup = valuesView('T', AB, [[1, 'x']]);
    await expect(
      scenarioRows(setup, 'SELECT a FROM T WHERE a = (SELECT a, b FROM T)'),
    ).rejects.toThrow(/names 1 column, but the query has 2/);
    await expect(
      scenarioRows(
        setup,
        'SELECT a, COUNT(*) OVER (PARTITION BY b ORDER BY PROCTIME()) + (SELECT MAX(a) FROM T) FROM T',
      ),
    ).rejects.toThrow(/line 1, column \d+: a scalar subquery is supported .* not here yet/);
  });

  it('in an aggregating query: WHERE and aggregate arguments before it, SELECT list and HAVING after it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: -20, max: 20 }), fc.constantFrom('x', 'y', 'z')), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.constantFrom(1, 2),
        async (rows, parallelism) => {
          const setup = valuesView('T', AB, rows);
          const max = Math.max(...rows.map(([a]) => a));
          const avg = Math.trunc(rows.reduce((s, [a]) => s + a, 0) / rows.length);
          // A global aggregate over no rows emits nothing in streaming (as in Flink), so a
          // subquery counting no rows is empty and its value NULL, not 0.
          const positive = rows.filter(([a]) => a > 0).length;
          const groups = new Map<string, number[]>();
          for (const [a, b] of rows) groups.set(b, [...(groups.get(b) ?? []), a]);
          const sum = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0);
          const results = await runScenario(
            setup,
            [
              'SELECT b, COUNT(*) AS n FROM T WHERE a < (SELECT MAX(a) FROM T) GROUP BY b',
              'SELECT b, SUM(a) AS s FROM T GROUP BY b HAVING SUM(a) > (SELECT AVG(a) FROM T)',
              'SELECT t.b, COUNT(*) - (SELECT COUNT(*) FROM T WHERE a > 0), MAX(a) FROM T t GROUP BY b',
              'SELECT b, SUM(a * (SELECT MAX(a) FROM T)) AS w FROM T GROUP BY b',
              'SELECT COUNT(*) AS n FROM T HAVING COUNT(*) > (SELECT COUNT(*) FROM T WHERE a > 0)',
            ],
            { parallelism },
          );
          const [below, above, offset, weighted, global] = results.map((r) => r.rows);
          const expected = (f: (b: string, as: readonly number[]) => string | undefined) =>
            sorted([...groups].flatMap(([b, as]) => f(b, as) ?? []));
          expect(below).toEqual(
            expected((b, as) => {
              const n = as.filter((a) => a < max).length;
              return n === 0 ? undefined : `${b},${n}`;
            }),
          );
          expect(above).toEqual(
            expected((b, as) => (sum(as) > avg ? `${b},${sum(as)}` : undefined)),
          );
          expect(offset).toEqual(
            expected(
              (b, as) =>
                `${b},${positive === 0 ? 'null' : as.length - positive},${Math.max(...as)}`,
            ),
          );
          expect(weighted).toEqual(expected((b, as) => `${b},${sum(as.map((a) => a * max))}`));
          expect(global).toEqual(
            positive > 0 && rows.length > positive ? [String(rows.length)] : [],
          );
        },
      ),
      { numRuns: 10 },
    );
  });

  it('after a window aggregation: HAVING and SELECT list against subqueries over the same table', async () => {
    const [result] = await runScenario(
      '',
      [
        `SELECT window_start, b, SUM(a) AS s, SUM(a) - (SELECT MIN(a) FROM T) AS d
         FROM TABLE(TUMBLE(TABLE T, DESCRIPTOR(ts), INTERVAL '10' SECOND))
         GROUP BY window_start, window_end, b
         HAVING SUM(a) > (SELECT AVG(a) FROM T)`,
      ],
      {
        parallelism: 2,
        tables: (_env, tEnv) =>
          tEnv.executeSql(`CREATE TABLE T (a INT, b STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
            WITH ('connector' = 'flink-values', 'data-id' = '${registerValues([
              [1, 'x', 1000],
              [5, 'x', 2000],
              [1, 'z', 3000],
              [2, 'y', 12000],
              [9, 'y', 13000],
            ])}')`),
      },
    );
    // AVG(a) = 18 / 5 = 3 (INT), MIN(a) = 1: the z window (1) is filtered out.
    expect(result?.rows).toEqual(['1970-01-01T00:00,x,6,5', '1970-01-01T00:00:10,y,11,10']);
  });

  it('after an aggregation: output names as without the subquery; a correlated one refused', async () => {
    const setup = `${valuesView('T', AB, [
      [1, 'x'],
      [2, 'x'],
      [5, 'y'],
    ])}\n${valuesView('U', AB, [[1, 'x']])}`;
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    tEnv.executeSql(setup);
    const table = tEnv.sqlQuery(
      'SELECT b, COUNT(*), SUM(a) + (SELECT MAX(a) FROM U) AS s FROM T GROUP BY b',
    );
    expect(table.columns.map((c) => c.name)).toEqual(['b', 'EXPR$1', 's']);
    expect(
      await scenarioRows(
        setup,
        'SELECT b, COUNT(*), SUM(a) + (SELECT MAX(a) FROM U) AS s FROM T GROUP BY b',
      ),
    ).toEqual(['x,2,4', 'y,1,6']);
    // Correlated in the WHERE clause: decorrelated before the aggregation.
    expect(
      await scenarioRows(
        setup,
        'SELECT t.b, COUNT(*) AS n FROM T t WHERE t.a >= (SELECT MAX(u.a) FROM U u WHERE u.b = t.b) GROUP BY t.b',
      ),
    ).toEqual(['x,2']);
    await expect(
      scenarioRows(
        setup,
        'SELECT t.b, (SELECT COUNT(*) FROM U u WHERE u.b = t.b) FROM T t GROUP BY t.b',
      ),
    ).rejects.toThrow(
      /line 1, column 13: a correlated scalar subquery in the SELECT list or HAVING clause of an aggregating query/,
    );
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
