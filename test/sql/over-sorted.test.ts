/**
 * OVER ordered by a column that is not a time attribute (an updating query, as in Flink 2.2):
 * after applying its changes, each row carries the aggregates of its partition's rows that
 * sort before it (RANGE: with its peers), whatever order the rows arrived in; compared with
 * that batch computation at parallelism 1 and 2 (fast-check).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Change,
  CollectSink,
  type Row,
  StreamEnvironment,
  TableEnvironment,
} from '../../src/index.js';
import { materialize } from '../changelog/helpers.js';

interface Event {
  id: number;
  k: string;
  v: number | null;
}

async function run(events: readonly Event[], sql: string, parallelism: number): Promise<string[]> {
  const env = new StreamEnvironment({ parallelism, batchSize: 4 });
  const tEnv = TableEnvironment.create(env);
  tEnv.fromDataStream('events', env.fromArray(events.map((e) => [e.id, e.k, e.v])), {
    columns: [
      { name: 'id', type: 'INT' },
      { name: 'k', type: 'STRING' },
      { name: 'v', type: 'INT' },
    ],
  });
  const table = tEnv.sqlQuery(sql);
  expect(table.changelogMode).toBe('retract');
  const sink = new CollectSink<Change<Row>>();
  table.toChangelogStream().sinkTo(sink);
  await env.execute('sorted over');
  return materialize(sink.values)
    .map((r) =>
      JSON.stringify((JSON.parse(r) as unknown[]).map((x) => (x === null ? x : Number(x)))),
    )
    .sort();
}

const eventsArb = fc
  .array(
    fc.record({
      k: fc.constantFrom('a', 'b'),
      v: fc.option(fc.integer({ min: 0, max: 6 }), { freq: 6 }),
    }),
    { minLength: 10, maxLength: 50 },
  )
  .map((es) => es.map((e, id) => ({ id, ...e })));

/** NULL lowest, as Flink sorts. */
const rank = (v: number | null): number => (v === null ? Number.NEGATIVE_INFINITY : v);

describe('OVER ordered by a non-time column', () => {
  it('RANGE (the default frame): each row with its partition up to its peers', async () => {
    await fc.assert(
      fc.asyncProperty(eventsArb, fc.constantFrom(1, 2), async (events, parallelism) => {
        const got = await run(
          events,
          'SELECT id, SUM(v) OVER w, COUNT(*) OVER w, MAX(v) OVER w FROM events WINDOW w AS (PARTITION BY k ORDER BY v)',
          parallelism,
        );
        const expected = events.map((e) => {
          const frame = events.filter((r) => r.k === e.k && rank(r.v) <= rank(e.v));
          const vs = frame.map((r) => r.v).filter((v): v is number => v !== null);
          const s = vs.length === 0 ? null : vs.reduce((a, b) => a + b, 0);
          return JSON.stringify([e.id, s, frame.length, vs.length === 0 ? null : Math.max(...vs)]);
        });
        expect(got).toEqual(expected.sort());
      }),
      { seed: 31, numRuns: 8 },
    );
  }, 60_000);

  it('ROWS UNBOUNDED ordered descending by a unique column: each row with the rows before it', async () => {
    await fc.assert(
      fc.asyncProperty(eventsArb, async (events) => {
        const got = await run(
          events,
          `SELECT id, COUNT(v) OVER (PARTITION BY k ORDER BY id DESC
             ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM events`,
          2,
        );
        const expected = events.map((e) => {
          const frame = events.filter((r) => r.k === e.k && r.id >= e.id && r.v !== null);
          return JSON.stringify([e.id, frame.length]);
        });
        expect(got).toEqual(expected.sort());
      }),
      { seed: 32, numRuns: 6 },
    );
  }, 60_000);
});
