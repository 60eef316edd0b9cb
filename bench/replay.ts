/**
 * Replay against streaming, and the cost of a reconciliation's comparison.
 *
 * - streaming / replay: the same windowed job module (bench/jobs/replay-job.ts:
 *   JSON clicks from a 4-partition Kafka topic, counted per user per minute)
 *   over the same N records, each in its own child process at parallelism 1:
 *   once as `weir run` runs it (the Kafka source reading to the end offsets it
 *   saw at start), once as `weir replay` runs it (the replayed source merging
 *   partitions in event-time order into fixed batches). Both keep the window
 *   results in memory. Reported: records per CPU-second, and replay's ratio.
 * - checkpointed: the streaming run as it runs in production, with a
 *   checkpoint every second (a replay takes none).
 * - compare: `compareOutputs` over R window-result rows on each side, as
 *   `weir reconcile` lines them up (one row in a thousand differs).
 *
 *   npm run bench:replay -- [--records 10000000] [--rows 1000000] [--reps 3] [--brokers 127.0.0.1:9092]
 *                           [--keep-topic] [--topic <kept topic of --records records>]
 *
 * Needs the broker of scripts/kafka.sh; the input topic is created once per run.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Admin, Producer } from '@platformatic/kafka';
import { runJobModule } from '../src/api/job-module/run-job-module.js';
import type { WrittenRow } from '../src/core/replay.js';
import { compareOutputs } from '../src/replay/compare.js';
import { replayJob } from '../src/replay/run-replay.js';

const { values: args } = parseArgs({
  options: {
    records: { type: 'string', default: '10000000' },
    rows: { type: 'string', default: '1000000' },
    reps: { type: 'string', default: '3' },
    brokers: { type: 'string', default: '127.0.0.1:9092' },
    child: { type: 'string' },
    topic: { type: 'string' },
    'keep-topic': { type: 'boolean' },
  },
});
const RECORDS = Number(args.records);
const ROWS = Number(args.rows);
const BROKERS = args.brokers!;
const PARTITIONS = 4;
const JOB = fileURLToPath(new URL('./jobs/replay-job.js', import.meta.url));
/** Two days ago, on a minute: older log timestamps would fall to the broker's retention (7 days). */
const BASE = Math.floor(Date.now() / 60_000) * 60_000 - 2 * 86_400_000;

interface Outcome {
  readonly mode: string;
  readonly records: number;
  readonly seconds: number;
  readonly cpuSeconds: number;
  readonly results: number;
  readonly peakRssMb: number;
}

async function measure(mode: string, records: number, work: () => Promise<number>): Promise<void> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const results = await work();
  const used = process.cpuUsage(cpu);
  const outcome: Outcome = {
    mode,
    records,
    seconds: (performance.now() - started) / 1000,
    cpuSeconds: (used.user + used.system) / 1e6,
    results,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  };
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
}

async function child(mode: string, topic: string): Promise<void> {
  const jobArgs = [topic, BROKERS];
  if (mode === 'streaming') {
    await measure(mode, RECORDS, async () => {
      const run = await runJobModule(JOB, { args: jobArgs, parallelism: 1 });
      return run.collected().length;
    });
  } else if (mode === 'checkpointed') {
    const directory = await mkdtemp(join(tmpdir(), 'weir-bench-replay-'));
    try {
      await measure(mode, RECORDS, async () => {
        const run = await runJobModule(JOB, {
          args: jobArgs,
          parallelism: 1,
          checkpointing: { directory, intervalMs: 1000 },
        });
        return run.collected().length;
      });
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  } else if (mode === 'replay') {
    await measure(mode, RECORDS, async () => {
      const run = await replayJob({ module: JOB, args: jobArgs, parallelism: 1 });
      return run.outputs[0]!.values.length;
    });
  } else {
    const rows = windowRows(ROWS);
    await measure(mode, ROWS, async () => {
      const result = await compareOutputs(iterate(rows, false), iterate(rows, true), {
        mode: 'append',
      });
      if (result.differing !== Math.floor(ROWS / 1000)) throw new Error('unexpected comparison');
      return result.differing;
    });
  }
}

function windowRows(n: number): WrittenRow[] {
  const rows: WrittenRow[] = [];
  for (let i = 0; i < n; i++) {
    const key = `user-${i % 1000}`;
    const start = BASE + Math.floor(i / 1000) * 60_000;
    rows.push({
      key,
      value: { key, window: { start, end: start + 60_000 }, value: i % 97 },
      timestamp: start + 59_999,
      origin: `totals/${i % 4}@${i}`,
    });
  }
  return rows;
}

async function* iterate(rows: readonly WrittenRow[], tamper: boolean): AsyncIterable<WrittenRow> {
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    if (tamper && i % 1000 === 999) {
      const v = row.value as { key: string; window: { start: number; end: number }; value: number };
      yield { ...row, value: { ...v, value: v.value + 1 } };
    } else yield row;
  }
}

async function produceInput(topic: string): Promise<void> {
  const admin = new Admin({ clientId: 'weir-bench', bootstrapBrokers: BROKERS.split(',') });
  try {
    await admin.createTopics({ topics: [topic], partitions: PARTITIONS, replicas: 1 });
  } finally {
    await admin.close();
  }
  const producer = new Producer({
    clientId: 'weir-bench',
    bootstrapBrokers: BROKERS.split(','),
    idempotent: true,
  });
  try {
    const batch = 5000;
    for (let i = 0; i < RECORDS; i += batch) {
      const messages = [];
      for (let j = i; j < Math.min(RECORDS, i + batch); j++) {
        // 100 clicks per second of event time, up to 1.5 s out of order.
        const t = BASE + Math.floor(j / 100) * 1000 + ((j * 7919) % 1000) - ((j * 31) % 1500);
        messages.push({
          topic,
          partition: j % PARTITIONS,
          value: Buffer.from(JSON.stringify({ user: `user-${j % 1000}`, page: `/p/${j % 37}`, t })),
          timestamp: BigInt(Math.max(BASE, t)),
        });
      }
      await producer.send({ messages });
    }
  } finally {
    await producer.close();
  }
}

function median(xs: readonly number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
}

async function main(): Promise<void> {
  if (args.child !== undefined) {
    await child(args.child, args.topic ?? '');
    return;
  }
  // --topic reuses a topic an earlier run kept (--keep-topic), holding --records records.
  const reuse = args.topic !== undefined;
  const topic = args.topic ?? `bench-replay-${process.pid}-${Date.now().toString(36)}`;
  const t0 = performance.now();
  if (!reuse) await produceInput(topic);
  console.log(
    `produced ${RECORDS.toLocaleString('en-US')} records into ${topic} in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  const script = fileURLToPath(import.meta.url);
  const runs: Outcome[] = [];
  for (let rep = 0; rep < Number(args.reps); rep++) {
    for (const mode of ['streaming', 'checkpointed', 'replay', 'compare']) {
      const text = execFileSync(
        process.execPath,
        [
          script,
          '--child',
          mode,
          '--topic',
          topic,
          '--records',
          String(RECORDS),
          '--rows',
          String(ROWS),
          '--brokers',
          BROKERS,
        ],
        { encoding: 'utf8', maxBuffer: 1 << 24 },
      );
      const o = JSON.parse(text.trim().split('\n').pop()!) as Outcome;
      runs.push(o);
      console.log(
        `${mode.padEnd(9)} rep ${rep + 1}: ${o.records.toLocaleString('en-US')} in ${o.seconds.toFixed(2)} s wall, ${o.cpuSeconds.toFixed(2)} CPU-s (${(o.records / o.cpuSeconds / 1e6).toFixed(2)} M per CPU-second), ${o.results.toLocaleString('en-US')} results, ${o.peakRssMb.toFixed(0)} MB peak RSS`,
      );
    }
  }
  const perCpu = (mode: string) =>
    median(runs.filter((r) => r.mode === mode).map((r) => r.records / r.cpuSeconds));
  const wall = (mode: string) => median(runs.filter((r) => r.mode === mode).map((r) => r.seconds));
  console.log('\nmedians:');
  console.log(
    `streaming  ${(perCpu('streaming') / 1e6).toFixed(2)} M records per CPU-second, ${wall('streaming').toFixed(1)} s`,
  );
  console.log(
    `replay     ${(perCpu('replay') / 1e6).toFixed(2)} M records per CPU-second, ${wall('replay').toFixed(1)} s`,
  );
  console.log(
    `checkpointed  ${(perCpu('checkpointed') / 1e6).toFixed(2)} M records per CPU-second, ${wall('checkpointed').toFixed(1)} s`,
  );
  // Per repetition too: the modes of one repetition ran back to back, under the same load.
  const reps = Number(args.reps);
  for (let rep = 0; rep < reps; rep++) {
    const cpu = (mode: string) => runs.filter((r) => r.mode === mode)[rep]!.cpuSeconds;
    console.log(
      `rep ${rep + 1}: replay / streaming per CPU-second ${(cpu('streaming') / cpu('replay')).toFixed(2)}x, replay / checkpointed ${(cpu('checkpointed') / cpu('replay')).toFixed(2)}x`,
    );
  }
  console.log(
    `replay / streaming per CPU-second (medians): ${(perCpu('replay') / perCpu('streaming')).toFixed(2)}x`,
  );
  console.log(
    `compare    ${ROWS.toLocaleString('en-US')} rows a side in ${wall('compare').toFixed(2)} s`,
  );
  if (args['keep-topic'] === true) return;
  const admin = new Admin({ clientId: 'weir-bench', bootstrapBrokers: BROKERS.split(',') });
  await admin.deleteTopics({ topics: [topic] }).finally(() => admin.close());
}

await main();
