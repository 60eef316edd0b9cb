/**
 * A regular join with a window aggregation's results whose condition bounds the window end by
 * the other input's time (Nexmark q7's shape) drops that input's rows once the watermark shows
 * no later window can match them. Its rows must be those of the same join keeping every row
 * (the condition written so that the planner does not see the bound): over rows with
 * duplicates, disorder and late rows, at parallelism 1 and 2.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Change, type Row, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { queryChanges } from './query-changes.js';

interface Bid {
  price: number;
  item: string;
  ts: number;
}

const BASE = Date.UTC(2026, 0, 1);

const COLUMNS = [
  { name: 'price', type: 'BIGINT' },
  { name: 'item', type: 'STRING' },
  { name: 'ts', type: 'TIMESTAMP(3)' },
];
const WATERMARK = { column: 'ts', expression: "ts - INTERVAL '1' SECOND" };

/** q7's shape; `bounds` is the condition between the bid's time and its window's end. */
function query(bounds: string, size = 4): string {
  return `SELECT b.price, b.item, b.ts, w.ends
FROM bid AS b
JOIN (
  SELECT MAX(price) AS maxprice, window_end AS ends
  FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(ts), INTERVAL '${size}' SECOND))
  GROUP BY window_start, window_end
) AS w
  ON b.price = w.maxprice
WHERE ${bounds}`;
}

/** What the planner reads as a bound, and the same condition in a form it does not. */
const SEEN = "b.ts BETWEEN w.ends - INTERVAL '3' SECOND AND w.ends";
const UNSEEN = "NOT (b.ts < w.ends - INTERVAL '3' SECOND) AND NOT (b.ts > w.ends)";

const rowsOf = (changes: readonly Change<Row>[]): string[] => {
  expect(changes.every((c) => c.kind === '+I')).toBe(true);
  return changes.map((c) => JSON.stringify(c.value)).sort();
};

const bidArb: fc.Arbitrary<Bid> = fc.record({
  price: fc.integer({ min: 1, max: 6 }),
  item: fc.constantFrom('a', 'b'),
  ts: fc.integer({ min: BASE, max: BASE + 30_000 }),
});

function explain(sql: string): string {
  const tEnv = TableEnvironment.create(new StreamEnvironment({ parallelism: 1 }));
  tEnv.executeSql(`CREATE TABLE bid (price BIGINT, item STRING, ts TIMESTAMP(3), lt TIMESTAMP_LTZ(3),
    WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen')`);
  return tEnv.explainSql(sql);
}

describe('regular join with a window aggregation, its rows dropped by the watermark', () => {
  it('is planned where the condition bounds the window end by the other side, and says so', () => {
    const seen = explain(query(SEEN));
    expect(seen).toContain('inner join, left rows until the watermark');
    expect(seen).toContain('the left rows only until the watermark');
    // The same bound written with >= and <=, either way round.
    expect(explain(query("w.ends <= b.ts + INTERVAL '3' SECOND AND b.ts <= w.ends"))).toContain(
      'left rows until the watermark',
    );
    for (const other of [
      UNSEEN,
      // Only a lower bound on the window end: a later window can always match.
      'b.ts <= w.ends',
      // A TIMESTAMP_LTZ against the TIMESTAMP window end: compared on the session zone's clock.
      "b.lt BETWEEN w.ends - INTERVAL '3' SECOND AND w.ends",
      // An upper bound on a column that is not a window end.
      "b.ts <= b.ts + INTERVAL '1' SECOND",
    ])
      expect(explain(query(other))).not.toContain('until the watermark');
  });

  it('gives the rows of the join that keeps every row', async () => {
    let joined = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(bidArb, { minLength: 1, maxLength: 80 }),
        fc.constantFrom(1, 2),
        fc.constantFrom(1, 7),
        async (bids, parallelism, batchSize) => {
          const [bounded, unbounded] = await queryChanges(
            { name: 'bid', rows: bids, columns: COLUMNS, watermark: WATERMARK },
            [query(SEEN), query(UNSEEN)],
            { parallelism, batchSize },
          );
          expect(rowsOf(bounded ?? [])).toEqual(rowsOf(unbounded ?? []));
          joined += unbounded?.length ?? 0;
        },
      ),
      { numRuns: 40 },
    );
    // The cases join rows, not only nothing with nothing.
    expect(joined).toBeGreaterThan(40);
  }, 120_000);
});
