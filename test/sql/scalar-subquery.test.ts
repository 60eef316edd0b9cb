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
});
