/**
 * A keyed count in a 1 h window sliding every 1 s against the same count in a
 * 1 h tumbling window, over the same generated events. Each variant runs in
 * its own child process, alternating; the parent prints events/s of each and
 * their ratio. Every event lies in 3,600 sliding windows and in one tumbling
 * window, so the sums of all counts check both results: events x 3,600 and
 * events.
 *
 *   npm run bench:sliding -- [--events N] [--keys K] [--reps R]
 *
 * Event time advances one second per EVENTS_PER_SECOND events (default
 * 4,000,000 events: 5,000 s, longer than the window, so sliding windows fire
 * while input is still arriving and again at its end).
 */
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { DiscardingSink, StreamEnvironment, WatermarkStrategy, Windows } from '../src/index.js';
import type { DeterministicRandom as Random } from '../src/util/random.js';
import { type Click, countClicks } from './shared/clicks.js';
import { benchArgs, type Measured, measureChild, median, runModes } from './shared/modes.js';

const HOUR_MS = 3_600_000;
const SLIDE_MS = 1_000;
const EVENTS_PER_SECOND = 800;
const DISORDER_MS = 500;

interface Outcome extends Measured {
  readonly results: number;
  readonly counted: number;
}

function makeClick(index: number, random: Random, keys: number): Click {
  return {
    user: random.int(keys),
    page: 0,
    time: Math.floor((index * 1000) / EVENTS_PER_SECOND) - random.int(DISORDER_MS),
  };
}

async function run(
  mode: string,
  events: number,
  keys: number,
): Promise<{ results: number; counted: number }> {
  const env = new StreamEnvironment({ parallelism: 1 });
  let results = 0;
  let counted = 0;
  env
    .fromGenerator({ count: events, seed: 7, generate: (i, r) => makeClick(i, r, keys) })
    .assignTimestampsAndWatermarks(
      // The bound covers the disorder: no event is late, so the sums check exactly.
      WatermarkStrategy.forBoundedOutOfOrderness<Click>(DISORDER_MS).withTimestampAssigner(
        (c) => c.time,
      ),
    )
    .keyBy((c) => c.user)
    .window(mode === 'sliding' ? Windows.sliding(HOUR_MS, SLIDE_MS) : Windows.tumbling(HOUR_MS))
    .aggregate(countClicks)
    .map((r) => {
      results++;
      counted += r.value;
      return r;
    })
    .sinkTo(new DiscardingSink());
  await env.execute(`window-${mode}`);
  return { results, counted };
}

const args = benchArgs({ events: 4_000_000, keys: 10 });

if (args.child !== undefined) {
  const mode = args.child;
  await measureChild(mode, args.events, () => run(mode, args.events, args.keys));
} else {
  const loadBefore = loadavg()[0]!;
  const runs = runModes<Outcome>(
    fileURLToPath(import.meta.url),
    ['tumbling', 'sliding'],
    args,
    (o) => `peak RSS ${o.peakRssMb.toFixed(0)} MB, ${o.results} results`,
  );
  const tumbling = runs.filter((r) => r.mode === 'tumbling');
  const sliding = runs.filter((r) => r.mode === 'sliding');
  const windowsPerEvent = HOUR_MS / SLIDE_MS;
  const correct =
    tumbling.every((r) => r.counted === args.events) &&
    sliding.every((r) => r.counted === args.events * windowsPerEvent);
  const tRate = median(tumbling.map((r) => r.eventsPerSec));
  const sRate = median(sliding.map((r) => r.eventsPerSec));
  const tCpu = median(tumbling.map((r) => r.eventsPerCpuSec));
  const sCpu = median(sliding.map((r) => r.eventsPerCpuSec));
  const span = Math.round(args.events / EVENTS_PER_SECOND);
  console.log('');
  console.log(
    `load average (1 min): ${loadBefore.toFixed(2)} at start, ${loadavg()[0]!.toFixed(2)} at end`,
  );
  console.log(
    `events ${args.events} over ${span} s of event time, keys ${args.keys}, 1 h windows, parallelism 1`,
  );
  console.log(
    `| window | events/s (median of ${tumbling.length}) | events per CPU-second | results | results/s | peak RSS MB |`,
  );
  console.log('|---|---|---|---|---|---|');
  const row = (name: string, rate: number, cpu: number, rs: Outcome[]) => {
    const results = rs[0]!.results;
    const seconds = median(rs.map((r) => r.seconds));
    console.log(
      `| ${name} | ${Math.round(rate).toLocaleString('en')} | ${Math.round(cpu).toLocaleString('en')} | ${results.toLocaleString('en')} | ${Math.round(results / seconds).toLocaleString('en')} | ${median(rs.map((r) => r.peakRssMb)).toFixed(0)} |`,
    );
  };
  row('tumbling 1 h', tRate, tCpu, tumbling);
  row('sliding 1 h / 1 s', sRate, sCpu, sliding);
  console.log(
    `sliding / tumbling: ${((sRate / tRate) * 100).toFixed(2)}% (wall), ${((sCpu / tCpu) * 100).toFixed(2)}% (CPU)   counts check: ${correct}`,
  );
  if (!correct) process.exitCode = 1;
}
