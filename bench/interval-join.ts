/**
 * Two-stream joins over generated orders and payments: an interval join
 * (payments 0..1 s after their order) and a tumbling 1 s window join, both
 * keyed by order id, against a pass-through of the same two streams (the cost
 * of generating and moving the events, no join). Each variant runs in its
 * own child process, alternating, so peak RSS is its own.
 *
 *   npm run bench:joins -- [--events N] [--keys K] [--reps R] [--parallelism P]
 *
 * `--events` counts both streams together (half orders, half payments).
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { DeterministicRandom } from '../src/index.js';
import {
  type DataStream,
  DiscardingSink,
  StreamEnvironment,
  WatermarkStrategy,
  Windows,
} from '../src/index.js';

interface Order {
  readonly order: number;
  readonly amount: number;
  readonly time: number;
}

interface Payment {
  readonly order: number;
  readonly paid: number;
  readonly time: number;
}

/** Event time advances 1 ms per 10 events of each stream, with up to 200 ms of disorder. */
const EVENTS_PER_MS = 10;
const DISORDER_MS = 200;

function makeOrder(i: number, random: DeterministicRandom, keys: number): Order {
  return {
    order: random.int(keys),
    amount: random.int(1000),
    time: Math.floor(i / EVENTS_PER_MS) - random.int(DISORDER_MS),
  };
}

function makePayment(i: number, random: DeterministicRandom, keys: number): Payment {
  return {
    order: random.int(keys),
    paid: random.int(1000),
    time: Math.floor(i / EVENTS_PER_MS) - random.int(DISORDER_MS),
  };
}

type Mode = 'passthrough' | 'interval-join' | 'window-join';

interface Outcome {
  mode: Mode;
  events: number;
  seconds: number;
  eventsPerSec: number;
  eventsPerCpuSec: number;
  peakRssMb: number;
  results: number;
}

function streams(env: StreamEnvironment, events: number, keys: number) {
  const half = Math.floor(events / 2);
  const orders = env
    .fromGenerator({ count: half, seed: 1, generate: (i, r) => makeOrder(i, r, keys) })
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forBoundedOutOfOrderness<Order>(DISORDER_MS).withTimestampAssigner(
        (o) => o.time,
      ),
    );
  const payments = env
    .fromGenerator({ count: half, seed: 2, generate: (i, r) => makePayment(i, r, keys) })
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forBoundedOutOfOrderness<Payment>(DISORDER_MS).withTimestampAssigner(
        (p) => p.time,
      ),
    );
  return { orders, payments };
}

async function child(mode: Mode, events: number, keys: number, parallelism: number) {
  const started = performance.now();
  const cpuStart = process.cpuUsage();
  const env = new StreamEnvironment({ parallelism });
  const { orders, payments } = streams(env, events, keys);
  let out: DataStream<number>;
  if (mode === 'passthrough') {
    out = orders.map((o) => o.amount).union(payments.map((p) => p.paid));
  } else if (mode === 'interval-join') {
    out = orders
      .keyBy((o) => o.order)
      .intervalJoin(payments.keyBy((p) => p.order))
      .between(0, 1000)
      .join((o, p) => o.amount - p.paid);
  } else {
    out = orders
      .join(payments)
      .where((o) => o.order)
      .equalTo((p) => p.order)
      .window(Windows.tumbling(1000))
      .apply((o, p) => o.amount - p.paid);
  }
  const sink = new DiscardingSink<number>();
  out.sinkTo(sink);
  await env.execute(mode);
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  const outcome: Outcome = {
    mode,
    events,
    seconds,
    eventsPerSec: events / seconds,
    eventsPerCpuSec: events / ((cpu.user + cpu.system) / 1e6),
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    results: sink.count,
  };
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
}

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '2000000' },
    keys: { type: 'string', default: '10000' },
    reps: { type: 'string', default: '3' },
    parallelism: { type: 'string', default: '1' },
    child: { type: 'string' },
  },
});
const events = Number(values.events);
const keys = Number(values.keys);
const parallelism = Number(values.parallelism);
const MODES: readonly Mode[] = ['passthrough', 'interval-join', 'window-join'];

if (values.child !== undefined) {
  await child(values.child as Mode, events, keys, parallelism);
} else {
  const self = fileURLToPath(import.meta.url);
  const runs: Outcome[] = [];
  for (let rep = 0; rep < Number(values.reps); rep++) {
    for (const mode of MODES) {
      const args = [self, '--child', mode, '--events', String(events), '--keys', String(keys)];
      args.push('--parallelism', String(parallelism));
      const text = execFileSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 20 });
      const o = JSON.parse(text.trim().split('\n').pop()!) as Outcome;
      runs.push(o);
      console.log(
        `${mode.padEnd(13)} rep ${rep + 1}: ${(o.eventsPerSec / 1e6).toFixed(2)} M events/s (${(o.eventsPerCpuSec / 1e6).toFixed(2)} M per CPU-second), ${o.seconds.toFixed(2)} s, peak RSS ${o.peakRssMb.toFixed(0)} MB, ${o.results} results`,
      );
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const by = (m: Mode) => runs.filter((r) => r.mode === m);
  const base = median(by('passthrough').map((r) => r.eventsPerCpuSec));
  console.log('');
  console.log(
    `events ${events} (half orders, half payments), keys ${keys}, parallelism ${parallelism}`,
  );
  console.log(
    '| variant | events/s, wall (median) | events per CPU-second (median) | vs pass-through (CPU) | peak RSS MB | results |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const m of MODES) {
    const rs = by(m);
    const cpuRate = median(rs.map((r) => r.eventsPerCpuSec));
    console.log(
      `| ${m} | ${(median(rs.map((r) => r.eventsPerSec)) / 1e6).toFixed(2)} M | ${(cpuRate / 1e6).toFixed(2)} M | ${((cpuRate / base) * 100).toFixed(0)}% | ${median(rs.map((r) => r.peakRssMb)).toFixed(0)} | ${rs[0]!.results} |`,
    );
  }
}
