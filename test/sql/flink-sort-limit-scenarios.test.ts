/**
 * Sorts and limits of Flink's streaming SortITCase, LimitITCase and SortLimitITCase. SortITCase
 * sorts by columns that are not time attributes, which Flink refuses unless its testing option
 * `table.exec.non-temporal-sort.enabled` is set; then the sorted rows come out at the end of the
 * (bounded) input, in their order. Flink's data and expected rows: the sorts are checked in
 * their order, the limits as final rows (LIMIT without ORDER BY keeps whichever rows came
 * first, and one subtask reads them in Flink's order). Then the quantified comparisons of
 * testSortWithWhere (`a1 < ALL (subquery)`) against SQL's three values, and the sort through a
 * savepoint.
 */
import { describe, expect, it } from 'vitest';
import { runScenario, scenarioRows, sorted, valuesView } from './flink-scenario-runner.js';
import { changesJob, generatedKeyValues, throughSavepoint } from './savepoint-helpers.js';

const NON_TEMPORAL_SORT = "SET 'table.exec.non-temporal-sort.enabled' = 'true';";

/** SortITCase's table `a`: two STRING columns (Scala `(String, String)` tuples). */
const strings = (rows: readonly (readonly [string, string])[]) =>
  valuesView(
    'a',
    [
      ['a1', 'STRING'],
      ['a2', 'STRING'],
    ],
    rows,
  );

const SORT_DATA: readonly (readonly [string, string])[] = [
  ['0', '4'],
  ['3', '3'],
  ['1', '2'],
  ['5', '1'],
];

/** The rows a sorting query emitted, in their order (all inserts). */
async function emitted(setup: string, sql: string, parallelism: number): Promise<string[]> {
  const [result] = await runScenario(setup, [sql], { parallelism });
  const changes = result?.changes ?? [];
  expect(changes.every((c) => c.startsWith('+I'))).toBe(true);
  return changes.map((c) => c.slice(3, -1));
}

describe("Flink's SortITCase", () => {
  it('refuses a value of the option other than true or false', async () => {
    await expect(
      runScenario(`${strings(SORT_DATA)}\nSET 'table.exec.non-temporal-sort.enabled' = 'yes';`, []),
    ).rejects.toThrow(
      "'table.exec.non-temporal-sort.enabled' is 'yes'; it must be 'true' or 'false'",
    );
  });

  it('testDisableSortNonTemporalField', async () => {
    await expect(runScenario(strings(SORT_DATA), ['SELECT * FROM a ORDER BY a2'])).rejects.toThrow(
      'Sort on a non-time-attribute field is not supported',
    );
  });

  describe.each([1, 2])('with the non-temporal sort enabled (parallelism %i)', (parallelism) => {
    const sort = (rows: readonly (readonly [string, string])[], sql: string) =>
      emitted(`${strings(rows)}\n${NON_TEMPORAL_SORT}`, sql, parallelism);

    it('testSort', async () => {
      expect(await sort(SORT_DATA, 'SELECT * FROM a ORDER BY a2')).toEqual([
        '5,1',
        '1,2',
        '3,3',
        '0,4',
      ]);
    });

    it('testSortOrderByDesc', async () => {
      expect(await sort(SORT_DATA, 'SELECT * FROM a ORDER BY a1 DESC')).toEqual([
        '5,1',
        '3,3',
        '1,2',
        '0,4',
      ]);
    });

    it('testSortOrderByMultipleFields', async () => {
      const rows = [
        ['5', '1'],
        ['0', '4'],
        ['1', '7'],
        ['1', '2'],
      ] as const;
      expect(await sort(rows, 'SELECT * FROM a ORDER BY a1, a2')).toEqual([
        '0,4',
        '1,2',
        '1,7',
        '5,1',
      ]);
    });

    it('testSortOrderByRepeatedFields', async () => {
      const rows = [
        ['5', '1'],
        ['0', '4'],
        ['1', '7'],
        ['2', '2'],
      ] as const;
      expect(await sort(rows, 'SELECT * FROM a ORDER BY a1, a1')).toEqual([
        '0,4',
        '1,7',
        '2,2',
        '5,1',
      ]);
    });

    it('testSortOrderByWithRetract (a sort of an updating GROUP BY)', async () => {
      const rows = [
        ['1', '1'],
        ['2', '1'],
        ['3', '1'],
        ['3', '4'],
        ['6', '1'],
        ['1', '2'],
        ['1', '3'],
        ['3', '2'],
        ['3', '3'],
        ['6', '2'],
      ] as const;
      expect(await sort(rows, 'SELECT a1, count(*) as c FROM a GROUP BY a1 ORDER BY c')).toEqual([
        '2,1',
        '6,2',
        '1,3',
        '3,4',
      ]);
    });

    it('testSortWithWhere (a1 < ALL over a subquery)', async () => {
      // Flink's view names only the first field of its (Int, Int) tuples.
      const setup = `${valuesView('a', [['a1', 'INT']], [[8], [7], [6], [5], [4]])}
        ${NON_TEMPORAL_SORT}`;
      expect(
        await emitted(
          setup,
          'select * from a where a1 < all (select a1 * 2 from a) order by a1 desc',
          parallelism,
        ),
      ).toEqual(['7', '6', '5', '4']);
    });
  });
});

/** The shops of LimitITCase and SortLimitITCase.test: (category, shopId, num). */
const SHOPS = valuesView(
  'T',
  [
    ['category', 'STRING'],
    ['shopId', 'INT'],
    ['num', 'INT'],
  ],
  [
    ['book', 1, 12],
    ['book', 2, 19],
    ['book', 4, 11],
    ['fruit', 4, 33],
    ['fruit', 3, 44],
    ['fruit', 5, 22],
  ],
);

describe("Flink's LimitITCase", () => {
  it('testLimit', async () => {
    expect(await scenarioRows(SHOPS, 'SELECT * FROM T LIMIT 4', { parallelism: 1 })).toEqual(
      sorted(['book,1,12', 'book,2,19', 'book,4,11', 'fruit,4,33']),
    );
  });

  it('testOffsetAndFetch', async () => {
    expect(
      await scenarioRows(SHOPS, 'SELECT * FROM T LIMIT 4 OFFSET 2', { parallelism: 1 }),
    ).toEqual(sorted(['book,4,11', 'fruit,4,33', 'fruit,3,44', 'fruit,5,22']));
  });

  it('testWithoutFetch', async () => {
    await expect(runScenario(SHOPS, ['SELECT * FROM T OFFSET 2'])).rejects.toThrow(
      'FETCH is missed, which on streaming table is not supported currently.',
    );
  });
});

/** testRetractSortLimit's rows: (a, b), max(b) per a is 3, 4, 5. */
const PAIRS = valuesView(
  'T',
  [
    ['a', 'INT'],
    ['b', 'INT'],
  ],
  [
    [1, 1],
    [1, 2],
    [1, 3],
    [2, 2],
    [2, 3],
    [2, 4],
    [3, 3],
    [3, 4],
    [3, 5],
  ],
);

describe("Flink's SortLimitITCase", () => {
  it.each([1, 2])('test (parallelism %i)', async (parallelism) => {
    expect(
      await scenarioRows(SHOPS, 'SELECT * FROM T ORDER BY num DESC LIMIT 2', { parallelism }),
    ).toEqual(sorted(['fruit,3,44', 'fruit,4,33']));
  });

  it.each([1, 2])('testRetractSortLimit (parallelism %i)', async (parallelism) => {
    expect(
      await scenarioRows(PAIRS, 'SELECT a, max(b) FROM T GROUP BY a ORDER BY a LIMIT 2', {
        parallelism,
      }),
    ).toEqual(sorted(['1,3', '2,4']));
  });

  it.each([1, 2])('testRetractSortLimitWithOffset (parallelism %i)', async (parallelism) => {
    expect(
      await scenarioRows(PAIRS, 'SELECT a, max(b) FROM T GROUP BY a ORDER BY a LIMIT 2 OFFSET 1', {
        parallelism,
      }),
    ).toEqual(sorted(['2,4', '3,5']));
  });
});

/**
 * testSortWithWhere's `a1 < ALL (subquery)` beyond its data: ALL and SOME (ANY) with NULLs on
 * either side, an empty subquery and NOT, as SQL's three values have them (only TRUE keeps a
 * row).
 */
describe('quantified comparisons', () => {
  const x = valuesView('X', [['x', 'INT']], [[1], [5], [null]]);
  const sets = `${x}
    ${valuesView('Q', [['v', 'INT']], [[3], [6]])}
    ${valuesView('N', [['v', 'INT']], [[3], [null]])}
    ${valuesView('E', [['v', 'INT']], [[3]])}`;
  const where = (condition: string, set: string) =>
    `SELECT x FROM X WHERE ${condition.replace('$', `(SELECT v FROM ${set}${set === 'E' ? ' WHERE v > 3' : ''})`)}`;

  it.each([
    ['x < ALL $', 'Q', ['1']],
    ['NOT (x < ALL $)', 'Q', ['5']],
    ['x < ALL $', 'N', []],
    ['NOT x < ALL $', 'N', ['5']],
    ['x < ALL $', 'E', ['1', '5', 'null']],
    ['NOT (x < ALL $)', 'E', []],
    ['x < SOME $', 'Q', ['1', '5']],
    ['NOT (x < SOME $)', 'Q', []],
    ['x < ANY $', 'N', ['1']],
    ['NOT (x < ANY $)', 'N', []],
    ['x < SOME $', 'E', []],
    ['NOT (x < SOME $)', 'E', ['1', '5', 'null']],
    ['x <> ALL $', 'Q', ['1', '5']],
    ['x = ANY $', 'N', []],
    ['NOT NOT x < ALL $', 'Q', ['1']],
  ] as const)('%s over %s', async (condition, set, expected) => {
    expect(await scenarioRows(sets, where(condition, set), { parallelism: 2 })).toEqual(
      sorted(expected),
    );
  });

  it('over VALUES', async () => {
    expect(
      await scenarioRows(x, 'SELECT x FROM X WHERE x < ALL (VALUES (3), (6))', { parallelism: 1 }),
    ).toEqual(['1']);
  });

  it('refuses a list of values and a row', async () => {
    await expect(runScenario(x, ['SELECT x FROM X WHERE x < ALL (1, 2)'])).rejects.toThrow(
      '< ALL (a list of values) is not supported by Weir SQL yet',
    );
    await expect(
      runScenario(x, ['SELECT x FROM X WHERE (x, x) = ANY (SELECT x, x FROM X)']),
    ).rejects.toThrow('a row = ANY is not supported by Weir SQL yet');
  });
});

describe('the non-temporal sort through a savepoint', () => {
  const EVENTS = 400;
  // Keys 0..3 in 4, 3, 2 and 1 of every 10 rows: counts without ties.
  const eventAt = (i: number): [number, number] => [
    [0, 0, 0, 0, 1, 1, 1, 2, 2, 3][i % 10] ?? 0,
    i % 3,
  ];

  it('stopped part-way and restored, sorts the final rows (parallelism 2)', async () => {
    const restored = await throughSavepoint(
      'weir-non-temporal-sort-',
      2,
      (out, checkpoints, rate) =>
        changesJob({
          out,
          checkpoints,
          rate,
          parallelism: 2,
          events: EVENTS,
          eventAt,
          tables: (env, tEnv) => {
            generatedKeyValues(env, tEnv, EVENTS, eventAt, rate);
            tEnv.executeSql(NON_TEMPORAL_SORT);
          },
          queries: [
            'SELECT k, c FROM (SELECT k, COUNT(*) AS c FROM t GROUP BY k) ORDER BY c DESC',
            // Commits before the end, so that the job is stopped part-way.
            'SELECT v, COUNT(*) FROM t GROUP BY v',
          ],
        }),
      60,
    );
    expect(restored).toEqual([
      ['[0,160]', '[1,120]', '[2,80]', '[3,40]'],
      ['[0,134]', '[1,133]', '[2,133]'],
    ]);
  }, 120_000);
});
