/**
 * CROSS JOIN UNNEST and LEFT JOIN UNNEST ... ON TRUE over ARRAY and MAP columns against a
 * plain computation over the same rows (the differential suite compares the constructor forms
 * with Flink), also over a changing input (a deduplication, a GROUP BY) whose updates must
 * retract the rows they replace, and the refusals with their positions.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { materialize } from '../../bench/nexmark/weir-job.js';
import {
  type Change,
  type Row,
  SqlError,
  StreamEnvironment,
  TableEnvironment,
} from '../../src/index.js';
import { queryChanges } from './query-changes.js';

interface Order {
  id: number;
  tags: (string | null)[] | null;
  lines: [string, number][] | null;
  ts: number;
}

const BASE = Date.UTC(2026, 0, 1);

const TABLE = {
  name: 'orders',
  columns: [
    { name: 'id', type: 'INT' },
    { name: 'tags', type: 'ARRAY<STRING>' },
    { name: 'lines', type: 'ARRAY<ROW<sku STRING, qty INT>>' },
    { name: 'ts', type: 'TIMESTAMP(3)' },
  ],
  watermark: { column: 'ts', expression: 'ts' },
};

async function run(
  orders: readonly Order[],
  queries: string[],
  parallelism: number,
  insertOnly = true,
) {
  const rows = orders.map((o) => [o.id, o.tags, o.lines, o.ts]);
  const results = await queryChanges({ ...TABLE, rows }, queries, {
    parallelism,
    batchSize: 4,
  });
  return results.map((changes) => {
    if (insertOnly) expect(changes.every((c) => c.kind === '+I')).toBe(true);
    return finalRows(changes);
  });
}

/** The rows left after applying the changes. */
const finalRows = (changes: readonly Change<Row>[]): string[] =>
  materialize([...changes], (row) => JSON.stringify(row)).sort();

const sorted = (rows: unknown[][]): string[] => rows.map((r) => JSON.stringify(r)).sort();

const orderArb = fc.record({
  id: fc.integer({ min: 0, max: 1000 }),
  tags: fc.option(fc.array(fc.option(fc.constantFrom('x', 'y', 'z')), { maxLength: 4 })),
  lines: fc.option(
    fc.array(fc.tuple(fc.constantFrom('s1', 's2'), fc.integer({ min: 1, max: 5 })), {
      maxLength: 3,
    }),
  ),
  ts: fc.integer({ min: BASE, max: BASE + 10_000 }),
});

describe('UNNEST', () => {
  it('joins each row with its elements, equal to a plain computation', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(orderArb, { maxLength: 30 }),
        fc.constantFrom(1, 2),
        async (orders, parallelism) => {
          const [cross, ordinal, left, rowsOf, comma] = await run(
            orders,
            [
              'SELECT id, tag FROM orders CROSS JOIN UNNEST(tags) AS T(tag)',
              'SELECT id, tag, n FROM orders CROSS JOIN UNNEST(tags) WITH ORDINALITY AS T(tag, n)',
              'SELECT id, tag FROM orders LEFT JOIN UNNEST(tags) AS T(tag) ON TRUE',
              'SELECT id, sku, qty FROM orders CROSS JOIN UNNEST(lines) AS L',
              "SELECT o.id, t.tag FROM orders AS o, UNNEST(o.tags) AS t(tag) WHERE t.tag <> 'x'",
            ],
            parallelism,
          );
          const tags = orders.flatMap((o) => (o.tags ?? []).map((t, i) => [o.id, t, i + 1]));
          expect(cross).toEqual(sorted(tags.map(([id, t]) => [id, t])));
          expect(ordinal).toEqual(sorted(tags));
          expect(left).toEqual(
            sorted(
              orders.flatMap((o) =>
                o.tags === null || o.tags.length === 0
                  ? [[o.id, null]]
                  : o.tags.map((t) => [o.id, t]),
              ),
            ),
          );
          expect(rowsOf).toEqual(
            sorted(orders.flatMap((o) => (o.lines ?? []).map(([s, q]) => [o.id, s, q]))),
          );
          expect(comma).toEqual(
            sorted(tags.filter(([, t]) => t !== null && t !== 'x').map(([id, t]) => [id, t])),
          );
        },
      ),
      { seed: 14, numRuns: 8 },
    );
  }, 120_000);

  it('over a changing input, applying the changes gives the batch result (fast-check)', async () => {
    // The latest row per id (by event time, unique here) and a GROUP BY: both update rows.
    const latest = `SELECT id, tags FROM (
        SELECT id, tags, ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts DESC) AS rn FROM orders)
      WHERE rn = 1`;
    const groups =
      'SELECT MOD(id, 3) AS g, MAX(id) AS mx, COUNT(*) AS c FROM orders GROUP BY MOD(id, 3)';
    await fc.assert(
      fc.asyncProperty(
        fc.array(orderArb, { maxLength: 30 }),
        fc.constantFrom(1, 2),
        async (generated, parallelism) => {
          // Few ids, so rows are replaced; distinct, shuffled event times.
          const orders = generated.map((o, i) => ({
            ...o,
            id: o.id % 6,
            ts: BASE + ((i * 7919) % 10007),
          }));
          const [cross, left, grouped, mapped] = await run(
            orders,
            [
              `SELECT id, tag, n FROM (${latest}) CROSS JOIN UNNEST(tags) WITH ORDINALITY AS T(tag, n)`,
              `SELECT id, tag FROM (${latest}) AS l LEFT JOIN UNNEST(l.tags) AS T(tag) ON TRUE`,
              `SELECT g, x FROM (${groups}), UNNEST(ARRAY[mx, c]) AS A(x) WHERE x > 1`,
              `SELECT g, k, v FROM (${groups}) CROSS JOIN UNNEST(MAP['max', mx, 'count', c]) AS M(k, v)`,
            ],
            parallelism,
            false,
          );
          const last = new Map<number, Order>();
          for (const o of orders) if ((last.get(o.id)?.ts ?? -1) < o.ts) last.set(o.id, o);
          const tagsOf = (o: Order) => (o.tags ?? []).map((t, i) => [o.id, t, i + 1]);
          expect(cross).toEqual(sorted([...last.values()].flatMap(tagsOf)));
          expect(left).toEqual(
            sorted(
              [...last.values()].flatMap((o) =>
                o.tags === null || o.tags.length === 0
                  ? [[o.id, null]]
                  : o.tags.map((t) => [o.id, t]),
              ),
            ),
          );
          const byGroup = new Map<number, { mx: number; c: number }>();
          for (const o of orders) {
            const g = byGroup.get(o.id % 3);
            byGroup.set(o.id % 3, { mx: Math.max(g?.mx ?? -1, o.id), c: (g?.c ?? 0) + 1 });
          }
          expect(grouped).toEqual(
            sorted(
              [...byGroup].flatMap(([g, { mx, c }]) =>
                [mx, c].filter((x) => x > 1).map((x) => [g, x]),
              ),
            ),
          );
          expect(mapped).toEqual(
            sorted(
              [...byGroup].flatMap(([g, { mx, c }]) => [
                [g, 'max', mx],
                [g, 'count', c],
              ]),
            ),
          );
        },
      ),
      { seed: 14, numRuns: 10 },
    );
  }, 120_000);

  it('gives the key and value of each MAP entry; the time attribute stays', async () => {
    const [entries, windowed] = await run(
      [
        { id: 1, tags: ['a'], lines: null, ts: BASE + 1 },
        { id: 2, tags: null, lines: null, ts: BASE + 2 },
      ],
      [
        "SELECT id, k, v FROM orders CROSS JOIN UNNEST(MAP['n', id, 'twice', id * 2]) AS M(k, v)",
        `SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
         CROSS JOIN UNNEST(ARRAY[1, 2, 3]) AS A(x) GROUP BY window_start, window_end`,
      ],
      1,
      // After UNNEST the window columns are plain columns: the GROUP BY updates.
      false,
    );
    expect(entries).toEqual(
      sorted([
        [1, 'n', 1],
        [1, 'twice', 2],
        [2, 'n', 2],
        [2, 'twice', 4],
      ]),
    );
    expect(windowed).toEqual(sorted([[BASE, 6]]));
  });

  it('refuses what Flink refuses, naming the place', () => {
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    tEnv.fromDataStream('orders', env.fromArray<unknown[]>([]), TABLE);
    const refusal = (sql: string): string => {
      try {
        tEnv.sqlQuery(sql);
      } catch (e) {
        expect(e).toBeInstanceOf(SqlError);
        return (e as Error).message;
      }
      throw new Error(`planned: ${sql}`);
    };
    expect(refusal('SELECT * FROM orders CROSS JOIN UNNEST(id) AS T(x)')).toBe(
      'line 1, column 40: UNNEST needs an ARRAY or a MAP, got INT',
    );
    expect(refusal('SELECT * FROM orders CROSS JOIN UNNEST(tags) AS T(x, y)')).toBe(
      'line 1, column 33: UNNEST gives 1 columns, but 2 names are given',
    );
    expect(refusal('SELECT * FROM orders LEFT JOIN UNNEST(tags) AS T(x) ON x IS NULL')).toMatch(
      /^line 1, column 58: LEFT JOIN UNNEST\(\.\.\.\) takes ON TRUE/,
    );
    expect(refusal('SELECT * FROM orders FULL JOIN UNNEST(tags) AS T(x) ON TRUE')).toMatch(
      /^line 1, column 22: UNNEST is joined with CROSS, INNER or LEFT JOIN, not FULL/,
    );
    // UNNEST alone runs (over one row, as Flink's), but reads no table's column.
    expect(refusal('SELECT * FROM UNNEST(tags) AS T(x)')).toMatch(
      /^line 1, column 22: column 'tags' not found/,
    );
    expect(refusal("SELECT ARRAY[1, 'a'] FROM orders")).toMatch(
      /^line 1, column 8: ARRAY elements have no common type/,
    );
    expect(refusal('SELECT MAP[1, 2, 3] FROM orders')).toMatch(
      /^line 1, column 8: MAP\[\] takes keys and values in pairs/,
    );
  });
});
