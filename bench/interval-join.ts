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
import { fileURLToPath } from 'node:url';
import {
  type DataStream,
  DiscardingSink,
  StreamEnvironment,
  WatermarkStrategy,
  Windows,
} from '../src/index.js';
import type { DeterministicRandom } from '../src/util/random.js';
import { benchArgs, type Measured, measureChild, median, runModes } from './shared/modes.js';

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

interface Outcome extends Measured {
  readonly results: number;
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

async function run(mode: Mode, events: number, keys: number, parallelism: number) {
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
  return { results: sink.count };
}

const MODES: readonly Mode[] = ['passthrough', 'interval-join', 'window-join'];
const args = benchArgs({ events: 2_000_000, keys: 10_000 });

if (args.child !== undefined) {
  const mode = args.child as Mode;
  await measureChild(mode, args.events, () => run(mode, args.events, args.keys, args.parallelism));
} else {
  const runs = runModes<Outcome>(
    fileURLToPath(import.meta.url),
    MODES,
    args,
    (o) => `peak RSS ${o.peakRssMb.toFixed(0)} MB, ${o.results} results`,
  );
  const by = (m: Mode) => runs.filter((r) => r.mode === m);
  const base = median(by('passthrough').map((r) => r.eventsPerCpuSec));
  console.log('');
  console.log(
    `events ${args.events} (half orders, half payments), keys ${args.keys}, parallelism ${args.parallelism}`,
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
