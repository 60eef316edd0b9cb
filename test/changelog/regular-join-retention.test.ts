/**
 * `regularJoin(..., { retainUntil })`: an insert-only side's rows dropped once the watermark
 * reaches the time from which no later row of the other side can match them. The other side
 * here is a tumbling window's results (emitted when the watermark passes each window's end),
 * joined on a key and on the event's time lying in the window's last `SPAN` ms. The joined
 * rows equal those of the join that keeps every row; its state holds the last events only
 * over a long run, where the other holds them all; a savepoint taken part-way restores (also at another parallelism)
 * to the uninterrupted run's rows.
 */
import { describe, expect, it } from 'vitest';
import {
  type Change,
  type ChangelogStream,
  CollectSink,
  type JobClient,
  StreamEnvironment,
  WatermarkStrategy,
  Windows,
} from '../../src/index.js';
import { render, withSavepoint } from './helpers.js';

interface Ev {
  readonly k: number;
  readonly t: number;
}

interface Ends {
  readonly k: number;
  readonly end: number;
  readonly n: number;
}

const WINDOW = 100;
/** An event joins the windows of its key ending within this many ms after it. */
const SPAN = 150;

const strategy = WatermarkStrategy.forBoundedOutOfOrderness<Ev>(20).withTimestampAssigner(
  (e) => e.t,
);

/** Events `i` of key `i % keys` at about `i` ms, a little out of order (some late). */
function event(i: number, keys: number): Ev {
  return { k: i % keys, t: i + ((i * 37) % 50) - 25 };
}

/** Events joined with the per-key window counts of the same events. */
function job(
  env: StreamEnvironment,
  count: number,
  keys: number,
  retain: boolean,
  rate?: number,
): ChangelogStream<readonly [Ev, Ends]> {
  const events = env
    .fromGenerator({
      count,
      generate: (i) => event(i, keys),
      ...(rate === undefined ? {} : { ratePerSecond: rate }),
    })
    .setParallelism(1)
    .uid('events')
    .assignTimestampsAndWatermarks(strategy);
  const ends = events
    .keyBy((e) => e.k)
    .window(Windows.tumbling(WINDOW))
    .aggregate({
      createAccumulator: () => 0,
      add: (_: Ev, n: number) => n + 1,
      getResult: (n: number) => n,
      merge: (a: number, b: number) => a + b,
    })
    .map((r): Ends => ({ k: r.key, end: r.window.end, n: r.value }))
    .uid('ends');
  return events
    .toChangelog()
    .regularJoin(ends.toChangelog(), {
      leftKey: (e) => e.k,
      rightKey: (w) => w.k,
      where: (e, w) => e.t >= w.end - SPAN && e.t <= w.end,
      unboundedState: true,
      // A window ending after t + SPAN cannot take the event; every later window ends later
      // than the watermark at its arrival.
      ...(retain ? { retainUntil: { left: (e: Ev) => e.t + SPAN } } : {}),
    })
    .uid('join');
}

describe('regular join rows dropped by the watermark (retainUntil)', () => {
  it.each(['heap', 'disk'] as const)(
    'joins the rows the join that keeps them all joins, holding only the recent events (%s)',
    async (backend) => {
      // The disk backend's state gauge reads the store: a shorter run there.
      const N = backend === 'heap' ? 30_000 : 6_000;
      const run = async (retain: boolean) => {
        const samples: { at: number; entries: number }[] = [];
        let job_: JobClient | undefined;
        const env = new StreamEnvironment({ batchSize: 100, stateBackend: { kind: backend } });
        const joined = job(env, N, 10, retain);
        const sink = new CollectSink<Change<readonly [Ev, Ends]>>();
        let seen = 0;
        joined
          .map((c) => {
            // Single-threaded runtime: the join's state gauge can be read right here.
            if (job_ !== undefined && ++seen % 200 === 0) {
              const entries = job_.metrics
                .samples('weir_state_entries')
                .filter((s) => s.labels.operator === 'join')
                .reduce((a, s) => a + s.value, 0);
              samples.push({ at: c.value[0].t, entries });
            }
            return c;
          })
          .sinkTo(sink);
        job_ = env.executeAsync(retain ? 'retained' : 'kept');
        await job_.result;
        return { rows: render(sink.values).sort(), samples };
      };
      const retained = await run(true);
      const kept = await run(false);
      expect(retained.rows.length).toBeGreaterThan(N / 2);
      expect(retained.rows).toEqual(kept.rows);
      expect(retained.samples.length).toBeGreaterThan(10);
      // The heap keeps the events in a list per key, one state entry whatever its length: how
      // the sweep empties those lists is checked in regular-join-layout.test.ts.
      if (backend === 'heap') return;
      // Kept: every event. Dropped by the watermark: the events of the last SPAN ms or so, beside
      // the window counts, which no bound lets go (10 keys, one count each per 100 ms).
      const most = (samples: { entries: number }[]) => Math.max(...samples.map((x) => x.entries));
      expect(most(kept.samples)).toBeGreaterThan(N * 0.8);
      expect(most(retained.samples)).toBeLessThan((10 * N) / WINDOW + 2_000);
    },
  );

  it('a run stopped with a savepoint and restored (1 -> 2, 2 -> 1) joins the same rows', async () => {
    for (const [parallelism, restoredParallelism] of [
      [1, 2],
      [2, 1],
    ] as const) {
      const { uninterrupted, restored, beforeSavepoint } = await withSavepoint(
        (p, rate) => {
          const env = new StreamEnvironment({ parallelism: p, batchSize: 50 });
          return { env, changes: job(env, 6000, 31, true, rate) };
        },
        { parallelism, restoredParallelism, rate: 8000, stopAfterMs: 300 },
      );
      expect(uninterrupted.length).toBeGreaterThan(1000);
      expect(beforeSavepoint).toBeGreaterThan(0);
      expect(render(restored).sort()).toEqual(render(uninterrupted).sort());
    }
  });

  it('is refused for a side that is not insert-only, and where the other side is padded', () => {
    const env = new StreamEnvironment();
    const updating = env
      .fromArray([{ k: 1, t: 1 }])
      .toChangelog()
      .groupBy((e) => e.k)
      .updatingAggregate({
        createAccumulator: () => 0,
        add: (_: unknown, n: number) => n + 1,
        retract: (_: unknown, n: number) => n - 1,
        getResult: (n: number) => n,
      });
    expect(() =>
      updating.regularJoin(env.fromArray([{ k: 1, t: 1 }]).toChangelog(), {
        leftKey: (r) => r.key,
        rightKey: (e) => e.k,
        unboundedState: true,
        retainUntil: { left: () => 0 },
      }),
    ).toThrow(/retainUntil\.left needs an insert-only left input; it is retract/);
    const events = () => env.fromArray([{ k: 1, t: 1 }]).toChangelog();
    for (const type of ['right', 'full'] as const)
      expect(() =>
        events().regularJoin(events(), {
          type,
          leftKey: (e) => e.k,
          rightKey: (e) => e.k,
          unboundedState: true,
          retainUntil: { left: (e) => e.t },
        }),
      ).toThrow(/retainUntil\.left is for an inner or left join/);
  });
});
