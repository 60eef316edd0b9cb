/**
 * Top-N scenarios of Flink's RankITCase (streaming): ROW_NUMBER ranges with and without the
 * row number, over insert-only rows and over updating GROUP BYs, `rn = n` and `rn <= n`,
 * mixed ASC/DESC keys, nested Top-Ns. Flink's expected final rows.
 */
import { describe, expect, it } from 'vitest';
import { SqlError } from '../../src/index.js';
import { runScenario, scenarioRows, sorted, valuesView } from './flink-scenario-runner.js';

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

const SUMS = valuesView(
  'T',
  [
    ['category', 'STRING'],
    ['shopId', 'INT'],
    ['num', 'INT'],
  ],
  [
    ['book', 1, 11],
    ['book', 2, 19],
    ['book', 4, 13],
    ['book', 1, 11],
    ['fruit', 4, 33],
    ['fruit', 5, 12],
    ['fruit', 3, 44],
    ['fruit', 5, 22],
  ],
);

const SELLS_ROWS: readonly (readonly [string, number, number])[] = [
  ['book', 1, 1001],
  ['book', 2, 1002],
  ['book', 4, 1003],
  ['book', 1, 1004],
  ['book', 1, 1005],
  ['book', 3, 1006],
  ['book', 2, 1007],
  ['book', 4, 1008],
  ['book', 1, 1009],
  ['book', 4, 1010],
  ['book', 4, 1012],
  ['book', 4, 1012],
  ['fruit', 4, 1013],
  ['fruit', 5, 1014],
  ['fruit', 3, 1015],
  ['fruit', 4, 1017],
  ['fruit', 5, 1018],
  ['fruit', 5, 1016],
];
const SELLS = valuesView(
  'T',
  [
    ['category', 'STRING'],
    ['shopId', 'INT'],
    ['sellId', 'INT'],
  ],
  SELLS_ROWS,
);

const topOf = (inner: string, order: string, filter: string, select = '*') =>
  `SELECT ${select} FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY category ORDER BY ${order}) AS rank_num FROM (${inner})) WHERE ${filter}`;

describe("Flink's RankITCase", () => {
  it.each([1, 2])('Top-N over insert-only rows (parallelism %i)', async (parallelism) => {
    const [top2, nth1, nth2, asc] = await runScenario(
      SHOPS,
      [
        topOf('SELECT category, shopId, num FROM T', 'num DESC', 'rank_num <= 2'),
        topOf('SELECT category, shopId, num FROM T', 'num DESC', 'rank_num = 1'),
        topOf('SELECT category, shopId, num FROM T', 'num DESC', 'rank_num = 2'),
        topOf('SELECT category, shopId, num FROM T', 'num ASC', 'rank_num <= 2'),
      ],
      { parallelism },
    );
    expect(top2?.rows).toEqual(
      sorted(['book,2,19,1', 'book,1,12,2', 'fruit,3,44,1', 'fruit,4,33,2']),
    );
    expect(nth1?.rows).toEqual(sorted(['book,2,19,1', 'fruit,3,44,1']));
    expect(nth2?.rows).toEqual(sorted(['book,1,12,2', 'fruit,4,33,2']));
    expect(asc?.rows).toEqual(
      sorted(['book,4,11,1', 'book,1,12,2', 'fruit,5,22,1', 'fruit,4,33,2']),
    );
  });

  it('Top-N without the row number over insert-only rows', async () => {
    const setup = valuesView(
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
        ['book', 5, 20],
        ['fruit', 4, 33],
        ['fruit', 3, 44],
        ['fruit', 5, 22],
        ['fruit', 1, 40],
      ],
    );
    const [result] = await runScenario(
      setup,
      [
        topOf(
          'SELECT category, shopId, num FROM T',
          'num DESC',
          'rank_num <= 2',
          'category, num, shopId',
        ),
      ],
      { parallelism: 1 },
    );
    expect(result?.rows).toEqual(sorted(['book,19,2', 'book,20,5', 'fruit,40,1', 'fruit,44,3']));
    // Flink's changes: a row entering the top is `+I`, the row it pushes out `-D`.
    expect(result?.changes).toEqual([
      '+I(book,12,1)',
      '+I(book,19,2)',
      '-D(book,12,1)',
      '+I(book,20,5)',
      '+I(fruit,33,4)',
      '+I(fruit,44,3)',
      '-D(fruit,33,4)',
      '+I(fruit,40,1)',
    ]);
  });

  it('Top-N over the SUM of an updating GROUP BY', async () => {
    const inner = 'SELECT category, shopId, sum(num) AS num FROM T GROUP BY category, shopId';
    const [top2, nth2] = await runScenario(SUMS, [
      topOf(inner, 'num DESC', 'rank_num <= 2'),
      topOf(inner, 'num DESC', 'rank_num = 2'),
    ]);
    expect(top2?.rows).toEqual(
      sorted(['book,1,22,1', 'book,2,19,2', 'fruit,3,44,1', 'fruit,5,34,2']),
    );
    expect(nth2?.rows).toEqual(sorted(['book,2,19,2', 'fruit,5,34,2']));
  });

  it('Top-N ordered by a DESC and an ASC key over an updating GROUP BY', async () => {
    const inner =
      'SELECT category, shopId, sum(num) AS num, count(num) AS cnt FROM T GROUP BY category, shopId';
    const [top2, nth2] = await runScenario(SUMS, [
      topOf(inner, 'num DESC, cnt ASC', 'rank_num <= 2'),
      topOf(inner, 'num DESC, cnt ASC', 'rank_num = 2'),
    ]);
    expect(top2?.rows).toEqual(
      sorted(['book,1,22,2,1', 'book,2,19,1,2', 'fruit,3,44,1,1', 'fruit,5,34,2,2']),
    );
    expect(nth2?.rows).toEqual(sorted(['book,2,19,1,2', 'fruit,5,34,2,2']));
  });

  it('Top-N of an ascending SUM (unary) and of a MAX of strings over updating groups', async () => {
    const unary = valuesView(
      'T',
      [
        ['category', 'STRING'],
        ['shopId', 'INT'],
        ['num', 'INT'],
      ],
      [
        ['book', 11, 100],
        ['book', 11, 200],
        ['book', 12, 400],
        ['book', 12, 500],
        ['book', 10, 600],
        ['book', 10, 700],
        ['book', 9, 800],
        ['book', 9, 900],
        ['book', 10, 500],
        ['book', 8, 110],
        ['book', 8, 120],
        ['book', 7, 1800],
        ['book', 9, 300],
        ['book', 6, 1900],
        ['book', 7, 50],
        ['book', 11, 1800],
        ['book', 7, 50],
        ['book', 8, 2000],
        ['book', 6, 700],
        ['book', 5, 800],
        ['book', 4, 910],
        ['book', 3, 1000],
        ['book', 2, 1100],
        ['book', 1, 1200],
      ],
    );
    const rows = await scenarioRows(
      unary,
      topOf(
        'SELECT category, shopId, sum(num) AS num FROM T GROUP BY category, shopId',
        'num ASC',
        'rank_num <= 3',
      ),
    );
    expect(rows).toEqual(sorted(['book,5,800,1', 'book,12,900,2', 'book,4,910,3']));

    const strings = valuesView(
      'T',
      [
        ['category', 'STRING'],
        ['shopId', 'INT'],
        ['price', 'STRING'],
      ],
      [
        ['book', 11, '100'],
        ['book', 11, '200'],
        ['book', 12, '400'],
        ['book', 12, '600'],
        ['book', 10, '600'],
        ['book', 10, '700'],
        ['book', 9, '800'],
        ['book', 9, '900'],
        ['book', 10, '500'],
        ['book', 8, '110'],
        ['book', 8, '120'],
        ['book', 7, '812'],
        ['book', 9, '300'],
        ['book', 6, '900'],
        ['book', 7, '50'],
        ['book', 11, '800'],
        ['book', 7, '50'],
        ['book', 8, '200'],
        ['book', 6, '700'],
        ['book', 5, '800'],
        ['book', 4, '910'],
        ['book', 3, '110'],
        ['book', 2, '900'],
        ['book', 1, '700'],
      ],
    );
    const maxRows = await scenarioRows(
      strings,
      topOf(
        'SELECT category, shopId, max(price) AS max_price FROM T GROUP BY category, shopId',
        'max_price ASC',
        'rank_num <= 3',
      ),
    );
    expect(maxRows).toEqual(sorted(['book,3,110,1', 'book,8,200,2', 'book,12,600,3']));
  });

  it('Top-N of a DOUBLE SUM under a WHERE', async () => {
    const setup = valuesView(
      'T',
      [
        ['category', 'STRING'],
        ['shopId', 'INT'],
        ['num', 'DOUBLE'],
      ],
      [
        ['book', 11, 100],
        ['book', 11, 200],
        ['book', 12, 400],
        ['book', 12, 500],
        ['book', 10, 600],
        ['book', 10, 700],
      ],
    );
    const rows = await scenarioRows(
      setup,
      topOf(
        'SELECT category, shopId, sum(num) AS sum_num FROM T WHERE num >= cast(1.1 as double) GROUP BY category, shopId',
        'sum_num DESC',
        'rank_num <= 2',
      ),
    );
    expect(rows).toEqual(sorted(['book,10,1300.0,1', 'book,12,900.0,2']));
  });

  it('Top-N of a COUNT with the row number in the middle, rn <= 4, = 1, = 3', async () => {
    const inner =
      'SELECT category, shopId, count(sellId) AS sells FROM T GROUP BY category, shopId';
    const select = 'category, rank_num, sells, shopId';
    const [top4, top1, top3] = await runScenario(SELLS, [
      topOf(inner, 'sells DESC', 'rank_num <= 4', select),
      topOf(inner, 'sells DESC', 'rank_num = 1', select),
      topOf(inner, 'sells DESC', 'rank_num = 3', select),
    ]);
    expect(top4?.rows).toEqual(
      sorted([
        'book,1,5,4',
        'book,2,4,1',
        'book,3,2,2',
        'book,4,1,3',
        'fruit,1,3,5',
        'fruit,2,2,4',
        'fruit,3,1,3',
      ]),
    );
    expect(top1?.rows).toEqual(sorted(['book,1,5,4', 'fruit,1,3,5']));
    expect(top3?.rows).toEqual(sorted(['book,3,2,2', 'fruit,3,1,3']));
  });

  it('Top-N whose size is a column (rank_num <= topSize)', async () => {
    const setup = valuesView(
      'T',
      [
        ['category', 'STRING'],
        ['shopId', 'INT'],
        ['sellId', 'INT'],
        ['topSize', 'INT'],
      ],
      SELLS_ROWS.map((r) => [...r, r[0] === 'book' ? 4 : 2]),
    );
    const rows = await scenarioRows(
      setup,
      topOf(
        'SELECT category, shopId, count(sellId) AS sells, max(topSize) AS topSize FROM T GROUP BY category, shopId',
        'sells DESC',
        'rank_num <= topSize',
        'category, rank_num, sells, shopId',
      ),
    );
    expect(rows).toEqual(
      sorted([
        'book,1,5,4',
        'book,2,4,1',
        'book,3,2,2',
        'book,4,1,3',
        'fruit,1,3,5',
        'fruit,2,2,4',
      ]),
    );
  });

  it("a rank bound from a column over insert-only rows: each partition keeps its first row's", async () => {
    const [result, flipped] = await runScenario(
      SHOPS,
      [
        topOf('SELECT category, shopId, num FROM T', 'num DESC', 'rank_num <= shopId'),
        // The row number on the right of the comparison.
        topOf('SELECT category, shopId, num FROM T', 'num DESC', '2 >= rank_num', 'shopId'),
      ],
      { parallelism: 1 },
    );
    // book's first row has shopId 1 (the top 1), fruit's 4 (the top 4).
    expect(result?.rows).toEqual(
      sorted(['book,2,19,1', 'fruit,3,44,1', 'fruit,4,33,2', 'fruit,5,22,3']),
    );
    expect(flipped?.rows).toEqual(sorted(['2', '1', '3', '4']));
  });

  it.each([
    ['rank_num < shopId', "supported as rank_num <= shopId only, got '<'"],
    ['rank_num <= shopId AND rank_num <= 2', 'takes no other bound on rank_num'],
    ['rank_num <= category', 'must be an integer column, got category of type VARCHAR'],
    ['rank_num > 1', 'needs WHERE rank_num <= N'],
  ])('refuses WHERE %s', async (filter, message) => {
    const query = topOf('SELECT category, shopId, num FROM T', 'num DESC', filter);
    const error = await runScenario(SHOPS, [query]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SqlError);
    expect(String(error)).toContain(message);
  });

  it('refuses RANK(), DENSE_RANK() and LATERAL subqueries by name', async () => {
    await expect(
      runScenario(SHOPS, [
        'SELECT * FROM (SELECT *, RANK() OVER (PARTITION BY category ORDER BY num) AS r FROM T) WHERE r <= 2',
      ]),
    ).rejects.toThrow('line 1, column 26: RANK() on streaming table is not supported currently');
    await expect(
      runScenario(SHOPS, [
        'SELECT * FROM (SELECT *, DENSE_RANK() OVER (PARTITION BY category ORDER BY num) AS r FROM T) WHERE r <= 2',
      ]),
    ).rejects.toThrow('DENSE_RANK() on streaming table is not supported currently');
    // Flink's testCorrelateSortToRank: a correlated ORDER BY ... LIMIT in FROM.
    await expect(
      runScenario(SHOPS, [
        'SELECT category, shopId FROM (SELECT DISTINCT category FROM T) s, LATERAL (SELECT shopId, num FROM T WHERE category = s.category ORDER BY num DESC LIMIT 2)',
      ]),
    ).rejects.toThrow(
      'line 1, column 75: LATERAL (SELECT ...), a correlated subquery in FROM, is not supported by Weir SQL yet',
    );
  });

  it('Top-N without the row number over AVG and COUNT groups', async () => {
    const avg = valuesView(
      'T',
      [
        ['category', 'STRING'],
        ['shopId', 'INT'],
        ['sellId', 'INT'],
      ],
      [
        ['book', 1, 100],
        ['book', 3, 110],
        ['book', 4, 120],
        ['book', 1, 200],
        ['book', 1, 200],
        ['book', 2, 300],
        ['book', 2, 400],
        ['book', 4, 500],
        ['book', 1, 400],
        ['fruit', 5, 100],
      ],
    );
    const [avgResult] = await runScenario(
      avg,
      [
        topOf(
          'SELECT category, shopId, AVG(sellId) AS avgSellId FROM T GROUP BY category, shopId',
          'avgSellId DESC',
          'rank_num <= 3',
          'category, shopId, avgSellId',
        ),
      ],
      { parallelism: 1 },
    );
    expect(avgResult?.rows).toEqual(
      sorted(['book,1,225', 'book,2,350', 'book,4,310', 'fruit,5,100']),
    );
    // As Flink's retracting Top-N without the row number: `-D` and `+I` of whole rows.
    expect(avgResult?.changes).toEqual([
      '+I(book,1,100)',
      '+I(book,3,110)',
      '+I(book,4,120)',
      '-D(book,1,100)',
      '+I(book,1,150)',
      '-D(book,1,150)',
      '+I(book,1,166)',
      '-D(book,3,110)',
      '+I(book,2,300)',
      '-D(book,2,300)',
      '+I(book,3,110)',
      '-D(book,3,110)',
      '+I(book,2,350)',
      '-D(book,4,120)',
      '+I(book,3,110)',
      '-D(book,3,110)',
      '+I(book,4,310)',
      '-D(book,1,166)',
      '+I(book,3,110)',
      '-D(book,3,110)',
      '+I(book,1,225)',
      '+I(fruit,5,100)',
    ]);

    const count = valuesView(
      'T',
      [
        ['category', 'STRING'],
        ['shopId', 'INT'],
        ['sellId', 'INT'],
      ],
      [
        ['book', 1, 1001],
        ['book', 3, 1006],
        ['book', 4, 1003],
        ['book', 1, 1004],
        ['book', 1, 1005],
        ['book', 2, 1002],
        ['book', 2, 1007],
        ['book', 4, 1008],
        ['book', 1, 1009],
        ['book', 4, 1010],
        ['book', 4, 1012],
        ['book', 4, 1012],
        ['fruit', 4, 1013],
        ['fruit', 5, 1014],
        ['fruit', 3, 1015],
        ['fruit', 4, 1017],
        ['fruit', 5, 1018],
        ['fruit', 5, 1016],
      ],
    );
    const countRows = await scenarioRows(
      count,
      topOf(
        'SELECT category, shopId, count(sellId) AS sells FROM T GROUP BY category, shopId',
        'sells DESC',
        'rank_num <= 3',
        'category, shopId, sells',
      ),
      { parallelism: 1 },
    );
    expect(countRows).toEqual(
      sorted(['book,4,5', 'book,1,4', 'book,2,2', 'fruit,5,3', 'fruit,4,2', 'fruit,3,1']),
    );
  });

  it('a Top-N over a Top-N (nested), and the inner one alone', async () => {
    const setup = valuesView(
      'T',
      [
        ['cate', 'STRING'],
        ['shopId', 'STRING'],
        ['sells', 'INT'],
      ],
      [
        ['book', 'a', 1],
        ['book', 'b', 1],
        ['book', 'c', 1],
        ['fruit', 'a', 2],
        ['book', 'a', 1],
        ['book', 'd', 0],
        ['book', 'b', 3],
        ['fruit', 'b', 6],
        ['book', 'c', 1],
        ['book', 'e', 5],
        ['book', 'd', 4],
      ],
    );
    const inner = `SELECT rank_num, cate, shopId, sells, cnt FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY cate ORDER BY sells DESC) AS rank_num FROM (SELECT cate, shopId, count(*) AS cnt, max(sells) AS sells FROM T GROUP BY cate, shopId)) WHERE rank_num <= 4`;
    const outer = `SELECT rank_num, cate, shopId, sells, cnt FROM (SELECT cate, shopId, sells, cnt, ROW_NUMBER() OVER (ORDER BY sells DESC) AS rank_num FROM (${inner})) WHERE rank_num <= 4`;
    const [nested] = await runScenario(setup, [outer], { parallelism: 1 });
    expect(nested?.rows).toEqual(
      sorted(['1,fruit,b,6,1', '2,book,e,5,1', '3,book,d,4,2', '4,book,b,3,2']),
    );
    const [alone] = await runScenario(setup, [inner], { parallelism: 1 });
    // Flink's upsert sink keyed by rank_num alone keeps one row per rank; the rows of each
    // partition's ranks 1..4 are what its changelog leaves.
    expect(alone?.rows).toEqual(
      sorted([
        '1,book,e,5,1',
        '2,book,d,4,2',
        '3,book,b,3,2',
        '4,book,a,1,2',
        '1,fruit,b,6,1',
        '2,fruit,a,2,1',
      ]),
    );
  });

  it('several Top-Ns over one aggregated view', async () => {
    const setup = `${valuesView(
      'T',
      [
        ['category', 'STRING'],
        ['shopId', 'INT'],
        ['num', 'INT'],
      ],
      [
        ['book', 1, 12],
        ['book', 1, 13],
        ['book', 2, 19],
        ['book', 4, 11],
        ['fruit', 4, 33],
        ['fruit', 3, 44],
        ['fruit', 5, 22],
      ],
    )}
    CREATE TEMPORARY VIEW MyView AS SELECT category, shopId, SUM(num) AS sum_num, MAX(num) AS max_num,
      AVG(num) AS avg_num, COUNT(num) AS cnt FROM T GROUP BY category, shopId;`;
    const [r1, r2, r3, r4, r5] = await runScenario(
      setup,
      [
        topOf(
          'SELECT category, shopId, sum_num, avg_num FROM MyView',
          'sum_num DESC, avg_num ASC',
          'rank_num <= 2',
        ),
        topOf(
          'SELECT category, shopId, max_num, cnt FROM MyView',
          'max_num DESC, cnt ASC',
          'rank_num <= 2',
        ),
        topOf('SELECT category, shopId, sum_num FROM MyView', 'sum_num DESC', 'rank_num <= 2'),
        topOf('SELECT category, shopId, max_num FROM MyView', 'max_num DESC', 'rank_num <= 2'),
        topOf('SELECT category, shopId, cnt FROM MyView', 'cnt DESC', 'rank_num <= 2'),
      ],
      { parallelism: 1 },
    );
    expect(r1?.rows).toEqual(
      sorted(['book,1,25,12,1', 'book,2,19,19,2', 'fruit,3,44,44,1', 'fruit,4,33,33,2']),
    );
    expect(r2?.rows).toEqual(
      sorted(['book,2,19,1,1', 'book,1,13,2,2', 'fruit,3,44,1,1', 'fruit,4,33,1,2']),
    );
    expect(r3?.rows).toEqual(
      sorted(['book,1,25,1', 'book,2,19,2', 'fruit,3,44,1', 'fruit,4,33,2']),
    );
    expect(r4?.rows).toEqual(
      sorted(['book,2,19,1', 'book,1,13,2', 'fruit,3,44,1', 'fruit,4,33,2']),
    );
    // Ties in cnt: Flink's order among equal counts is its arrival order (a stable sort).
    expect(r5?.rows).toEqual(sorted(['book,1,2,1', 'book,2,1,2', 'fruit,4,1,1', 'fruit,3,1,2']));
  });
});
