/** The runtime's instrumentation, observed through the metrics of real jobs. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AggregateFunction,
  DiscardingSink,
  type RecordBatch,
  type Sink,
  StreamEnvironment,
  WatermarkStrategy,
  Windows,
} from '../../src/index.js';
import { OPERATOR_METRICS } from '../../src/runtime/instrumentation/operator-probe.js';
import { TASK_METRICS } from '../../src/runtime/instrumentation/plan-instrumentation.js';

interface Event {
  readonly key: number;
  readonly time: number;
}

const count: AggregateFunction<Event, number, number> = {
  createAccumulator: () => 0,
  add: (_e, n) => n + 1,
  getResult: (n) => n,
  merge: (a, b) => a + b,
};

function windowJob(env: StreamEnvironment, events: number, start = 0): void {
  env
    .fromGenerator<Event>({ count: events, generate: (i) => ({ key: i % 7, time: start + i }) })
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forBoundedOutOfOrderness<Event>(10).withTimestampAssigner((e) => e.time),
    )
    .filter((e) => e.key !== 3)
    .name('not three')
    .keyBy((e) => e.key)
    .window(Windows.tumbling(100))
    .aggregate(count)
    .uid('counts')
    .sinkTo(new DiscardingSink())
    .name('out');
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('operator instrumentation', () => {
  it('counts records in and out along every edge, per subtask', async () => {
    const env = new StreamEnvironment({ parallelism: 2, batchSize: 100 });
    windowJob(env, 10_000);
    const client = env.executeAsync('counting');
    const result = await client.result;
    const ops = client.monitor.graph.operators.map((o) => o.id);
    expect(ops).toEqual([
      'generator-0',
      'timestamps-watermarks-1',
      'not-three-2',
      // The window's local half (two-phase aggregation) takes the window's id plus /local.
      'counts/local',
      'counts',
      'out-5',
    ]);
    const total = (name: string, operator: string) => result.metric(name, { operator });
    expect(total('weir_source_records_total', 'generator-0')).toBe(10_000);
    for (const [from, to] of [
      ['generator-0', 'timestamps-watermarks-1'],
      ['timestamps-watermarks-1', 'not-three-2'],
      ['not-three-2', 'counts/local'],
      ['counts/local', 'counts'],
      ['counts', 'out-5'],
    ] as const) {
      expect(total(OPERATOR_METRICS.recordsIn, to), `${from} -> ${to}`).toBe(
        total(OPERATOR_METRICS.recordsOut, from),
      );
    }
    // The filter drops every seventh record; the keyed exchange spreads the rest.
    expect(total(OPERATOR_METRICS.recordsOut, 'not-three-2')).toBe(10_000 - 1429);
    const perSubtask = client.metrics
      .samples(OPERATOR_METRICS.recordsIn, { operator: 'counts' })
      .map((s) => s.value);
    expect(perSubtask).toHaveLength(2);
    expect(perSubtask.every((n) => n > 0)).toBe(true);
    // 100 windows of 100 ms, 6 keys each.
    expect(total(OPERATOR_METRICS.recordsIn, 'out-5')).toBe(600);
  });

  it('tracks input watermarks and samples end-to-end latency at sinks', async () => {
    const env = new StreamEnvironment({ parallelism: 1, batchSize: 50 });
    const start = Date.now() - 60_000;
    windowJob(env, 2_000, start);
    const client = env.executeAsync('watermarks');
    await client.result;
    const watermark = (operator: string) =>
      client.metrics.samples(OPERATOR_METRICS.inputWatermark, { operator })[0]!.value;
    // Everything downstream of the source saw the end of input: event time +Infinity.
    expect(watermark('timestamps-watermarks-1')).toBe(Number.POSITIVE_INFINITY);
    expect(watermark('counts')).toBe(Number.POSITIVE_INFINITY);
    expect(
      client.metrics.samples(OPERATOR_METRICS.watermarkLag, { operator: 'counts' })[0]!.value,
    ).toBeNaN();
    const latency = client.metrics.histogram(OPERATOR_METRICS.latency, { operator: 'out-5' })!;
    expect(latency.count).toBeGreaterThan(0);
    // Event times lie a minute in the past: every sample is around 58-60 s.
    expect(latency.sum / latency.count).toBeGreaterThan(55);
    expect(latency.sum / latency.count).toBeLessThan(120);
  });

  it('reports the watermark while the job runs, and its lag behind the wall clock', async () => {
    const env = new StreamEnvironment();
    const start = Date.now();
    env
      .fromGenerator<Event>({
        ratePerSecond: 2000,
        generate: (i) => ({ key: i % 3, time: start + Math.floor(i / 2) }),
      })
      .assignTimestampsAndWatermarks(
        WatermarkStrategy.forBoundedOutOfOrderness<Event>(100).withTimestampAssigner((e) => e.time),
      )
      .sinkTo(new DiscardingSink())
      .name('out');
    const client = env.executeAsync('live');
    await new Promise((resolve) => setTimeout(resolve, 600));
    const watermark = client.monitor.watermark();
    const lag = client.metrics.samples(OPERATOR_METRICS.watermarkLag, { operator: 'out-2' })[0]!
      .value;
    const before = client.metrics.samples(OPERATOR_METRICS.inputWatermark, {
      operator: 'timestamps-watermarks-1',
    })[0]!.value;
    await client.cancel();
    expect(watermark).toBeGreaterThan(start);
    expect(watermark).toBeLessThan(Date.now());
    expect(lag).toBeGreaterThan(0.05);
    expect(lag).toBeLessThan(5);
    // The assigner's own input has no watermarks: the source generates none.
    expect(before).toBe(Number.NEGATIVE_INFINITY);
  });

  it('shows a slow sink as busy or backpressure time, and the source as backpressured', async () => {
    const env = new StreamEnvironment({ parallelism: 1, batchSize: 64, channelCapacity: 2 });
    let pending: Promise<void> | undefined;
    const slow: Sink<number> = {
      name: 'slow',
      createWriter: () => ({
        write(_batch: RecordBatch<number>) {
          pending = new Promise((resolve) => setTimeout(resolve, 5)).then(() => {
            pending = undefined;
          });
        },
        blocked: () => pending,
        close() {},
      }),
    };
    env
      .fromGenerator({ count: 10_000, generate: (i) => i })
      .rebalance()
      .map((x) => x + 1)
      .sinkTo(slow)
      .name('slow sink');
    const client = env.executeAsync('backpressure');
    await new Promise((resolve) => setTimeout(resolve, 700));
    const ratio = (name: string, operator: string) =>
      client.metrics.samples(name, { operator })[0]!.value;
    const sourceBackpressure = ratio(OPERATOR_METRICS.backpressuredRatio, 'generator-0');
    const sinkBackpressure = ratio(OPERATOR_METRICS.backpressuredRatio, 'slow-sink-3');
    const seconds = client.metrics.total(TASK_METRICS.backpressuredSeconds, {
      task: 'generator-0',
    });
    await client.cancel();
    expect(sourceBackpressure).toBeGreaterThan(0.5);
    // The sink's own task waits for the flushing sink: backpressure too (it is the cause).
    expect(sinkBackpressure).toBeGreaterThan(0.5);
    expect(seconds).toBeGreaterThan(0.3);
  });

  it('can be switched off', async () => {
    const env = new StreamEnvironment({ metrics: { instrumentation: false } });
    windowJob(env, 1_000);
    const result = await env.execute('plain');
    const names = new Set(result.metrics.map((m) => m.name));
    expect(names.has('weir_source_records_total')).toBe(true);
    expect(names.has(OPERATOR_METRICS.recordsOut)).toBe(true);
    for (const name of [
      OPERATOR_METRICS.recordsIn,
      OPERATOR_METRICS.busyRatio,
      TASK_METRICS.busySeconds,
    ]) {
      expect(names.has(name), name).toBe(false);
    }
  });
});

describe('job metrics', () => {
  it('keep the checkpoint history with durations, sizes and savepoints', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-metrics-'));
    dirs.push(dir);
    const env = new StreamEnvironment({
      parallelism: 2,
      checkpointing: { directory: join(dir, 'checkpoints'), intervalMs: 50 },
    });
    env
      .fromGenerator<Event>({ ratePerSecond: 20_000, generate: (i) => ({ key: i % 5, time: i }) })
      .assignTimestampsAndWatermarks(
        WatermarkStrategy.forBoundedOutOfOrderness<Event>(10).withTimestampAssigner((e) => e.time),
      )
      .keyBy((e) => e.key)
      .window(Windows.tumbling(100))
      .aggregate(count)
      .sinkTo(new DiscardingSink());
    const client = env.executeAsync('checkpoints');
    await new Promise((resolve) => setTimeout(resolve, 400));
    const savepoint = await client.triggerSavepoint(join(dir, 'savepoints'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    await client.cancel();
    const history = client.monitor.checkpoints;
    const entries = history.entries();
    expect(savepoint).toContain(join(dir, 'savepoints'));
    expect(entries.length).toBeGreaterThan(2);
    expect(entries.map((e) => e.id)).toEqual([...entries.map((e) => e.id)].sort((a, b) => b - a));
    const completed = entries.filter((e) => e.status === 'completed');
    expect(completed.length).toBeGreaterThan(2);
    for (const e of completed) {
      expect(e.acknowledged).toBe(4);
      expect(e.tasks).toBe(4);
      expect(e.sizeBytes).toBeGreaterThan(0);
      expect(e.durationMs).toBeGreaterThanOrEqual(0);
      expect(e.alignmentMs).toBeGreaterThanOrEqual(0);
    }
    expect(entries.filter((e) => e.kind === 'savepoint')).toHaveLength(1);
    expect(history.counts().completed).toBe(
      client.metrics.total('weir_checkpoints_completed_total'),
    );
    expect(client.monitor.lastCheckpoint()?.id).toBe(
      client.metrics.total('weir_checkpoint_last_completed_id'),
    );
    expect(client.metrics.histogram('weir_checkpoint_duration_seconds')!.count).toBe(
      completed.length,
    );
    expect(client.monitor.status).toBe('cancelled');
  });

  it('records checkpoint failures and the job failure as exceptions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-metrics-'));
    dirs.push(dir);
    let writes = 0;
    const env = new StreamEnvironment({
      checkpointing: {
        directory: dir,
        intervalMs: 30,
        tolerableFailures: 100,
        storage: {
          write: async () => {
            writes++;
            throw new Error('disk full');
          },
          latest: async () => undefined,
          prune: async () => {},
        },
      },
    });
    env
      .fromGenerator({ ratePerSecond: 5000, generate: (i) => i })
      .map((x) => {
        if (x === 2000) throw new Error('boom');
        return x;
      })
      .name('explode')
      .sinkTo(new DiscardingSink());
    const client = env.executeAsync('failing');
    await expect(client.result).rejects.toThrow(/boom/);
    expect(writes).toBeGreaterThan(0);
    const exceptions = client.monitor.exceptions();
    expect(exceptions[0]).toMatchObject({
      fatal: true,
      code: 'USER_FUNCTION_FAILED',
      operator: 'explode-1',
    });
    expect(exceptions[0]!.message).toContain('boom');
    expect(exceptions.some((e) => !e.fatal && /checkpoint \d+ failed/.test(e.message))).toBe(true);
    expect(client.monitor.checkpoints.entries().some((e) => e.status === 'failed')).toBe(true);
    expect(client.monitor.status).toBe('failed');
  });

  it('serves Prometheus metrics while the job runs when asked for a port', async () => {
    const env = new StreamEnvironment({ metrics: { port: 0 } });
    env.fromGenerator({ ratePerSecond: 1000, generate: (i) => i }).sinkTo(new DiscardingSink());
    const client = env.executeAsync('scraped');
    await expect
      .poll(() => client.monitor.metricsUrl)
      .toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const url = client.monitor.metricsUrl!;
    await new Promise((resolve) => setTimeout(resolve, 100));
    const response = await fetch(url);
    expect(response.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    const text = await response.text();
    expect(text).toContain('# TYPE weir_source_records_total counter');
    const job = `job_name="scraped",job_id="${client.jobId}"`;
    expect(text).toMatch(new RegExp(`weir_job_uptime_seconds\\{${job}\\} [\\d.]+`));
    expect(text).toContain(`weir_operator_busy_ratio{${job},operator="generator-0",subtask="0"}`);
    await client.cancel();
    await expect(fetch(url)).rejects.toThrow();
  });
});
