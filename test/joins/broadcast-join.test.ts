/**
 * Broadcast join of a stream against a small side table, against a batch
 * oracle (look every main record up in the final table), at parallelism 1
 * and 2, with a side that arrives late (main records wait), a changelog
 * side, and across a savepoint.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Change,
  CollectSink,
  StreamEnvironment,
  WatermarkStrategy,
  Windows,
} from '../../src/index.js';
import { ScriptedSource } from '../helpers/timeline.js';
import { savepointRoundTrip } from './helpers.js';

interface Bid {
  readonly auction: number;
  readonly t: number;
  readonly id: number;
}

interface Row {
  readonly key: number;
  readonly name: string;
}

const bidsArb = fc
  .array(
    fc.record({ auction: fc.integer({ min: 0, max: 30 }), t: fc.integer({ min: 0, max: 500 }) }),
    {
      maxLength: 60,
    },
  )
  .map((bs) => bs.map((b, id) => ({ ...b, id })));

const rowsArb = fc.array(
  fc.record({ key: fc.integer({ min: 0, max: 9 }), name: fc.constantFrom('x', 'y', 'z', 'w') }),
  { maxLength: 15 },
);

/** The table after all side rows (a later row replaces an earlier one of its key). */
function tableOf(rows: readonly Row[]): Map<number, Row> {
  return new Map(rows.map((r) => [r.key, r]));
}

function oracle(bids: readonly Bid[], table: Map<number, Row>, kind: 'inner' | 'left'): string[] {
  const out: string[] = [];
  for (const b of bids) {
    const row = table.get(b.auction % 10);
    if (row !== undefined || kind === 'left') out.push(`${b.id}:${row?.name ?? '-'}`);
  }
  return out.sort();
}

describe('broadcast join', () => {
  it('equals the batch lookup over the complete side table, inner and left, at parallelism 1 and 2', async () => {
    await fc.assert(
      fc.asyncProperty(
        bidsArb,
        rowsArb,
        fc.constantFrom<'inner' | 'left'>('inner', 'left'),
        async (bids, rows, kind) => {
          const expected = oracle(bids, tableOf(rows), kind);
          for (const parallelism of [1, 2]) {
            const env = new StreamEnvironment({ parallelism, batchSize: 3 });
            const side = env.fromArray(rows);
            const main = env.fromArray(bids);
            const options = {
              mainKey: (b: Bid) => b.auction % 10,
              sideKey: (r: Row) => r.key,
            };
            const joined =
              kind === 'inner'
                ? main.broadcastJoin(side, { ...options, join: (b, r) => `${b.id}:${r.name}` })
                : main.broadcastJoin(side, {
                    ...options,
                    kind: 'left',
                    join: (b, r) => `${b.id}:${r?.name ?? '-'}`,
                  });
            expect((await joined.executeAndCollect()).sort()).toEqual(expected);
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  it('main records that arrive before the side is loaded wait for it, and the watermark waits too', async () => {
    //  main:  bids at t = 0..99, all at once
    //  side:  (pause 150 ms) rows for keys 0..9 ─ end
    //  every bid joins; a tumbling count over the output sees none of them late
    const env = new StreamEnvironment({ batchSize: 10 });
    const rows: Row[] = Array.from({ length: 10 }, (_, key) => ({ key, name: `n${key}` }));
    const side = env.fromSource(
      new ScriptedSource<Row>([{ pauseMs: 150 }, { records: rows }], true, 'slow side'),
    );
    const bids: Bid[] = Array.from({ length: 100 }, (_, id) => ({ auction: id * 7, t: id, id }));
    const main = env
      .fromArray(bids)
      .assignTimestampsAndWatermarks(
        WatermarkStrategy.forMonotonousTimestamps<Bid>().withTimestampAssigner((b) => b.t),
      );
    const joined = main.broadcastJoin(side, {
      mainKey: (b) => b.auction % 10,
      sideKey: (r) => r.key,
      join: (b, r) => ({ id: b.id, name: r.name, t: b.t }),
    });
    const all = new CollectSink<{ id: number; name: string; t: number }>();
    joined.sinkTo(all);
    const counts = new CollectSink<string>();
    joined
      .keyBy(() => 'all')
      .window(Windows.tumbling(10))
      .aggregate({
        createAccumulator: () => 0,
        add: (_r, n) => n + 1,
        getResult: (n) => n,
      })
      .map((r) => `${r.window.start}:${r.value}`)
      .sinkTo(counts);
    const result = await env.execute();
    expect(all.values).toHaveLength(100);
    for (const [i, r] of all.values.entries()) {
      expect(r.name).toBe(`n${(r.id * 7) % 10}`);
      expect(all.timestamps[i]).toBe(r.t);
    }
    expect(counts.values.sort()).toEqual(
      Array.from({ length: 10 }, (_, w) => `${w * 10}:10`).sort(),
    );
    expect(result.metric('weir_window_late_records_total')).toBe(0);
  });

  it('a changelog side: +I/+U put rows, -U/-D remove them', async () => {
    const env = new StreamEnvironment({ batchSize: 2, parallelism: 2 });
    const changes: Change<Row>[] = [
      { kind: '+I', value: { key: 1, name: 'a' } },
      { kind: '+I', value: { key: 2, name: 'b' } },
      { kind: '-U', value: { key: 1, name: 'a' } },
      { kind: '+U', value: { key: 1, name: 'A' } },
      { kind: '+I', value: { key: 3, name: 'c' } },
      { kind: '-D', value: { key: 2, name: 'b' } },
    ];
    const bids: Bid[] = [1, 2, 3, 4].map((auction, id) => ({ auction, t: id, id }));
    const out = await env
      .fromArray(bids)
      .broadcastJoinChangelog(env.fromArray(changes), {
        mainKey: (b) => b.auction,
        sideKey: (r) => r.key,
        kind: 'left',
        join: (b, r) => `${b.auction}:${r?.name ?? '-'}`,
      })
      .executeAndCollect();
    expect(out.sort()).toEqual(['1:A', '2:-', '3:c', '4:-']);
  });

  it('refuses missing functions and names a bad side change', async () => {
    const env = new StreamEnvironment();
    const s = env.fromArray([{ auction: 1, t: 0, id: 0 }]);
    const incomplete = { mainKey: (b: { auction: number }) => b.auction, join: (b: unknown) => b };
    expect(() =>
      s.broadcastJoin(
        env.fromArray<Row>([]),
        incomplete as unknown as Parameters<typeof s.broadcastJoin>[1],
      ),
    ).toThrow(/sideKey/);
    const badSide = env.fromArray<Change<Row>>([
      { kind: '+X' as '+I', value: { key: 1, name: 'a' } },
    ]);
    s.broadcastJoinChangelog(badSide, {
      mainKey: (b) => b.auction,
      sideKey: (r) => r.key,
      join: (b) => b,
    }).sinkTo(new CollectSink());
    await expect(env.execute()).rejects.toThrow(/side changelog record must be .*\+X/);
  });

  it('a savepoint taken while the side is still loading (main records buffered) restores to the uninterrupted result, also at another parallelism', async () => {
    // The savepoint is taken while the (slower) side is loading: the buffered
    // main records and the partial table are in it.
    const { expected, got } = await savepointRoundTrip(
      (env, rate) => {
        const side = env
          .fromGenerator({
            count: 1000,
            ...(rate === undefined ? {} : { ratePerSecond: rate / 4 }),
            generate: (key): Row => ({ key, name: `n${key % 97}` }),
          })
          .setParallelism(1)
          .uid('side');
        return env
          .fromGenerator({
            count: 6000,
            ...(rate === undefined ? {} : { ratePerSecond: rate }),
            generate: (i): Bid => ({ auction: (i * 31) % 1500, t: i, id: i }),
          })
          .setParallelism(1)
          .uid('bids')
          .broadcastJoin(side, {
            mainKey: (b) => b.auction,
            sideKey: (r) => r.key,
            join: (b, r) => `${b.id} ${r.name}`,
          })
          .uid('bj');
      },
      { parallelism: 2, restoreParallelism: 1, rate: 5_000, stopAfterMs: 150 },
    );
    expect(expected.length).toBe(4000);
    expect(got).toEqual(expected);
  });

  it('after the bounded side has ended, checkpoints go on: a savepoint then restores to the uninterrupted result', async () => {
    const rows: Row[] = Array.from({ length: 1000 }, (_, key) => ({ key, name: `n${key % 97}` }));
    const { expected, got, beforeStop } = await savepointRoundTrip(
      (env, rate) =>
        env
          .fromGenerator({
            count: 6000,
            ...(rate === undefined ? {} : { ratePerSecond: rate }),
            generate: (i): Bid => ({ auction: (i * 31) % 1500, t: i, id: i }),
          })
          .setParallelism(1)
          .uid('bids')
          .broadcastJoin(env.fromArray(rows).uid('side'), {
            mainKey: (b) => b.auction,
            sideKey: (r) => r.key,
            join: (b, r) => `${b.id} ${r.name}`,
          })
          .uid('bj'),
      { parallelism: 2, restoreParallelism: 1, rate: 5_000, stopAfterMs: 200 },
    );
    expect(expected.length).toBe(4000);
    expect(beforeStop).toBeGreaterThan(0);
    expect(beforeStop).toBeLessThan(expected.length);
    expect(got).toEqual(expected);
  });
});
