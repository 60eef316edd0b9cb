/**
 * Generator and collection sources restored at another parallelism than their
 * savepoint's: the records left are shared out again, so a job stopped at
 * parallelism 2 and resumed at 1, 3 or 4 emits exactly what an uninterrupted
 * run emits (the oracle), with nothing repeated or lost.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assignSplits } from '../../src/connectors/generator/source/splits.js';
import {
  CollectSink,
  type KeyedProcessFunction,
  runJobModule,
  StreamEnvironment,
  startJobModule,
  type ValueState,
} from '../../src/index.js';
import { RESCALE_JOB_RECORDS } from './fixtures/rescale-generator-job.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weir-rescale-gen-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const N = 6_000;
const KEYS = 13;

/** Counts records per key in keyed state and emits every count. */
const counter: KeyedProcessFunction<number, number, string> & { count?: ValueState<number> } = {
  open(ctx) {
    this.count = ctx.state.getValueState<number>('count');
  },
  processElement(_i, ctx, out) {
    const n = (this.count!.value() ?? 0) + 1;
    this.count!.update(n);
    out.collect(`key ${ctx.key} #${n}`);
  },
};

/** Generator (or collection) -> per-record line and keyed running count -> collecting sink. */
function job(
  source: 'generator' | 'collection',
  parallelism: number,
  sink: CollectSink<string>,
  rate?: number,
): StreamEnvironment {
  const env = new StreamEnvironment({ parallelism, batchSize: 25 });
  const numbers = (
    source === 'generator'
      ? env.fromGenerator({
          count: N,
          ...(rate === undefined ? {} : { ratePerSecond: rate }),
          generate: (i) => i,
        })
      : env.fromArray(Array.from({ length: N }, (_, i) => i))
  ).uid('numbers');
  // The collection source has no rate limit: a slow async step holds it back
  // through backpressure (when `rate` is given) so that the stop lands midway.
  const input =
    source === 'generator'
      ? numbers
      : numbers
          .flatMapAsync(
            async (i: number) => {
              if (rate !== undefined && i % 25 === 0) await sleep(25_000 / rate);
              return [i];
            },
            { capacity: 1 },
          )
          .uid('slow');
  input
    .map((i) => `record ${i}`)
    .uid('records')
    .sinkTo(sink)
    .uid('records-out');
  input
    .keyBy((i) => i % KEYS)
    .process(counter)
    .uid('counts')
    .sinkTo(sink)
    .uid('counts-out');
  return env;
}

/** What an uninterrupted run emits: every record once, and every count of every key once. */
const oracle = (() => {
  const lines = Array.from({ length: N }, (_, i) => `record ${i}`);
  for (let k = 0; k < KEYS; k++) {
    const n = Math.floor(N / KEYS) + (k < N % KEYS ? 1 : 0);
    for (let c = 1; c <= n; c++) lines.push(`key ${k} #${c}`);
  }
  return lines.sort();
})();

/** Runs the job at `parallelism` until some records are out, then stops it with a savepoint. */
async function stopMidway(
  build: (sink: CollectSink<string>) => StreamEnvironment,
  restoreFrom?: string,
): Promise<{ before: string[]; savepoint: string }> {
  const sink = new CollectSink<string>();
  const running = build(sink).executeAsync(
    'midway',
    restoreFrom === undefined ? {} : { restoreFrom },
  );
  const start = sink.values.length;
  // Wait for output rather than for time: stop once a few hundred lines are out.
  while (sink.values.length < start + 300) {
    const done = await Promise.race([running.result.then(() => true), sleep(5).then(() => false)]);
    if (done) throw new Error('the job finished before it could be stopped midway');
  }
  const savepoint = await running.stopWithSavepoint(join(dir, `sp-${Math.random()}`));
  expect((await running.result).status).toBe('cancelled');
  return { before: [...sink.values], savepoint };
}

async function runToEnd(
  build: (sink: CollectSink<string>) => StreamEnvironment,
  restoreFrom: string,
): Promise<string[]> {
  const sink = new CollectSink<string>();
  const result = await build(sink).execute('to-end', { restoreFrom });
  expect(result.status).toBe('finished');
  return [...sink.values];
}

describe('restoring generated input at another parallelism', () => {
  it('the oracle is what an uninterrupted run emits, at parallelism 2', async () => {
    const sink = new CollectSink<string>();
    await job('generator', 2, sink).execute('reference');
    expect([...sink.values].sort()).toEqual(oracle);
  });

  it('a generator savepoint taken at parallelism 2 restores at 1 and at 4 exactly once', {
    timeout: 60_000,
  }, async () => {
    const { before, savepoint } = await stopMidway((s) => job('generator', 2, s, 3_000));
    expect(before.length).toBeGreaterThan(0);
    expect(before.length).toBeLessThan(oracle.length);
    for (const parallelism of [1, 4]) {
      const after = await runToEnd((s) => job('generator', parallelism, s), savepoint);
      expect([...before, ...after].sort()).toEqual(oracle);
    }
  });

  it('2 -> 4 -> 3 subtasks, stopped midway each time, emits exactly the oracle', {
    timeout: 60_000,
  }, async () => {
    const first = await stopMidway((s) => job('generator', 2, s, 3_000));
    const second = await stopMidway((s) => job('generator', 4, s, 3_000), first.savepoint);
    const rest = await runToEnd((s) => job('generator', 3, s), second.savepoint);
    expect([...first.before, ...second.before, ...rest].sort()).toEqual(oracle);
  });

  it('a collection source (one subtask) in a job stopped at parallelism 2 restores at 1 and 4', {
    timeout: 60_000,
  }, async () => {
    const { before, savepoint } = await stopMidway((s) => job('collection', 2, s, 3_000));
    expect(before.length).toBeLessThan(oracle.length);
    for (const parallelism of [1, 4]) {
      const after = await runToEnd((s) => job('collection', parallelism, s), savepoint);
      expect([...before, ...after].sort()).toEqual(oracle);
    }
  });
});

describe('restoring generated input at another parallelism on worker threads', () => {
  it('a savepoint taken on 2 workers at parallelism 2 restores at parallelism 4', {
    timeout: 120_000,
  }, async () => {
    const job = resolve(import.meta.dirname, 'fixtures', 'rescale-generator-job.ts');
    const expected = Array.from({ length: RESCALE_JOB_RECORDS }, (_, i) => `record ${i}`).sort();
    const started = await startJobModule(job, {
      parallelism: 2,
      workers: 2,
      batchSize: 20,
      args: ['1000'],
    });
    // The workers report their metrics twice a second: stop once records flow.
    while (started.client.metrics.total('weir_operator_records_out_total') === 0) await sleep(10);
    const savepoint = await started.client.stopWithSavepoint(join(dir, 'savepoints'));
    expect((await started.client.result).status).toBe('cancelled');
    const before = started.collected<string>('out');
    expect(before.length).toBeGreaterThan(0);
    expect(before.length).toBeLessThan(RESCALE_JOB_RECORDS);
    const resumed = await runJobModule(job, {
      parallelism: 4,
      workers: 2,
      batchSize: 20,
      restoreFrom: savepoint,
    });
    expect(resumed.result.status).toBe('finished');
    expect([...before, ...resumed.collected<string>('out')].sort()).toEqual(expected);
  });
});

describe('generator splits', () => {
  /** Every index below `count` that the readers of `parallelism` would generate, sorted. */
  function covered(positions: unknown[], parallelism: number, count: number): number[] {
    const out: number[] = [];
    for (let s = 0; s < parallelism; s++) {
      for (const split of assignSplits('g', count, s, parallelism, positions as never, undefined)) {
        for (let i = split.next; i < count; i += split.step) out.push(i);
      }
    }
    return out.sort((a, b) => a - b);
  }

  it('share out the remaining indices exactly once at any parallelism', () => {
    // Two old subtasks at 10 and 7 (old-style bare numbers), and split positions.
    const expected = [
      ...Array.from({ length: 50 }, (_, i) => i).filter((i) => i % 2 === 0 && i >= 10),
      ...Array.from({ length: 50 }, (_, i) => i).filter((i) => i % 2 === 1 && i >= 7),
    ].sort((a, b) => a - b);
    for (const p of [1, 2, 3, 4, 7, 40]) {
      expect(covered([10, 7], p, 50)).toEqual(expected);
      expect(covered([{ splits: [[10, 2]] }, { splits: [[7, 2]] }], p, 50)).toEqual(expected);
    }
    // Finished splits are dropped; an unknown position is refused.
    expect(covered([{ splits: [[60, 2]] }, { splits: [[49, 2]] }], 3, 50)).toEqual([49]);
    expect(() => assignSplits('g', 50, 0, 1, [{ splits: 'x' }], undefined)).toThrow(
      /position .* is not one this source writes/,
    );
  });
});
