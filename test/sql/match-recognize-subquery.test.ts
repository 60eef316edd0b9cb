/**
 * MATCH_RECOGNIZE over a subquery in FROM (`FROM (SELECT ...) MATCH_RECOGNIZE (...)`), planned
 * as the same query over a view would be: Flink's MatchRecognizeITCase
 * .testMatchRecognizeAppliedToWindowedGrouping, its rows and its expected result.
 */
import { describe, expect, it } from 'vitest';
import {
  type Change,
  CollectSink,
  type Row,
  SqlError,
  StreamEnvironment,
  TableEnvironment,
} from '../../src/index.js';
import { parseScript } from '../../src/sql/parser/parser.js';

const WINDOWED = `SELECT
      symbol,
      SUM(price) as price,
      TUMBLE_ROWTIME(ts, interval '3' second) as rowTime,
      TUMBLE_START(ts, interval '3' second) as startTime
   FROM Ticker
   GROUP BY symbol, TUMBLE(ts, interval '3' second)`;

const MATCH = `MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY rowTime
  MEASURES
    B.price as dPrice,
    B.startTime as dTime
  ONE ROW PER MATCH
  PATTERN (A B)
  DEFINE
    B AS B.price < A.price
)`;

/** Flink's rows: three windows of ACME, then four rows of its first window that come late. */
const TICKER: readonly (readonly [string, number, number, number])[] = [
  ['ACME', 1, 1, 1],
  ['ACME', 2, 2, 2],
  ['ACME', 4, 1, 4],
  ['ACME', 5, 1, 3],
  ['ACME', 7, 2, 3],
  ['ACME', 8, 2, 3],
  ['ACME', 1, 20, 4],
  ['ACME', 1, 24, 4],
  ['ACME', 1, 25, 3],
  ['ACME', 1, 19, 8],
];

async function run(setup: string, query: string): Promise<{ names: string[]; rows: string[] }> {
  const env = new StreamEnvironment({ parallelism: 2 });
  const tEnv = TableEnvironment.create(env);
  const rows = TICKER.map(([symbol, seconds, price, tax]) => ({
    symbol,
    ts: seconds * 1000,
    price,
    tax,
  }));
  tEnv.fromDataStream('Ticker', env.fromArray(rows), {
    columns: [
      { name: 'symbol', type: 'STRING' },
      { name: 'ts', type: 'TIMESTAMP(3)' },
      { name: 'price', type: 'INT' },
      { name: 'tax', type: 'INT' },
    ],
    watermark: { column: 'ts', expression: 'ts' },
  });
  if (setup !== '') tEnv.executeSql(setup);
  const table = tEnv.sqlQuery(query);
  const sink = new CollectSink<Change<Row>>();
  table.toChangelogStream().sinkTo(sink);
  await env.execute('match-recognize over a subquery');
  return {
    names: table.columns.map((c) => c.name),
    rows: sink.values.map((c) => `${c.kind}${table.display(c.value).join(',')}`),
  };
}

describe('MATCH_RECOGNIZE over a subquery', () => {
  it("gives Flink's row for testMatchRecognizeAppliedToWindowedGrouping, as over a view", async () => {
    const expected = {
      names: ['symbol', 'dPrice', 'dTime'],
      rows: ['+IACME,2,1970-01-01T00:00:03'],
    };
    expect(await run('', `SELECT * FROM (\n${WINDOWED}\n)\n${MATCH}`)).toEqual(expected);
    expect(
      await run(`CREATE TEMPORARY VIEW w AS ${WINDOWED};`, `SELECT * FROM w ${MATCH}`),
    ).toEqual(expected);
  }, 60_000);

  it('takes an alias after the clause, and a subquery over VALUES is refused for want of a rowtime', async () => {
    const aliased = await run('', `SELECT T.symbol, T.dPrice FROM (${WINDOWED}) ${MATCH} AS T`);
    expect(aliased).toEqual({ names: ['symbol', 'dPrice'], rows: ['+IACME,2'] });
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    expect(() =>
      tEnv.sqlQuery(
        `SELECT * FROM (SELECT EXPR$0 AS k, EXPR$1 AS t FROM (VALUES (1, TIMESTAMP '2026-01-01 00:00:00'))) MATCH_RECOGNIZE (
          ORDER BY t MEASURES A.k AS k PATTERN (A) DEFINE A AS A.k > 0)`,
      ),
    ).toThrow(SqlError);
  }, 60_000);

  it('parses the subquery as the input of the clause', () => {
    const [statement] = parseScript(`SELECT * FROM (SELECT a FROM t) MATCH_RECOGNIZE (
      ORDER BY a MEASURES A.a AS x PATTERN (A) DEFINE A AS A.a > 0) AS m`);
    expect(statement?.kind).toBe('query');
    const query = statement?.kind === 'query' ? statement.query : undefined;
    const from = query?.kind === 'select' ? query.from : undefined;
    expect(from?.kind).toBe('match-recognize');
    if (from?.kind !== 'match-recognize') return;
    expect(from.alias).toBe('m');
    expect(from.input.kind).toBe('subquery');
  });
});
