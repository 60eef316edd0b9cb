import { describe, expect, it } from 'vitest';
import {
  type Collector,
  GeneratorSource,
  type KeyedProcessContext,
  type KeyedProcessFunction,
  type KeyedRuntimeContext,
  type MapState,
  type OnTimerContext,
  type RecordBatch,
  type Sink,
  type SinkContext,
  type SinkWriter,
  StreamEnvironment,
  Time,
  type ValueState,
  WatermarkStrategy,
  type WindowResult,
  Windows,
} from '../../src/index.js';
import { DeterministicRandom } from '../../src/util/random.js';

interface Ev {
  readonly key: string;
  readonly t: number;
  readonly v: number;
}

/** Records of every subtask in the order that subtask received them, with their timestamps. */
class SubtaskSink implements Sink<string> {
  readonly name = 'per subtask';
  readonly bySubtask = new Map<number, string[]>();

  createWriter(context: SinkContext): SinkWriter<string> {
    const out: string[] = [];
    this.bySubtask.set(context.subtaskIndex, out);
    return {
      write(batch: RecordBatch<string>) {
        for (let i = 0; i < batch.values.length; i++) {
          out.push(`${batch.values[i]} @${batch.timestamps[i]}`);
        }
      },
      close() {},
    };
  }

  all(): string[] {
    return [...this.bySubtask.values()].flat();
  }
}

/**
 * Per key, holds each window's sum until an event-time timer 5 s after the
 * window, then emits it with a running total built in timer order. Output
 * depends only on event time, not on how inputs interleave.
 */
class DelayedTotals implements KeyedProcessFunction<string, WindowResult<string, number>, string> {
  private pending!: MapState<number, number>;
  private total!: ValueState<number>;

  open(ctx: KeyedRuntimeContext): void {
    this.pending = ctx.state.getMapState<number, number>('pending');
    this.total = ctx.state.getValueState<number>('total');
  }

  processElement(
    r: WindowResult<string, number>,
    ctx: KeyedProcessContext<string>,
    _out: Collector<string>,
  ): void {
    this.pending.put(ctx.timestamp, r.value);
    ctx.timerService.registerEventTimeTimer(ctx.timestamp + 5_000);
  }

  onTimer(t: number, ctx: OnTimerContext<string>, out: Collector<string>): void {
    const sum = this.pending.get(t - 5_000) ?? 0;
    this.pending.remove(t - 5_000);
    const total = (this.total.value() ?? 0) + sum;
    this.total.update(total);
    out.collect(`${ctx.key} t=${t} sum=${sum} total=${total}`);
  }
}

const COUNT = 20_000;
const SEED = 7;
const WINDOW = 2_000;

/** Event `i`: 40 keys, out of order by up to 400 ms (the bound is 500: none late). */
function event(i: number, random: DeterministicRandom): Ev {
  return { key: `k${random.int(40)}`, t: i * 5 + random.int(400), v: random.int(100) };
}

/** The oracle, in plain loops: window sums per key, emitted 5 s after each window in time order. */
function expected(): string[] {
  const sums = new Map<string, Map<number, number>>();
  const random = new DeterministicRandom();
  for (let i = 0; i < COUNT; i++) {
    const e = event(i, random.reseed(SEED, i));
    const windows = sums.get(e.key) ?? new Map<number, number>();
    const start = e.t - (e.t % WINDOW);
    windows.set(start, (windows.get(start) ?? 0) + e.v);
    sums.set(e.key, windows);
  }
  const out: string[] = [];
  for (const [key, windows] of sums) {
    let total = 0;
    for (const start of [...windows.keys()].sort((a, b) => a - b)) {
      const sum = windows.get(start)!;
      total += sum;
      const t = start + WINDOW - 1 + 5_000;
      out.push(`${key} t=${t} sum=${sum} total=${total} @${t}`);
    }
  }
  return out.sort();
}

async function runJob(parallelism: number): Promise<SubtaskSink> {
  const env = new StreamEnvironment({ parallelism, batchSize: 128 });
  const sink = new SubtaskSink();
  env
    .fromSource(
      new GeneratorSource<Ev>({
        count: COUNT,
        seed: SEED,
        generate: event,
      }),
    )
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forBoundedOutOfOrderness<Ev>(500).withTimestampAssigner((e) => e.t),
    )
    .keyBy((e) => e.key)
    .window(Windows.tumbling(Time.milliseconds(WINDOW)))
    .aggregate({
      createAccumulator: () => 0,
      add: (e: Ev, acc: number) => acc + e.v,
      getResult: (acc: number) => acc,
      merge: (a: number, b: number) => a + b,
    })
    .keyBy((r) => r.key)
    .process(new DelayedTotals())
    .sinkTo(sink);
  await env.execute(`determinism p${parallelism}`);
  return sink;
}

describe('run-to-run determinism', () => {
  it('a bounded job with keyed windows and timers gives the batch result, in identical order run to run, at parallelism 1', async () => {
    const first = await runJob(1);
    const second = await runJob(1);
    const out = first.bySubtask.get(0)!;
    expect([...out].sort()).toEqual(expected());
    expect(second.bySubtask.get(0)).toEqual(out);
  });

  it('at parallelism 4 the same output per subtask (sorted), and the same as at parallelism 1', async () => {
    const first = await runJob(4);
    const second = await runJob(4);
    expect(first.bySubtask.size).toBe(4);
    for (const [subtask, records] of first.bySubtask) {
      expect([...(second.bySubtask.get(subtask) ?? [])].sort()).toEqual([...records].sort());
    }
    const sorted = first.all().sort();
    expect(second.all().sort()).toEqual(sorted);
    // No late records and event-time-only output: parallelism does not change it either.
    expect(sorted).toEqual(expected());
  });
});
