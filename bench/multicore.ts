/**
 * Worker mode against one thread: the keyed window benchmark (generated
 * clicks, 1 s tumbling counts per user) and Nexmark queries, each run on the
 * calling thread (parallelism 1), on 1 worker (parallelism 1), on 2 workers
 * (parallelism 2), and on 2 workers without two-phase window aggregation,
 * in one process, best of `--reps` runs. For scale, the same run also times
 * the machine's own ceiling: two separate processes, each running half of
 * the events on one thread, side by side.
 *
 * Start-up (starting workers, loading the job module; for the ceiling,
 * starting two Node processes) is timed with a run of 10,000 events in each
 * mode and printed beside the rates, with its share of the measured run: the
 * default sizes keep it to a few per cent on a quiet machine. The load
 * average is printed at the start and the end: on a shared machine the wall
 * clock says little, and the CPU seconds are the figures to compare. The last
 * column gives the ratios again over each run less its own start-up, which a
 * long-running job pays once.
 *
 *   npm run bench:multicore -- [--events N] [--nexmark-events N] [--keys K] [--queries q5,q8,q11] [--reps R]
 */
import { execFile } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { type RunJobModuleOptions, runJobModule } from '../src/index.js';

const { values } = parseArgs({
  options: {
    // Large enough that start-up (about 0.3 s for two workers or two
    // processes) is a few per cent of a run on a quiet 2-core machine.
    events: { type: 'string', default: '80000000' },
    'nexmark-events': { type: 'string', default: '20000000' },
    keys: { type: 'string', default: '10000' },
    queries: { type: 'string', default: 'q5,q8,q11' },
    reps: { type: 'string', default: '1' },
    /** Internal: run one workload on one thread and exit (a half of the ceiling measurement). */
    half: { type: 'string' },
  },
});
const reps = Number(values.reps);
const job = fileURLToPath(new URL('./jobs/multicore-job.js', import.meta.url));

interface Mode {
  readonly name: string;
  readonly options: RunJobModuleOptions;
}
const MODES: readonly Mode[] = [
  { name: 'one thread', options: { parallelism: 1 } },
  { name: '1 worker', options: { parallelism: 1, workers: 1 } },
  { name: '2 workers', options: { parallelism: 2, workers: 2 } },
  {
    name: '2 workers, one phase',
    options: { parallelism: 2, workers: 2, localAggregation: false },
  },
];

if (values.half !== undefined) {
  await runJobModule(job, { parallelism: 1, args: JSON.parse(values.half) as string[] });
  process.exit(0);
}

const run = promisify(execFile);

/** Wall-clock seconds of two processes, each running `halfArgs` on one thread, side by side (best of reps). */
async function twoProcesses(halfArgs: string[], times = reps): Promise<number> {
  const self = fileURLToPath(import.meta.url);
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < times; r++) {
    const started = performance.now();
    await Promise.all(
      [0, 1].map(() => run(process.execPath, [self, '--half', JSON.stringify(halfArgs)])),
    );
    best = Math.min(best, (performance.now() - started) / 1000);
  }
  return best;
}

interface Measured {
  /** Wall-clock seconds of the best run. */
  readonly seconds: number;
  /** CPU seconds of the whole process (all threads) in that run. */
  readonly cpuSeconds: number;
  readonly results: number;
}

async function measure(args: string[], mode: Mode, times = reps): Promise<Measured> {
  let best = Number.POSITIVE_INFINITY;
  let cpuSeconds = 0;
  let results = 0;
  for (let r = 0; r < times; r++) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    const run = await runJobModule(job, {
      ...mode.options,
      args,
      metrics: { instrumentation: true },
    });
    const seconds = (performance.now() - started) / 1000;
    if (seconds < best) {
      best = seconds;
      const used = process.cpuUsage(cpu);
      cpuSeconds = (used.user + used.system) / 1e6;
    }
    results = run.result.metric('weir_operator_records_in_total', { operator: 'results' });
  }
  return { seconds: best, cpuSeconds, results };
}

const half = (n: string | number) => String(Math.floor(Number(n) / 2));
/** Events of the run that times start-up alone. */
const STARTUP_EVENTS = 10_000;
interface Workload {
  readonly name: string;
  readonly events: number;
  /** The job module's arguments for `events` events. */
  readonly args: (events: string) => string[];
}
const workloads: Workload[] = [
  {
    name: `keyed window (${values.keys} keys)`,
    events: Number(values.events),
    args: (n) => ['clicks', n, values.keys],
  },
  ...values.queries
    .split(',')
    .filter((q) => q !== '')
    .map((q) => ({
      name: `nexmark ${q}`,
      events: Number(values['nexmark-events']),
      args: (n: string) => ['nexmark', q, n],
    })),
];

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');
console.log(`load average at the start: ${load()} (${new Date().toISOString()})`);
console.log(
  '| workload | events | one thread | 1 worker | 2 workers | 2 workers, one phase | 2 processes × half | 1 worker / one thread | 2 workers / ceiling | 2 processes / one thread | CPU s (one thread / 1 worker / 2 workers / one phase) | start-up s (one thread / 1 worker / 2 workers / 2 processes) | after start-up: 1 worker / one thread, 2 workers / ceiling |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const w of workloads) {
  const rates: number[] = [];
  const cpu: number[] = [];
  const startup: number[] = [];
  const results = new Set<number>();
  for (const mode of MODES) {
    const m = await measure(w.args(String(w.events)), mode);
    rates.push(w.events / m.seconds);
    cpu.push(m.cpuSeconds);
    results.add(m.results);
  }
  if (results.size !== 1)
    throw new Error(`${w.name}: modes disagree on result counts: ${[...results]}`);
  const ceiling = w.events / (await twoProcesses(w.args(half(w.events))));
  // Start-up alone: the same modes over a few events (the one-phase mode starts like 2 workers).
  for (const mode of MODES.slice(0, 3))
    startup.push((await measure(w.args(String(STARTUP_EVENTS)), mode, 1)).seconds);
  startup.push(await twoProcesses(w.args(half(STARTUP_EVENTS)), 1));
  const fmt = (r: number) => `${(r / 1e6).toFixed(2)} M/s`;
  // Start-up as a share of the run it belongs to (2 workers' and the ceiling's matter most).
  const runs = [rates[0]!, rates[1]!, rates[2]!, ceiling].map((r) => w.events / r);
  const startups = startup
    .map((s, i) => `${s.toFixed(2)} (${((100 * s) / runs[i]!).toFixed(0)}%)`)
    .join(' / ');
  // A streaming job pays start-up once: the same ratios over each run less its own start-up.
  const steady = runs.map((seconds, i) => w.events / (seconds - startup[i]!));
  const afterStartup = `${(steady[1]! / steady[0]!).toFixed(2)}, ${(steady[2]! / steady[3]!).toFixed(2)}`;
  console.log(
    `| ${w.name} | ${w.events.toLocaleString('en')} | ${rates.map(fmt).join(' | ')} | ${fmt(ceiling)} | ${(rates[1]! / rates[0]!).toFixed(2)} | ${(rates[2]! / ceiling).toFixed(2)} | ${(ceiling / rates[0]!).toFixed(2)} | ${cpu.map((c) => c.toFixed(2)).join(' / ')} | ${startups} | ${afterStartup} |`,
  );
}
console.log(`load average at the end: ${load()} (${new Date().toISOString()})`);
