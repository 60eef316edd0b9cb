/**
 * Keyed connected streams (`a.connect(b).keyBy(keyA, keyB)`): the control-stream pattern of
 * Flink's training (a keyed co-flat-map with a `ValueState<boolean>`) (Flink's
 * KeyedCoProcessOperatorTest is in flink-co-process-scenarios.test.ts), an enrichment whose event-time
 * timer gives up on a side that does not arrive (the training's rides and fares), parallelism 1
 * against 2, and a run that fails and is restored from its checkpoint against an uninterrupted one.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type Collector,
  CollectSink,
  type DataStream,
  ExactlyOnceFileSink,
  type KeyedCoFlatMapFunction,
  type KeyedCoMapFunction,
  type KeyedCoProcessFunction,
  type KeyedProcessContext,
  type KeyedRuntimeContext,
  type OnTimerContext,
  OutputTag,
  type Sink,
  StreamEnvironment,
  type ValueState,
  WatermarkStrategy,
} from '../../src/index.js';
import { type Emitted, TwoInputHarness } from '../../src/testing/index.js';

/** Records as `value@timestamp` (`value` alone without one), watermarks as `W<time>`. */
function rendered<T>(log: readonly Emitted<T>[]): string[] {
  return log.flatMap((e) => {
    if (e.kind === 'record')
      return [e.timestamp === undefined ? String(e.value) : `${e.value}@${e.timestamp}`];
    if (e.kind === 'watermark') return [`W${e.time}`];
    return [];
  });
}

/** Flink's training ControlFunction: words of the control stream block the same words of the data stream. */
const controlFunction = (): KeyedCoFlatMapFunction<string, string, string> & {
  blocked?: ValueState<boolean>;
} => ({
  open(ctx) {
    this.blocked = ctx.state.getValueState<boolean>('blocked');
  },
  flatMap1(_control) {
    this.blocked!.update(true);
  },
  flatMap2(word, out) {
    if (this.blocked!.value() !== true) out.collect(word);
  },
});

describe('the control-stream pattern (keyed co-flat-map with keyed state)', () => {
  it('blocks the words the control stream names, from when the control word arrives', () => {
    const h = TwoInputHarness.forKeyedCoProcessFunction(
      controlFunction(),
      (c: string) => c,
      (w: string) => w,
    );
    h.processElement2('DROP');
    for (const control of ['DROP', 'IGNORE']) h.processElement1(control);
    for (const word of ['Apache', 'DROP', 'Flink', 'IGNORE']) h.processElement2(word);
    // The first DROP came before its control word.
    expect(h.outputValues()).toEqual(['DROP', 'Apache', 'Flink']);
  });

  it.each([1, 2])('in a job at parallelism %i', async (parallelism) => {
    // Small batches and words of other keys first: the control words, one batch, are read
    // long before the data words they block.
    const env = new StreamEnvironment({ parallelism, batchSize: 10 });
    const warmUp = Array.from({ length: 300 }, (_, i) => `warm-up-${i}`);
    const control = env.fromArray(['DROP', 'IGNORE']);
    const words = env.fromArray([...warmUp, 'Apache', 'DROP', 'Flink', 'IGNORE', 'Weir']);
    const out = await control
      .connect(words)
      .keyBy(
        (c) => c,
        (w) => w,
      )
      .flatMap(controlFunction())
      .executeAndCollect();
    expect(out.filter((w) => !w.startsWith('warm-up-')).sort()).toEqual([
      'Apache',
      'Flink',
      'Weir',
    ]);
    expect(out).toHaveLength(303);
  });
});

describe('keyedA.connect(keyedB), as a.connect(b).keyBy(keyA, keyB)', () => {
  it.each([1, 2])(
    'shares each key state across both inputs at parallelism %i',
    async (parallelism) => {
      const env = new StreamEnvironment({ parallelism, batchSize: 10 });
      const warmUp = Array.from({ length: 300 }, (_, i) => `warm-up-${i}`);
      const control = env.fromArray(['DROP', 'IGNORE']).keyBy((c) => c);
      const words = env
        .fromArray([...warmUp, 'Apache', 'DROP', 'Flink', 'IGNORE', 'Weir'])
        .keyBy((w) => w);
      const out = await control.connect(words).flatMap(controlFunction()).executeAndCollect();
      expect(out.filter((w) => !w.startsWith('warm-up-')).sort()).toEqual([
        'Apache',
        'Flink',
        'Weir',
      ]);
      expect(out).toHaveLength(303);
    },
  );

  it('refuses a stream that is not keyed by this API', () => {
    const env = new StreamEnvironment();
    const keyed = env.fromArray([1]).keyBy((n) => n);
    expect(() => keyed.connect({} as never)).toThrow(/connect\(\) needs a stream built/);
  });
});

interface Ride {
  readonly rideId: number;
  readonly t: number;
  readonly driver: string;
}
interface Fare {
  readonly rideId: number;
  readonly t: number;
  readonly fare: number;
}

/** How long (event time) one side waits for the other before it is reported alone. */
const WAIT = 60;

/** Rides and fares for `n` ride ids: every 7th ride has no fare, every 11th fare no ride. */
function ridesAndFares(n: number): { rides: Ride[]; fares: Fare[] } {
  const rides: Ride[] = [];
  const fares: Fare[] = [];
  for (let id = 0; id < n; id++) {
    if (id % 11 !== 5) rides.push({ rideId: id, t: id * 10, driver: `d${id % 4}` });
    // A fare comes up to 20 ms after its ride (some before: -5).
    if (id % 7 !== 3) fares.push({ rideId: id, t: id * 10 + ((id % 5) - 1) * 5, fare: id % 13 });
  }
  return { rides, fares };
}

/** What the enrichment must give: joined pairs, and the rides and fares that waited in vain. */
function expectedEnrichment(n: number): { pairs: string[]; alone: string[] } {
  const { rides, fares } = ridesAndFares(n);
  const fareOf = new Map(fares.map((f) => [f.rideId, f]));
  const rideIds = new Set(rides.map((r) => r.rideId));
  const pairs = rides
    .filter((r) => fareOf.has(r.rideId))
    .map((r) => pair(r, fareOf.get(r.rideId)!));
  const alone = [
    ...rides.filter((r) => !fareOf.has(r.rideId)).map((r) => `ride ${r.rideId} without fare`),
    ...fares.filter((f) => !rideIds.has(f.rideId)).map((f) => `fare ${f.rideId} without ride`),
  ];
  return { pairs: pairs.sort(), alone: alone.sort() };
}

const pair = (r: Ride, f: Fare) => `ride ${r.rideId} by ${r.driver}: ${f.fare}`;

/**
 * The training's rides and fares: whichever side of a ride comes first waits in keyed state,
 * with an event-time timer `WAIT` after it; the other side joins it and deletes the timer, or
 * the timer reports it alone (to `alone`, or the main output without a tag).
 */
class EnrichRides implements KeyedCoProcessFunction<number, Ride, Fare, string> {
  private ride!: ValueState<Ride>;
  private fare!: ValueState<Fare>;
  constructor(private readonly alone?: OutputTag<string>) {}

  open(ctx: KeyedRuntimeContext) {
    this.ride = ctx.state.getValueState<Ride>('ride');
    this.fare = ctx.state.getValueState<Fare>('fare');
  }

  processElement1(ride: Ride, ctx: KeyedProcessContext<number>, out: Collector<string>) {
    const fare = this.fare.value();
    if (fare === undefined) {
      this.ride.update(ride);
      ctx.timerService.registerEventTimeTimer(ride.t + WAIT);
      return;
    }
    this.fare.clear();
    ctx.timerService.deleteEventTimeTimer(fare.t + WAIT);
    out.collect(pair(ride, fare));
  }

  processElement2(fare: Fare, ctx: KeyedProcessContext<number>, out: Collector<string>) {
    const ride = this.ride.value();
    if (ride === undefined) {
      this.fare.update(fare);
      ctx.timerService.registerEventTimeTimer(fare.t + WAIT);
      return;
    }
    this.ride.clear();
    ctx.timerService.deleteEventTimeTimer(ride.t + WAIT);
    out.collect(pair(ride, fare));
  }

  onTimer(_time: number, ctx: OnTimerContext<number>, out: Collector<string>) {
    const ride = this.ride.value();
    const fare = this.fare.value();
    const text =
      ride !== undefined ? `ride ${ctx.key} without fare` : `fare ${fare?.rideId} without ride`;
    this.ride.clear();
    this.fare.clear();
    if (this.alone === undefined) out.collect(text);
    else ctx.output(this.alone, text);
  }
}

function withEventTime<T extends { t: number }>(stream: DataStream<T>): DataStream<T> {
  return stream.assignTimestampsAndWatermarks(
    WatermarkStrategy.forMonotonousTimestamps<T>().withTimestampAssigner((r) => r.t),
  );
}

describe('an enrichment whose event-time timer gives up on the other side', () => {
  const RIDES = 400;

  async function run(parallelism: number) {
    const env = new StreamEnvironment({ parallelism, batchSize: 16 });
    const { rides, fares } = ridesAndFares(RIDES);
    const alone = new OutputTag<string>('alone');
    const enriched = withEventTime(env.fromArray(rides))
      .connect(withEventTime(env.fromArray(fares)))
      .keyBy(
        (r) => r.rideId,
        (f) => f.rideId,
      )
      .process(new EnrichRides(alone));
    const { records, sideOutputs } = await enriched.executeAndCollect({ sideOutputs: { alone } });
    return { pairs: records.sort(), alone: sideOutputs.alone.sort() };
  }

  it('joins each ride with its fare and reports the sides that never met, the same at parallelism 1 and 2', async () => {
    const expected = expectedEnrichment(RIDES);
    expect(expected.pairs.length).toBeGreaterThan(300);
    expect(expected.alone.length).toBeGreaterThan(80);
    expect(await run(1)).toEqual(expected);
    expect(await run(2)).toEqual(expected);
  });

  it('a timer fires once the watermark of both inputs passes it, not before', () => {
    const h = TwoInputHarness.forKeyedCoProcessFunction(
      new EnrichRides(),
      (r: Ride) => r.rideId,
      (f: Fare) => f.rideId,
    );
    h.processElement1({ rideId: 1, t: 10, driver: 'ann' }, 10);
    h.processWatermark1(500);
    h.processWatermark2(69);
    expect(h.outputValues()).toEqual([]);
    h.processWatermark2(70);
    expect(rendered(h.emitted())).toEqual(['W69', 'ride 1 without fare@70', 'W70']);
  });
});

describe('keyed co-map state', () => {
  it('counts per key over both inputs, the same at parallelism 1 and 2', async () => {
    const counting = (): KeyedCoMapFunction<number, string, string> & {
      count?: ValueState<number>;
    } => ({
      open(ctx) {
        this.count = ctx.state.getValueState<number>('count');
      },
      map1(n) {
        const c = (this.count!.value() ?? 0) + 1;
        this.count!.update(c);
        return `${n % 5}#${c}`;
      },
      map2(s) {
        const c = (this.count!.value() ?? 0) + 1;
        this.count!.update(c);
        return `${s.length}#${c}`;
      },
    });
    const run = async (parallelism: number) => {
      const env = new StreamEnvironment({ parallelism, batchSize: 8 });
      const numbers = env.fromArray(Array.from({ length: 100 }, (_, i) => i));
      const words = env.fromArray(Array.from({ length: 50 }, (_, i) => 'x'.repeat(i % 5)));
      const out = await numbers
        .connect(words)
        .keyBy(
          (n) => n % 5,
          (s) => s.length,
        )
        .map(counting())
        .executeAndCollect();
      return out.sort();
    };
    // Whichever way the inputs interleave, each key counts 1..30 (20 numbers and 10 words).
    const expected = [0, 1, 2, 3, 4]
      .flatMap((k) => Array.from({ length: 30 }, (_, i) => `${k}#${i + 1}`))
      .sort();
    expect(await run(1)).toEqual(expected);
    expect(await run(2)).toEqual(expected);
  });
});

describe('keyed connected streams across a failure and restore', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'weir-connect-restore-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const RIDES = 2_000;

  async function committedLines(out: string): Promise<string[]> {
    const lines: string[] = [];
    for (const f of (await readdir(out)).filter((f) => !f.startsWith('.')))
      lines.push(...(await readFile(join(out, f), 'utf8')).split('\n').filter(Boolean));
    // The sink writes each record as a JSON line.
    return lines.map((line) => JSON.parse(line) as string).sort();
  }

  /** The enrichment over paced generators, into `sink`; with `failAt`, the rides' path throws at that ride. */
  function buildJob(env: StreamEnvironment, sink: Sink<string>, failAt?: number) {
    const { rides, fares } = ridesAndFares(RIDES);
    let seen = 0;
    const rideStream = env
      .fromGenerator({ count: rides.length, ratePerSecond: 20_000, generate: (i) => rides[i]! })
      .setParallelism(1)
      .uid('rides')
      .map((r) => {
        if (failAt !== undefined && ++seen === failAt) throw new Error('injected failure');
        return r;
      })
      .setParallelism(1)
      .uid('fail');
    const fareStream = env
      .fromGenerator({ count: fares.length, ratePerSecond: 20_000, generate: (i) => fares[i]! })
      .setParallelism(1)
      .uid('fares');
    withEventTime(rideStream)
      .uid('ride-times')
      .connect(withEventTime(fareStream).uid('fare-times'))
      .keyBy(
        (r) => r.rideId,
        (f) => f.rideId,
      )
      .process(new EnrichRides())
      .uid('enrich')
      .sinkTo(sink)
      .uid('sink');
  }

  it('commits exactly the output of an uninterrupted run: keyed state and timers are restored', async () => {
    const options = { parallelism: 2, batchSize: 50 };
    const uninterrupted = new CollectSink<string>();
    const reference = new StreamEnvironment(options);
    buildJob(reference, uninterrupted);
    await reference.execute('uninterrupted');
    const expected = expectedEnrichment(RIDES);
    const all = [...uninterrupted.values].sort();
    expect(all).toEqual([...expected.pairs, ...expected.alone].sort());

    const out = join(dir, 'out');
    const checkpointing = { directory: join(dir, 'checkpoints'), intervalMs: 10 };
    const failing = new StreamEnvironment({ ...options, checkpointing });
    buildJob(failing, new ExactlyOnceFileSink({ directory: out }), 1_400);
    await expect(failing.execute('failing')).rejects.toThrow(/injected failure/);
    const partial = await committedLines(out);
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.length).toBeLessThan(all.length);

    const resumed = new StreamEnvironment({ ...options, checkpointing });
    buildJob(resumed, new ExactlyOnceFileSink({ directory: out }));
    await resumed.execute('resumed', { restoreFrom: 'latest' });
    expect(await committedLines(out)).toEqual(all);
  });
});
