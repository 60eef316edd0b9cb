/**
 * Helpers for hand-written event-time timelines: small records, a count+sum
 * aggregate, a compact rendering of window results, sinks that keep records
 * with their timestamps, and a scripted source for unbounded or timed input.
 */
import {
  type AggregateFunction,
  CollectSink,
  type DataStream,
  type JobResult,
  type Key,
  type PollStatus,
  type RecordBatch,
  type Source,
  type SourceContext,
  type SourceReader,
  StreamEnvironment,
  WatermarkStrategy,
  type WindowResult,
} from '../../src/index.js';
import { testStateBackend } from './state-backend.js';

/** A keyed event: key, event time, value. */
export interface Ev {
  readonly k: string;
  readonly t: number;
  readonly v: number;
}

/** `ev('a', 12)` or `ev('a', 12, 5)`: key a at t=12 with value 5 (default 1). */
export function ev(k: string, t: number, v = 1): Ev {
  return { k, t, v };
}

/** Events of one key from a list of timestamps (value 1 each, or the timestamp as value). */
export function evs(k: string, ts: readonly number[], valueIsTime = false): Ev[] {
  return ts.map((t) => ev(k, t, valueIsTime ? t : 1));
}

/** Bounded out-of-orderness on `Ev.t`. */
export function bounded(bound: number): WatermarkStrategy<Ev> {
  return WatermarkStrategy.forBoundedOutOfOrderness<Ev>(bound).withTimestampAssigner((e) => e.t);
}

/** One record per batch: a watermark follows every record, so timelines are exact. */
export function env1(parallelism = 1): StreamEnvironment {
  return new StreamEnvironment({ batchSize: 1, parallelism, ...testStateBackend() });
}

export interface CountSum {
  readonly count: number;
  readonly sum: number;
}

/** Count and sum of `Ev.v`, with a merge that does not modify its arguments. */
export const countSum: AggregateFunction<Ev, CountSum, CountSum> = {
  createAccumulator: () => ({ count: 0, sum: 0 }),
  add: (e, acc) => ({ count: acc.count + 1, sum: acc.sum + e.v }),
  getResult: (acc) => acc,
  merge: (a, b) => ({ count: a.count + b.count, sum: a.sum + b.sum }),
};

/** Count of records, without `merge` (forces the general window operator for sliding windows). */
export const countNoMerge: AggregateFunction<Ev, number, number> = {
  createAccumulator: () => 0,
  add: (_e, n) => n + 1,
  getResult: (n) => n,
};

/** Sum of values by reduce (the reduced record keeps the first record's key and time). */
export const sumReduce = (a: Ev, b: Ev): Ev => ({ k: a.k, t: a.t, v: a.v + b.v });

function renderValue(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'string') return String(value);
  if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if ('count' in o && 'sum' in o) return `${o.count}/${o.sum}`;
    if ('k' in o && 't' in o && 'v' in o) return String(o.v);
  }
  return JSON.stringify(value);
}

function renderBound(n: number): string {
  return n === Number.POSITIVE_INFINITY ? '+inf' : n === Number.NEGATIVE_INFINITY ? '-inf' : `${n}`;
}

/**
 * A window result as one line: `key [start,end) value timing[ upd]`. For
 * count+sum values the value is `count/sum`; for reduced `Ev`s it is `v`.
 */
export function fmt<K extends Key, R>(r: WindowResult<K, R>): string {
  const upd = r.isUpdate ? ' upd' : '';
  return `${String(r.key)} [${renderBound(r.window.start)},${renderBound(r.window.end)}) ${renderValue(r.value)} ${r.timing}${upd}`;
}

export function fmtAll<K extends Key, R>(rs: readonly WindowResult<K, R>[]): string[] {
  return rs.map(fmt);
}

/** Sorted copy, for comparing outputs whose order across keys/subtasks is not fixed. */
export function sorted(lines: readonly string[]): string[] {
  return [...lines].sort();
}

/** Adds a sink that keeps records and their event timestamps. */
export function collect<T>(stream: DataStream<T>): CollectSink<T> {
  const sink = new CollectSink<T>();
  stream.sinkTo(sink);
  return sink;
}

/** Runs `build` at parallelism 1, 2 and 4 and returns the rendered, sorted output of each. */
export async function atParallelisms(
  build: (env: StreamEnvironment) => () => string[],
  parallelisms: readonly number[] = [1, 2, 4],
  batchSize = 1,
): Promise<string[][]> {
  const outputs: string[][] = [];
  for (const p of parallelisms) {
    const env = new StreamEnvironment({ batchSize, parallelism: p, ...testStateBackend() });
    const read = build(env);
    await env.execute(`p=${p}`);
    outputs.push(sorted(read()));
  }
  return outputs;
}

export const LATE_METRIC = 'weir_window_late_records_total';

export function lateCount(result: JobResult): number {
  return result.metric(LATE_METRIC);
}

/** A step of a scripted source: a batch of records, or a pause of wall-clock time. */
export type ScriptStep<T> = { readonly records: readonly T[] } | { readonly pauseMs: number };

/**
 * A source that plays a script: batches of records (one poll each) and
 * pauses (polls return `'wait'` until the pause is over). After the script it
 * either ends (`bounded`) or returns `'wait'` forever, staying open until the
 * job is cancelled, like an input that has gone quiet. Runs with parallelism 1.
 */
export class ScriptedSource<T> implements Source<T> {
  readonly parallelizable = false;
  /** Set once the reader has played the whole script. */
  finished = false;

  constructor(
    private readonly script: readonly ScriptStep<T>[],
    readonly bounded: boolean,
    readonly name = 'scripted',
  ) {}

  createReader(context: SourceContext): SourceReader<T> {
    let step = 0;
    let pauseUntil: number | undefined;
    let timer: NodeJS.Timeout | undefined;
    const next = (): RecordBatch<T> | PollStatus => {
      for (;;) {
        const s = this.script[step];
        if (s === undefined) {
          this.finished = true;
          return this.bounded ? 'end' : 'wait';
        }
        if ('pauseMs' in s) {
          const now = context.clock.now();
          pauseUntil ??= now + s.pauseMs;
          if (now < pauseUntil) return 'wait';
          pauseUntil = undefined;
          step++;
          continue;
        }
        step++;
        return {
          values: [...s.records],
          timestamps: s.records.map(() => Number.NEGATIVE_INFINITY),
          keys: undefined,
        };
      }
    };
    return {
      open() {},
      poll: next,
      available: () =>
        new Promise<void>((resolve) => {
          clearTimeout(timer);
          const delay =
            pauseUntil === undefined ? 20 : Math.max(0, pauseUntil - context.clock.now());
          timer = setTimeout(resolve, delay);
        }),
      close() {
        clearTimeout(timer);
      },
    };
  }
}

/**
 * Polls `condition` until it holds, failing after `timeoutMs`: generous by default, since a
 * job's start alone took over 3 s on a loaded CI machine.
 */
export async function waitUntil(
  condition: () => boolean,
  timeoutMs = 60_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
