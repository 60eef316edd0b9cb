/**
 * `withPeriodicInterval`: `onPeriodicEmit` also runs on a processing-time
 * timer while no batch arrives. Bounded jobs give the same output whatever the
 * clock does; a live input that goes quiet can advance event time.
 */
import { describe, expect, it } from 'vitest';
import {
  type Clock,
  StreamEnvironment,
  type WatermarkGenerator,
  type WatermarkOutput,
  WatermarkStrategy,
  Windows,
} from '../../src/index.js';
import {
  collect,
  countSum,
  type Ev,
  ev,
  fmtAll,
  lateCount,
  ScriptedSource,
  sleep,
  sorted,
  waitUntil,
} from '../helpers/timeline.js';

/** Advances by `step` ms every time it is read: 0 freezes time, a large step makes every timer due at once. */
class SteppingClock implements Clock {
  private time = 0;
  constructor(private readonly step: number) {}
  now(): number {
    this.time += this.step;
    return this.time;
  }
}

/** Time moves only when the test sets it. */
class ManualClock implements Clock {
  time = 0;
  now(): number {
    return this.time;
  }
}

describe('withPeriodicInterval', () => {
  it('refuses an interval that is not a positive number of ms', () => {
    for (const ms of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => WatermarkStrategy.forMonotonousTimestamps().withPeriodicInterval(ms)).toThrow(
        /periodic watermark interval must be a positive number of ms/,
      );
    }
  });

  it('keeps the rest of the strategy', () => {
    const assigner = (e: Ev) => e.t;
    const spec = WatermarkStrategy.forBoundedOutOfOrderness<Ev>(5)
      .withTimestampAssigner(assigner)
      .withIdleness(100)
      .withPeriodicInterval(200)
      .toSpec();
    expect(spec.timestampAssigner).toBe(assigner);
    expect(spec.idlenessMs).toBe(100);
    expect(spec.periodicIntervalMs).toBe(200);
    expect(WatermarkStrategy.forMonotonousTimestamps().toSpec().periodicIntervalMs).toBeUndefined();
  });
});

describe('bounded input stays deterministic', () => {
  /*
   * Out of order by up to 100, bound 20: some records are late, which depends
   * on where watermarks fall between records. batchSize 3, tumbling 50.
   */
  const input: Ev[] = [];
  for (let i = 0; i < 120; i++) {
    input.push(ev(i % 3 === 0 ? 'a' : 'b', 100 + i * 10 - ((i * 7) % 5) * 25));
  }

  /** Bounded out-of-orderness plus a punctuation at multiples of 250; counts its periodic calls. */
  const counting = (calls: { n: number }) =>
    WatermarkStrategy.forGenerator<Ev>(() => {
      let max = Number.NEGATIVE_INFINITY;
      return {
        onEvent(e: Ev, t: number, out: WatermarkOutput) {
          max = Math.max(max, t);
          if (e.t % 250 === 0) out.emitWatermark(t - 40);
        },
        onPeriodicEmit(out: WatermarkOutput) {
          calls.n++;
          if (max > Number.NEGATIVE_INFINITY) out.emitWatermark(max - 21);
        },
      } satisfies WatermarkGenerator<Ev>;
    }).withTimestampAssigner((e) => e.t);

  async function run(
    p: number,
    clock: Clock,
    interval: number | undefined,
  ): Promise<{ windows: string[]; late: number; calls: number }> {
    const calls = { n: 0 };
    const strategy =
      interval === undefined ? counting(calls) : counting(calls).withPeriodicInterval(interval);
    const env = new StreamEnvironment({ parallelism: p, batchSize: 3, clock });
    const sink = collect(
      env
        .fromArray(input)
        .assignTimestampsAndWatermarks(strategy)
        .keyBy((e) => e.k)
        .window(Windows.tumbling(50))
        .aggregate(countSum),
    );
    const result = await env.execute();
    return { windows: sorted(fmtAll(sink.values)), late: lateCount(result), calls: calls.n };
  }

  it.each([1, 2])(
    'the same windows and late records with a frozen, fast or slow clock (parallelism %i)',
    async (p) => {
      const reference = await run(p, new SteppingClock(0), undefined);
      expect(reference.late).toBeGreaterThan(0);
      // One periodic call per batch: 120 records in batches of 3.
      expect(reference.calls).toBe(40);
      let timerCalls = 0;
      for (const step of [0, 1, 7, 1000]) {
        for (let repeat = 0; repeat < 2; repeat++) {
          const { windows, late, calls } = await run(p, new SteppingClock(step), 10);
          expect({ windows, late }).toEqual({ windows: reference.windows, late: reference.late });
          timerCalls = Math.max(timerCalls, calls - reference.calls);
        }
      }
      // The slow clock made the timer call onPeriodicEmit between batches too.
      expect(timerCalls).toBeGreaterThan(0);
    },
  );

  it('without an interval nothing runs on a timer', async () => {
    expect((await run(1, new SteppingClock(1000), undefined)).calls).toBe(40);
  });
});

describe('a quiet live input', () => {
  /*
   * tumbling 1000, bound 500; the generator assumes the stream is complete
   * once it has had no record for 1 s of processing time (watermark max - 1).
   *
   *   a@500 a@1200, then quiet        W = 699: [0,1000) open
   *   clock +5 s, timer: quiet        W = 1199: [0,1000) fires
   */
  const quietAdvance = (clock: Clock, interval: number | undefined) => {
    const strategy = WatermarkStrategy.forGenerator<Ev>(() => {
      let max = Number.NEGATIVE_INFINITY;
      let lastEventAt = clock.now();
      return {
        onEvent(_e: Ev, t: number) {
          max = Math.max(max, t);
          lastEventAt = clock.now();
        },
        onPeriodicEmit(out: WatermarkOutput) {
          if (max === Number.NEGATIVE_INFINITY) return;
          out.emitWatermark(clock.now() - lastEventAt >= 1000 ? max - 1 : max - 501);
        },
      };
    }).withTimestampAssigner((e) => e.t);
    return interval === undefined ? strategy : strategy.withPeriodicInterval(interval);
  };

  const start = (p: number, interval: number | undefined) => {
    const clock = new ManualClock();
    const env = new StreamEnvironment({ parallelism: p, clock });
    const source = new ScriptedSource<Ev>([{ records: [ev('a', 500), ev('a', 1200)] }], false);
    const sink = collect(
      env
        .fromSource(source, quietAdvance(clock, interval))
        .keyBy((e) => e.k)
        .window(Windows.tumbling(1000))
        .aggregate(countSum),
    );
    return { clock, source, sink, job: env.executeAsync('quiet') };
  };

  it.each([1, 2])(
    'the timer advances event time (parallelism %i)',
    async (p) => {
      const { clock, source, sink, job } = start(p, 100);
      try {
        await waitUntil(() => source.finished, 3000, 'the script to play');
        await sleep(100);
        expect(sink.values).toEqual([]);
        clock.time = 5000;
        await waitUntil(() => sink.values.length > 0, 3000, 'the window to fire');
        expect(fmtAll(sink.values)).toEqual(['a [0,1000) 1/1 on-time']);
      } finally {
        await job.cancel();
      }
    },
    10_000,
  );

  it('without an interval the quiet input holds event time', async () => {
    const { clock, source, sink, job } = start(1, undefined);
    try {
      await waitUntil(() => source.finished, 3000, 'the script to play');
      clock.time = 5000;
      await sleep(300);
      expect(sink.values).toEqual([]);
    } finally {
      await job.cancel();
    }
  }, 10_000);

  it('a stream idle by timeout gets no periodic calls', async () => {
    const clock = new ManualClock();
    let calls = 0;
    const strategy = WatermarkStrategy.forGenerator<Ev>(() => ({
      onEvent() {},
      onPeriodicEmit() {
        calls++;
      },
    }))
      .withTimestampAssigner((e) => e.t)
      .withIdleness(1000)
      .withPeriodicInterval(100);
    const env = new StreamEnvironment({ clock });
    const source = new ScriptedSource<Ev>([{ records: [ev('a', 1)] }], false);
    collect(env.fromSource(source, strategy));
    const job = env.executeAsync('idle');
    try {
      await waitUntil(() => source.finished && calls >= 1, 3000, 'the first batch');
      clock.time = 500;
      await waitUntil(() => calls >= 2, 3000, 'a timer call');
      clock.time = 5000;
      await sleep(200);
      const idleCalls = calls;
      clock.time = 6000;
      await sleep(200);
      expect(calls).toBe(idleCalls);
    } finally {
      await job.cancel();
    }
  }, 10_000);
});
