import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CollectSink,
  type KeyedProcessFunction,
  runJobModule,
  StreamEnvironment,
  startJobModule,
  WeirError,
} from '../../src/index.js';
import { STOP_JOB_RECORDS, stopJobOutput } from './fixtures/stop-job.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weir-stop-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const N = STOP_JOB_RECORDS;
/** What an uninterrupted run emits: one line per record (plain loop). */
const expected = Array.from({ length: N }, (_, i) => stopJobOutput(i)).sort();

/** Generator -> map -> at-least-once collecting sink, slow enough to be stopped midway. */
function mapJob(parallelism: number, sink: CollectSink<string>): StreamEnvironment {
  const env = new StreamEnvironment({ parallelism, batchSize: 20 });
  env
    .fromGenerator({ count: N, ratePerSecond: 4_000, generate: (i) => i })
    .uid('numbers')
    .map(stopJobOutput)
    .uid('map')
    .sinkTo(sink)
    .uid('out');
  return env;
}

/** The last records only pad the input, so every timer is due well before it ends. */
const PADDING = 200;

/**
 * Emits each record (but the padding) from a processing-time timer 1 ms after
 * it arrived: a timer due after the stop's barrier must not fire before the
 * job stops (its output would repeat after the restore, which fires it again).
 */
const emitOnTimer: KeyedProcessFunction<number, number, string> = {
  processElement(i, ctx) {
    if (i < N - PADDING)
      ctx.timerService.registerProcessingTimeTimer(ctx.timerService.currentProcessingTime() + 1);
  },
  onTimer(_time, ctx, out) {
    out.collect(`timer ${ctx.key}`);
  },
};

function timerJob(parallelism: number, sink: CollectSink<string>): StreamEnvironment {
  const env = new StreamEnvironment({ parallelism, batchSize: 20 });
  env
    .fromGenerator({ count: N, ratePerSecond: 4_000, generate: (i) => i })
    .uid('numbers')
    .keyBy((i) => i)
    .process(emitOnTimer)
    .uid('timers')
    .sinkTo(sink)
    .uid('out');
  return env;
}

/**
 * Worker mode: the workers take a second or so to start and report their
 * metrics twice a second, so the stop comes up to a second after records
 * flow; at 1,000 records a second, that is midway.
 */
const workerRun = { parallelism: 2, workers: 2, batchSize: 20, args: ['1000'] };

/** Runs `build` until ~`afterMs`, stops it with a savepoint, restores and runs to the end. */
async function stopAndResume(
  build: (sink: CollectSink<string>) => StreamEnvironment,
  afterMs: number,
): Promise<{ before: string[]; after: string[] }> {
  const first = new CollectSink<string>();
  const running = build(first).executeAsync('first');
  await sleep(afterMs);
  const savepoint = await running.stopWithSavepoint(join(dir, 'savepoints'));
  expect((await running.result).status).toBe('cancelled');
  const before = [...first.values];
  // Nothing reaches the sink once the stop returned: the job has ended.
  await sleep(20);
  expect(first.values.length).toBe(before.length);
  const second = new CollectSink<string>();
  const result = await build(second).execute('second', { restoreFrom: savepoint });
  expect(result.status).toBe('finished');
  return { before, after: [...second.values] };
}

describe('stop with savepoint', () => {
  for (const parallelism of [1, 2]) {
    it(`output of an at-least-once sink ends exactly at the savepoint (parallelism ${parallelism})`, async () => {
      const { before, after } = await stopAndResume((sink) => mapJob(parallelism, sink), 150);
      // Stopped midway, not at either end.
      expect(before.length).toBeGreaterThan(0);
      expect(before.length).toBeLessThan(N);
      expect([...before, ...after].sort()).toEqual(expected);
    });
  }

  it('processing-time timers due after the barrier fire only after the restore (parallelism 2)', async () => {
    const uninterrupted = Array.from({ length: N - PADDING }, (_, i) => `timer ${i}`).sort();
    const reference = new CollectSink<string>();
    await timerJob(2, reference).execute('reference');
    expect([...reference.values].sort()).toEqual(uninterrupted);
    const { before, after } = await stopAndResume((sink) => timerJob(2, sink), 150);
    expect(before.length).toBeGreaterThan(0);
    expect(before.length).toBeLessThan(N - PADDING);
    expect([...before, ...after].sort()).toEqual(uninterrupted);
  });

  it('on two workers, output ends exactly at the savepoint and resumes without repeats', async () => {
    const job = resolve(import.meta.dirname, 'fixtures', 'stop-job.ts');
    const started = await startJobModule(job, workerRun);
    // The workers report their metrics twice a second: stop once records flow.
    while (started.client.metrics.total('weir_operator_records_out_total') === 0) await sleep(10);
    const savepoint = await started.client.stopWithSavepoint(join(dir, 'savepoints'));
    expect((await started.client.result).status).toBe('cancelled');
    const before = started.collected<string>('out');
    expect(before.length).toBeGreaterThan(0);
    expect(before.length).toBeLessThan(N);
    const resumed = await runJobModule(job, { ...workerRun, restoreFrom: savepoint });
    expect([...before, ...resumed.collected<string>('out')].sort()).toEqual(expected);
  });

  it('a stop whose savepoint cannot be written fails, and the job goes on to its end', async () => {
    const blocker = join(dir, 'a-file');
    await writeFile(blocker, 'not a directory');
    const sink = new CollectSink<string>();
    const running = mapJob(2, sink).executeAsync('unstoppable');
    await sleep(150);
    await expect(running.stopWithSavepoint(join(blocker, 'savepoints'))).rejects.toThrow();
    const result = await running.result;
    expect(result.status).toBe('finished');
    expect([...sink.values].sort()).toEqual(expected);
  });

  it('on two workers, a stop whose savepoint cannot be written fails, and the job goes on', async () => {
    const blocker = join(dir, 'a-file');
    await writeFile(blocker, 'not a directory');
    const job = resolve(import.meta.dirname, 'fixtures', 'stop-job.ts');
    const started = await startJobModule(job, workerRun);
    while (started.client.metrics.total('weir_operator_records_out_total') === 0) await sleep(10);
    await expect(started.client.stopWithSavepoint(join(blocker, 'savepoints'))).rejects.toThrow();
    expect((await started.client.result).status).toBe('finished');
    expect([...started.collected<string>('out')].sort()).toEqual(expected);
  });

  it('a stop asked for after the input ran out fails without a savepoint', async () => {
    const sink = new CollectSink<string>();
    const env = new StreamEnvironment();
    env
      .fromGenerator({ count: 10, generate: (i) => i })
      .map(stopJobOutput)
      .sinkTo(sink);
    const running = env.executeAsync('short');
    await running.result;
    const failure = await running.stopWithSavepoint(join(dir, 'late')).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(WeirError);
    expect((failure as WeirError).message).toBe(
      "job 'short' finished its input before it could stop; no savepoint was taken",
    );
    expect(sink.values).toHaveLength(10);
  });
});
