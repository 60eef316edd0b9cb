/**
 * SESSION window TVF aggregation against a batch computation over the same rows. As in Flink,
 * the sessions are formed per PARTITION BY value, or over all rows of the table without it;
 * GROUP BY keys besides the partition columns split each session's rows afterwards.
 *
 *   gap 1 s, no PARTITION BY:   a@0.0  b@0.5  a@1.2 | a@3.0
 *                               [0.0, 2.2) one session  | [3.0, 4.0)
 *   GROUP BY user:              (a, 0.0, 2.2, 2) (b, 0.0, 2.2, 1) | (a, 3.0, 4.0, 1)
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { queryChanges } from './query-changes.js';

interface Click {
  user: string;
  kind: string;
  amount: number;
  ts: number;
}

const BASE = Date.UTC(2026, 0, 1);
const GAP = 1_000;

/** Sessions of the clicks (sorted by time), then one row per session and group. */
function oracle(
  clicks: readonly Click[],
  partitionOf: (c: Click) => string,
  groupOf: (c: Click) => string[],
): string[] {
  const partitions = new Map<string, Click[]>();
  for (const c of clicks) {
    const p = partitionOf(c);
    partitions.set(p, [...(partitions.get(p) ?? []), c]);
  }
  const rows: string[] = [];
  for (const members of partitions.values()) {
    const sorted = [...members].sort((a, b) => a.ts - b.ts);
    let session: Click[] = [];
    const close = (): void => {
      if (session.length === 0) return;
      const start = (session[0] as Click).ts;
      const end = Math.max(...session.map((c) => c.ts)) + GAP;
      const groups = new Map<string, { key: string[]; count: number; sum: number }>();
      for (const c of session) {
        const key = groupOf(c);
        const g = groups.get(JSON.stringify(key)) ?? { key, count: 0, sum: 0 };
        g.count += 1;
        g.sum += c.amount;
        groups.set(JSON.stringify(key), g);
      }
      for (const g of groups.values())
        rows.push(JSON.stringify([...g.key, g.count, g.sum, start, end]));
      session = [];
    };
    for (const c of sorted) {
      // Windows [ts, ts + gap) that touch merge, as Flink's TimeWindow.intersects says.
      if (session.length > 0 && c.ts > Math.max(...session.map((s) => s.ts)) + GAP) close();
      session.push(c);
    }
    close();
  }
  return rows.sort();
}

async function run(clicks: readonly Click[], select: string, parallelism: number) {
  const [changes = []] = await queryChanges(
    {
      name: 'clicks',
      rows: clicks,
      columns: [
        { name: 'user', type: 'STRING' },
        { name: 'kind', type: 'STRING' },
        { name: 'amount', type: 'BIGINT' },
        { name: 'ts', type: 'TIMESTAMP(3)' },
      ],
      // Later than any disorder of the input: no row is late, so the batch answer is exact.
      watermark: { column: 'ts', expression: "ts - INTERVAL '60' SECOND" },
    },
    [select],
    { parallelism, batchSize: 1 },
  );
  expect(changes.every((c) => c.kind === '+I')).toBe(true);
  return changes
    .map((c) =>
      JSON.stringify(c.value.map((v) => (typeof v === 'string' || v === null ? v : Number(v)))),
    )
    .sort();
}

const clickArb = fc.record({
  user: fc.constantFrom('a', 'b', 'c'),
  kind: fc.constantFrom('x', 'y'),
  amount: fc.integer({ min: -5, max: 9 }),
  // Clustered times, so that sessions of several rows and gaps between them both occur.
  ts: fc
    .tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 1_400 }))
    .map(([cluster, t]) => BASE + cluster * 4_000 + t),
});
const clicksArb = fc.array(clickArb, { minLength: 1, maxLength: 40 });

const SESSION = (partition: string): string =>
  `TABLE(SESSION(TABLE clicks${partition}, DESCRIPTOR(ts), INTERVAL '1' SECOND))`;

describe('SESSION window TVF', () => {
  it('without PARTITION BY forms sessions over all rows, split by the GROUP BY key', async () => {
    await fc.assert(
      fc.asyncProperty(clicksArb, fc.constantFrom(1, 2), async (clicks, parallelism) => {
        const got = await run(
          clicks,
          `SELECT user, COUNT(*), SUM(amount), window_start, window_end FROM ${SESSION('')}
           GROUP BY user, window_start, window_end`,
          parallelism,
        );
        expect(got).toEqual(
          oracle(
            clicks,
            () => 'all',
            (c) => [c.user],
          ),
        );
      }),
      { seed: 26, numRuns: 8 },
    );
  }, 120_000);

  it('with PARTITION BY forms sessions per partition, split by further GROUP BY keys', async () => {
    await fc.assert(
      fc.asyncProperty(clicksArb, fc.constantFrom(1, 2), async (clicks, parallelism) => {
        const byUser = await run(
          clicks,
          `SELECT user, COUNT(*), SUM(amount), window_start, window_end
           FROM ${SESSION(' PARTITION BY user')} GROUP BY user, window_start, window_end`,
          parallelism,
        );
        expect(byUser).toEqual(
          oracle(
            clicks,
            (c) => c.user,
            (c) => [c.user],
          ),
        );
        const byUserAndKind = await run(
          clicks,
          `SELECT user, kind, COUNT(*), SUM(amount), window_start, window_end
           FROM ${SESSION(' PARTITION BY user')} GROUP BY kind, user, window_start, window_end`,
          parallelism,
        );
        expect(byUserAndKind).toEqual(
          oracle(
            clicks,
            (c) => c.user,
            (c) => [c.user, c.kind],
          ),
        );
      }),
      { seed: 27, numRuns: 6 },
    );
  }, 120_000);

  it('keeps per-key sessions for the legacy GROUP BY SESSION(...) group window', async () => {
    const clicks: Click[] = [
      { user: 'a', kind: 'x', amount: 1, ts: BASE },
      { user: 'b', kind: 'x', amount: 2, ts: BASE + 900 },
      { user: 'a', kind: 'x', amount: 3, ts: BASE + 1_800 },
    ];
    const got = await run(
      clicks,
      `SELECT user, COUNT(*), SUM(amount), SESSION_START(ts, INTERVAL '1' SECOND),
         SESSION_END(ts, INTERVAL '1' SECOND)
       FROM clicks GROUP BY user, SESSION(ts, INTERVAL '1' SECOND)`,
      1,
    );
    expect(got).toEqual(
      oracle(
        clicks,
        (c) => c.user,
        (c) => [c.user],
      ),
    );
  });
});
