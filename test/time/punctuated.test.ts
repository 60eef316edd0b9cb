/**
 * Punctuated watermarks: a watermark a generator emits from `onEvent` takes
 * effect at exactly that record's position, whatever the batch size, the same
 * as a source that emits the watermark itself between the records.
 */
import { describe, expect, it } from 'vitest';
import {
  type DataStream,
  type KeyedProcessFunction,
  type PollStatus,
  type RecordBatch,
  type Source,
  type SourceContext,
  type SourceReader,
  StreamEnvironment,
  type WatermarkGenerator,
  type WatermarkOutput,
  WatermarkStrategy,
  Windows,
} from '../../src/index.js';
import { collect, countSum, type Ev, ev, fmtAll, lateCount, sorted } from '../helpers/timeline.js';

/** Emits a watermark at the timestamp of every record of key 'P'. No `onPeriodicEmit`: purely punctuated. */
class Punctuation implements WatermarkGenerator<Ev> {
  onEvent(e: Ev, timestamp: number, output: WatermarkOutput): void {
    if (e.k === 'P') output.emitWatermark(timestamp);
  }
}

const punctuated = () =>
  WatermarkStrategy.forGenerator<Ev>(() => new Punctuation()).withTimestampAssigner((e) => e.t);

type Step = { readonly records: readonly Ev[] } | { readonly watermark: number };

/**
 * The reference: a bounded source that stamps records with `t` and emits each
 * watermark itself, right after the batch before it (the runtime forwards a
 * source's watermark after every poll).
 */
class MarkedSource implements Source<Ev> {
  readonly bounded = true;
  readonly parallelizable = false;
  readonly name = 'marked';
  constructor(private readonly steps: readonly Step[]) {}

  createReader(_context: SourceContext): SourceReader<Ev> {
    let next = 0;
    let watermark = Number.NEGATIVE_INFINITY;
    const steps = this.steps;
    return {
      open() {},
      poll(): RecordBatch<Ev> | PollStatus {
        for (;;) {
          const step = steps[next++];
          if (step === undefined) return 'end';
          if ('watermark' in step) {
            watermark = step.watermark;
            continue;
          }
          // Take the watermarks right behind these records, so they follow them.
          for (let s = steps[next]; s !== undefined && 'watermark' in s; s = steps[++next]) {
            watermark = s.watermark;
          }
          return {
            values: [...step.records],
            timestamps: step.records.map((e) => e.t),
            keys: undefined,
          };
        }
      },
      available: () => Promise.resolve(),
      currentWatermark: () => watermark,
      close() {},
    };
  }
}

/** The script of `events` with a watermark after each punctuation record. */
function markedSteps(events: readonly Ev[]): Step[] {
  const steps: Step[] = [];
  let run: Ev[] = [];
  for (const e of events) {
    run.push(e);
    if (e.k === 'P') {
      steps.push({ records: run }, { watermark: e.t });
      run = [];
    }
  }
  if (run.length > 0) steps.push({ records: run });
  return steps;
}

/*
 * tumbling 10; P@t puts the watermark t right after itself.
 *
 *   arrival  a1 b3 P10 | a4 b12 a15 P20 | b18 a25 a21 P30 | a29 b35
 *   W seen   -inf      | 10             | 20              | 30
 *                        ^ late: [0,10) fired at W 10
 *                                         ^ late: [10,20) fired at W 20
 *                                                           ^ late: [20,30) fired at W 30
 * Applied only after the batch (one batch of everything), nothing would be late
 * before end of input.
 */
const events = [
  ev('a', 1),
  ev('b', 3),
  ev('P', 10),
  ev('a', 4),
  ev('b', 12),
  ev('a', 15),
  ev('P', 20),
  ev('b', 18),
  ev('a', 25),
  ev('a', 21),
  ev('P', 30),
  ev('a', 29),
  ev('b', 35),
];

function renderW(w: number): string {
  return w === Number.NEGATIVE_INFINITY ? '-inf' : String(w);
}

/** Each record with the watermark its keyed operator had when it arrived. */
const probe: KeyedProcessFunction<string, Ev, string> = {
  processElement(e, ctx, out) {
    out.collect(`${e.k}@${e.t} W=${renderW(ctx.timerService.currentWatermark())}`);
  },
};

async function windowsOf(
  build: (env: StreamEnvironment) => DataStream<Ev>,
  parallelism: number,
  batchSize?: number,
): Promise<{ windows: string[]; late: number }> {
  const env = new StreamEnvironment({ parallelism, ...(batchSize && { batchSize }) });
  const sink = collect(
    build(env)
      .keyBy((e) => e.k)
      .window(Windows.tumbling(10))
      .aggregate(countSum),
  );
  const result = await env.execute();
  return { windows: sorted(fmtAll(sink.values)), late: lateCount(result) };
}

async function probeOf(
  build: (env: StreamEnvironment) => DataStream<Ev>,
  parallelism: number,
  batchSize?: number,
): Promise<string[]> {
  const env = new StreamEnvironment({ parallelism, ...(batchSize && { batchSize }) });
  const lines = await build(env)
    .keyBy((e) => e.k)
    .process(probe)
    .executeAndCollect();
  return sorted(lines);
}

const byGenerator = (env: StreamEnvironment) =>
  env.fromArray(events).assignTimestampsAndWatermarks(punctuated());
const bySource = (env: StreamEnvironment) => env.fromSource(new MarkedSource(markedSteps(events)));

describe.each([1, 2])('punctuated watermarks at parallelism %i', (p) => {
  it('window results equal those of the watermark placed there by the source', async () => {
    const reference = await windowsOf(bySource, p);
    expect(reference).toEqual({
      windows: sorted([
        'a [0,10) 1/1 on-time',
        'b [0,10) 1/1 on-time',
        'P [10,20) 1/1 on-time',
        'a [10,20) 1/1 on-time',
        'b [10,20) 1/1 on-time',
        'P [20,30) 1/1 on-time',
        'a [20,30) 2/2 on-time',
        'P [30,40) 1/1 on-time',
        'b [30,40) 1/1 on-time',
      ]),
      late: 3,
    });
    for (const batchSize of [undefined, 1, 2, 3, 5]) {
      expect(await windowsOf(byGenerator, p, batchSize)).toEqual(reference);
    }
  });

  it('every record sees the watermark of the last punctuation before it', async () => {
    const expected = sorted([
      'a@1 W=-inf',
      'b@3 W=-inf',
      'P@10 W=-inf',
      'a@4 W=10',
      'b@12 W=10',
      'a@15 W=10',
      'P@20 W=10',
      'b@18 W=20',
      'a@25 W=20',
      'a@21 W=20',
      'P@30 W=20',
      'a@29 W=30',
      'b@35 W=30',
    ]);
    expect(await probeOf(bySource, p)).toEqual(expected);
    for (const batchSize of [undefined, 1, 4]) {
      expect(await probeOf(byGenerator, p, batchSize)).toEqual(expected);
    }
  });
});

describe('punctuated and periodic together', () => {
  it('a generator emitting from both keeps the punctuation in place', async () => {
    /*
     * onEvent emits at P; onPeriodicEmit emits max - 100 after each batch.
     * batchSize 4: [a1 P50 a40 a2] [a160 a45 a3 a4] [a58]
     *   W:              50 ↑   after: 50 (max 50 - 100 is lower)   after: 60 = 160 - 100
     */
    const strategy = WatermarkStrategy.forGenerator<Ev>(() => {
      let max = Number.NEGATIVE_INFINITY;
      return {
        onEvent(e, t, out) {
          max = Math.max(max, t);
          if (e.k === 'P') out.emitWatermark(t);
        },
        onPeriodicEmit(out) {
          out.emitWatermark(max - 100);
        },
      };
    }).withTimestampAssigner((e) => e.t);
    const lines = await new StreamEnvironment({ batchSize: 4 })
      .fromArray([1, 50, 40, 2, 160, 45, 3, 4, 58].map((t) => ev(t === 50 ? 'P' : 'a', t)))
      .assignTimestampsAndWatermarks(strategy)
      .keyBy((e) => e.k)
      .process(probe)
      .executeAndCollect();
    expect(lines).toEqual([
      'a@1 W=-inf',
      'P@50 W=-inf',
      'a@40 W=50',
      'a@2 W=50',
      'a@160 W=50',
      'a@45 W=50',
      'a@3 W=50',
      'a@4 W=50',
      'a@58 W=60',
    ]);
  });
});
