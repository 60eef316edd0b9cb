/**
 * CUMULATE over a PROCTIME() column: which windows a row joins depends on the clock when it
 * reaches the window operator, so each result is checked against invariants that hold for any
 * timing. Within one period (windows sharing a start), a key's windows grow by the step and
 * their counts never shrink; the period's full window (start + max size) holds every row of
 * the key that arrived in the period, so those counts add up to the key's rows; the open
 * windows fire at the end of the bounded input.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CollectSink, type Row, StreamEnvironment, TableEnvironment } from '../../src/index.js';

const STEP = 1_000;
const MAX = 60_000;

describe('CUMULATE over processing time', () => {
  for (const parallelism of [1, 2]) {
    it(`counts per key and cumulating window add up to the input (parallelism ${parallelism})`, async () => {
      const events = fc.sample(
        fc.record({ k: fc.constantFrom('a', 'b', 'c'), v: fc.integer({ min: 1, max: 9 }) }),
        { seed: 11, numRuns: 300 },
      );
      const env = new StreamEnvironment({ parallelism, batchSize: 7 });
      const tEnv = TableEnvironment.create(env);
      tEnv.fromDataStream('raw', env.fromArray(events), {
        columns: [
          { name: 'k', type: 'STRING' },
          { name: 'v', type: 'INT' },
        ],
      });
      const sink = new CollectSink<Row>();
      tEnv
        .sqlQuery(
          `WITH ev AS (SELECT k, v, PROCTIME() AS pt FROM raw)
           SELECT k, COUNT(*) AS n, SUM(v) AS s, window_start, window_end
           FROM TABLE(CUMULATE(TABLE ev, DESCRIPTOR(pt),
             INTERVAL '1' SECOND, INTERVAL '1' MINUTE))
           GROUP BY k, window_start, window_end`,
        )
        .toDataStream()
        .sinkTo(sink);
      await env.execute('cumulate proctime');

      const periods = new Map<string, { end: number; n: number; s: number }[]>();
      for (const [k, n, s, start, end] of sink.values as [string, number, number, Date, Date][]) {
        const from = new Date(start).getTime();
        const to = new Date(end).getTime();
        expect(from % MAX).toBe(0);
        expect((to - from) % STEP).toBe(0);
        expect(to - from).toBeGreaterThan(0);
        expect(to - from).toBeLessThanOrEqual(MAX);
        const key = `${k}@${from}`;
        periods.set(key, [...(periods.get(key) ?? []), { end: to, n: Number(n), s: Number(s) }]);
      }
      const totals = new Map<string, { n: number; s: number }>();
      for (const [key, windows] of periods) {
        windows.sort((a, b) => a.end - b.end);
        // One result per window, growing with it.
        expect(new Set(windows.map((w) => w.end)).size).toBe(windows.length);
        for (let i = 1; i < windows.length; i++) {
          expect(windows[i]?.n).toBeGreaterThanOrEqual(windows[i - 1]?.n as number);
          expect(windows[i]?.s).toBeGreaterThanOrEqual(windows[i - 1]?.s as number);
        }
        const full = windows[windows.length - 1] as { end: number; n: number; s: number };
        const k = key.split('@')[0] as string;
        const t = totals.get(k) ?? { n: 0, s: 0 };
        totals.set(k, { n: t.n + full.n, s: t.s + full.s });
      }
      for (const k of ['a', 'b', 'c']) {
        const rows = events.filter((e) => e.k === k);
        expect(totals.get(k)).toEqual({ n: rows.length, s: rows.reduce((a, e) => a + e.v, 0) });
      }
    }, 60_000);
  }
});
