/**
 * Checkpoints under sustained backpressure: an unbounded generator feeds
 * keyBy -> map -> rebalance -> a sink throttled to a fixed number of records
 * per second per subtask, with a checkpoint asked for every second. Each run
 * lasts a fixed wall time in its own child process and reports how long
 * checkpoints took (trigger to durable), the longest barrier alignment, how
 * many completed, the records the sink took, and RSS sampled every 500 ms.
 *
 *   npm run bench:backpressure -- [--seconds S] [--sink-rate R] [--slow-after S] [--batch-size B] [--parallelism 1,2] [--modes off,on]
 *
 * `off` runs with buffer debloating off (channels bounded by batch count
 * only, as before debloating existed), `on` with the default 1 s target.
 * With `--slow-after S` the sink takes records as fast as they come for the
 * first S seconds and is throttled from then on (a sudden slowdown).
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type RecordBatch, type Sink, type SinkWriter, StreamEnvironment } from '../src/index.js';

interface Outcome {
  readonly mode: string;
  readonly parallelism: number;
  readonly seconds: number;
  readonly completed: number;
  readonly failed: number;
  readonly durationsMs: readonly number[];
  readonly maxAlignmentMs: number;
  readonly sunk: number;
  readonly rssMb: readonly number[];
  readonly peakRssMb: number;
}

/**
 * Accepts `ratePerSecond` records per second per subtask (after each batch it
 * blocks for the batch's share), from `slowFrom` (performance.now() ms) on.
 */
class ThrottledSink implements Sink<unknown> {
  readonly name = 'throttled';
  received = 0;
  constructor(
    private readonly ratePerSecond: number,
    private readonly slowFrom: number,
  ) {}
  createWriter(): SinkWriter<unknown> {
    let pending: Promise<void> | undefined;
    return {
      write: (batch: RecordBatch<unknown>) => {
        this.received += batch.values.length;
        if (performance.now() < this.slowFrom) return;
        const ms = (batch.values.length * 1000) / this.ratePerSecond;
        pending = new Promise((resolve) =>
          setTimeout(() => {
            pending = undefined;
            resolve();
          }, ms),
        );
      },
      blocked: () => pending,
      close: () => pending,
    };
  }
}

async function child(
  mode: string,
  parallelism: number,
  seconds: number,
  sinkRate: number,
  slowAfter: number,
  batchSize: number,
) {
  const directory = await mkdtemp(join(tmpdir(), 'weir-bench-bp-'));
  const sink = new ThrottledSink(sinkRate, performance.now() + slowAfter * 1000);
  const env = new StreamEnvironment({
    parallelism,
    batchSize,
    // A long timeout: the point is to see how long checkpoints take, not to fail them.
    checkpointing: { directory, intervalMs: 1000, timeoutMs: 600_000 },
    ...(mode === 'off' ? { bufferDebloating: false } : {}),
  });
  env
    .fromGenerator({ generate: (i) => ({ key: i % 1000, value: i }) })
    .keyBy((r) => r.key)
    .map((r) => ({ key: r.key, value: r.value * 2 }))
    .rebalance()
    .sinkTo(sink);
  const client = env.executeAsync('backpressure');
  const rss: number[] = [];
  const started = performance.now();
  while (performance.now() - started < seconds * 1000) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    rss.push(process.memoryUsage.rss() / 2 ** 20);
  }
  const entries = client.monitor.checkpoints.entries();
  const counts = client.monitor.checkpoints.counts();
  await client.cancel();
  await rm(directory, { recursive: true, force: true });
  const done = entries.filter((e) => e.status === 'completed').reverse();
  const outcome: Outcome = {
    mode,
    parallelism,
    seconds,
    completed: counts.completed,
    failed: counts.failed,
    durationsMs: done.map((e) => Math.round(e.durationMs ?? 0)),
    maxAlignmentMs: Math.max(0, ...done.map((e) => e.alignmentMs)),
    sunk: sink.received,
    rssMb: rss.map((m) => Math.round(m)),
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  };
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
}

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '40' },
    'sink-rate': { type: 'string', default: '500' },
    'slow-after': { type: 'string', default: '0' },
    'batch-size': { type: 'string', default: '1024' },
    parallelism: { type: 'string', default: '1,2' },
    modes: { type: 'string', default: 'off,on' },
    child: { type: 'string' },
  },
});
const seconds = Number(values.seconds);
const sinkRate = Number(values['sink-rate']);
const slowAfter = Number(values['slow-after']);
const batchSize = Number(values['batch-size']);

if (values.child !== undefined) {
  await child(values.child, Number(values.parallelism), seconds, sinkRate, slowAfter, batchSize);
} else {
  const pct = (xs: readonly number[], q: number) =>
    xs.length === 0 ? Number.NaN : [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * q)]!;
  const slow = slowAfter > 0 ? ` after ${slowAfter} s unthrottled` : '';
  console.log(
    `${seconds} s per run, sink ${sinkRate} records/s per subtask${slow}, batches of ${batchSize}, checkpoint every 1 s`,
  );
  console.log(
    '| parallelism | debloating | checkpoints completed | duration median / max (s) | longest alignment (s) | records sunk/s | RSS MB at 1/3, end, peak |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const p of values.parallelism.split(',').map(Number)) {
    for (const mode of values.modes.split(',')) {
      const args = [fileURLToPath(import.meta.url), '--child', mode, '--parallelism', String(p)];
      args.push('--seconds', String(seconds), '--sink-rate', String(sinkRate));
      args.push('--slow-after', String(slowAfter), '--batch-size', String(batchSize));
      const text = execFileSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 22 });
      const o = JSON.parse(text.trim().split('\n').pop()!) as Outcome;
      const third = o.rssMb[Math.floor(o.rssMb.length / 3)] ?? 0;
      const last = o.rssMb[o.rssMb.length - 1] ?? 0;
      console.log(
        `| ${p} | ${mode} | ${o.completed} (${o.failed} failed) | ${(pct(o.durationsMs, 0.5) / 1000).toFixed(1)} / ${(Math.max(0, ...o.durationsMs) / 1000).toFixed(1)} | ${(o.maxAlignmentMs / 1000).toFixed(2)} | ${Math.round(o.sunk / o.seconds)} | ${third}, ${last}, ${o.peakRssMb.toFixed(0)} |`,
      );
      console.error(`  durations (ms): ${o.durationsMs.join(' ')}`);
    }
  }
}
