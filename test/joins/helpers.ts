/**
 * Shared pieces of the join, deduplication and top-N tests: two-sided
 * events from one source (so both sides carry the same watermarks),
 * delivery orders with bounded or unbounded delays, and a savepoint round
 * trip that compares a stopped-and-restored run with an uninterrupted one.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { ExactlyOnceFileSink } from '../../src/connectors/files/sink/exactly-once-file-sink.js';
import {
  type DataStream,
  type StreamEnvironment as Env,
  StreamEnvironment,
  WatermarkStrategy,
} from '../../src/index.js';

/** An event of the left (`L`) or right (`R`) stream: key, event time, unique id. */
export interface Side {
  readonly side: 'L' | 'R';
  readonly k: string;
  readonly t: number;
  readonly id: number;
}

export const KEYS = ['a', 'b', 'c'];

/** Random two-sided events with a delivery delay each. */
export function sidesArb(
  maxDelay: number,
  opts: { minLength?: number; maxLength?: number; minT?: number; maxT?: number } = {},
): fc.Arbitrary<(Side & { delay: number })[]> {
  return fc
    .array(
      fc.record({
        side: fc.constantFrom<'L' | 'R'>('L', 'R'),
        k: fc.constantFrom(...KEYS),
        t: fc.integer({ min: opts.minT ?? -50, max: opts.maxT ?? 200 }),
        delay: fc.integer({ min: 0, max: maxDelay }),
      }),
      { minLength: opts.minLength ?? 0, maxLength: opts.maxLength ?? 50 },
    )
    .map((es) => es.map((e, id) => ({ ...e, id })));
}

/** Delivery order: by `t + delay`, ties by id. Delays within the watermark bound make nothing late. */
export function deliver<E extends { t: number; id: number; delay: number }>(
  events: readonly E[],
): Omit<E, 'delay'>[] {
  return [...events]
    .sort((x, y) => x.t + x.delay - (y.t + y.delay) || x.id - y.id)
    .map(({ delay: _d, ...rest }) => rest);
}

/**
 * For each record id, the source's watermark just before the record (bounded
 * out-of-orderness, one record per batch): an operator downstream has at most
 * this watermark when the record reaches it.
 */
export function watermarksBefore(
  arrival: readonly { t: number; id: number }[],
  bound: number,
): Map<number, number> {
  const before = new Map<number, number>();
  let newest = Number.NEGATIVE_INFINITY;
  for (const e of arrival) {
    before.set(e.id, newest - bound - 1);
    newest = Math.max(newest, e.t);
  }
  return before;
}

/** Both sides from one array source with bounded out-of-orderness, split by side. */
export function twoSides(
  env: Env,
  arrival: readonly Side[],
  bound: number,
): { left: DataStream<Side>; right: DataStream<Side> } {
  const all = env
    .fromArray(arrival)
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forBoundedOutOfOrderness<Side>(bound).withTimestampAssigner((e) => e.t),
    );
  return { left: all.filter((e) => e.side === 'L'), right: all.filter((e) => e.side === 'R') };
}

export function sortedStrings(xs: Iterable<string>): string[] {
  return [...xs].sort();
}

async function committedLines(out: string): Promise<string[]> {
  const files = (await readdir(out)).filter((f) => !f.startsWith('.'));
  const lines: string[] = [];
  for (const f of files)
    lines.push(...(await readFile(join(out, f), 'utf8')).split('\n').filter(Boolean));
  return lines.sort();
}

/**
 * Runs `build` uninterrupted, then again stopped with a savepoint after
 * `stopAfterMs` and restored from it (at `restoreParallelism`), both writing
 * strings exactly once; returns both sorted outputs and the number of lines
 * written before the stop.
 */
export async function savepointRoundTrip(
  build: (env: StreamEnvironment, rate: number | undefined) => DataStream<string>,
  opts: { parallelism: number; restoreParallelism?: number; rate: number; stopAfterMs: number },
): Promise<{ expected: string[]; got: string[]; beforeStop: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'weir-join-sp-'));
  try {
    const sinkTo = (env: StreamEnvironment, out: string, rate: number | undefined) => {
      build(env, rate)
        .sinkTo(new ExactlyOnceFileSink({ directory: out }))
        .uid('sink');
    };
    const reference = join(dir, 'reference');
    const env0 = new StreamEnvironment({ parallelism: opts.parallelism, batchSize: 20 });
    sinkTo(env0, reference, undefined);
    await env0.execute('reference');
    const expected = await committedLines(reference);

    const out = join(dir, 'out');
    const env1 = new StreamEnvironment({ parallelism: opts.parallelism, batchSize: 20 });
    sinkTo(env1, out, opts.rate);
    const running = env1.executeAsync('first');
    await sleep(opts.stopAfterMs);
    const sp = await running.stopWithSavepoint(join(dir, 'sp'));
    const beforeStop = (await committedLines(out)).length;

    const env2 = new StreamEnvironment({
      parallelism: opts.restoreParallelism ?? opts.parallelism,
      batchSize: 20,
    });
    sinkTo(env2, out, undefined);
    await env2.execute('resumed', { restoreFrom: sp });
    return { expected, got: await committedLines(out), beforeStop };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
