/**
 * Worker mode against one thread: the keyed window benchmark (generated
 * clicks, 1 s tumbling counts per user) and Nexmark queries, each run on the
 * calling thread (parallelism 1), on 1 worker (parallelism 1), on 2 workers
 * (parallelism 2), and on 2 workers without two-phase window aggregation,
 * in one process, best of `--reps` runs. For scale, the same run also times
 * the machine's own ceiling: two separate processes, each running half of
 * the events on one thread, side by side.
 *
 *   npm run bench:multicore -- [--events N] [--nexmark-events N] [--keys K] [--queries q1,q5,q8] [--reps R]
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { type RunJobModuleOptions, runJobModule } from '../src/index.js';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '4000000' },
    'nexmark-events': { type: 'string', default: '2000000' },
    keys: { type: 'string', default: '10000' },
    queries: { type: 'string', default: 'q1,q5,q8' },
    reps: { type: 'string', default: '2' },
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
async function twoProcesses(halfArgs: string[]): Promise<number> {
  const self = fileURLToPath(import.meta.url);
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < reps; r++) {
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

async function measure(args: string[], mode: Mode): Promise<Measured> {
  let best = Number.POSITIVE_INFINITY;
  let cpuSeconds = 0;
  let results = 0;
  for (let r = 0; r < reps; r++) {
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

const half = (n: string) => String(Math.floor(Number(n) / 2));
const workloads: { name: string; events: number; args: string[]; halfArgs: string[] }[] = [
  {
    name: `keyed window (${values.keys} keys)`,
    events: Number(values.events),
    args: ['clicks', values.events, values.keys],
    halfArgs: ['clicks', half(values.events), values.keys],
  },
  ...values.queries
    .split(',')
    .filter((q) => q !== '')
    .map((q) => ({
      name: `nexmark ${q}`,
      events: Number(values['nexmark-events']),
      args: ['nexmark', q, values['nexmark-events']],
      halfArgs: ['nexmark', q, half(values['nexmark-events'])],
    })),
];

console.log(
  '| workload | events | one thread | 1 worker | 2 workers | 2 workers, one phase | 2 processes × half | 1 worker / one thread | 2 workers / 1 worker | 2 processes / one thread | CPU s (one thread / 1 worker / 2 workers / one phase) |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const w of workloads) {
  const rates: number[] = [];
  const cpu: number[] = [];
  const results = new Set<number>();
  for (const mode of MODES) {
    const m = await measure(w.args, mode);
    rates.push(w.events / m.seconds);
    cpu.push(m.cpuSeconds);
    results.add(m.results);
  }
  if (results.size !== 1)
    throw new Error(`${w.name}: modes disagree on result counts: ${[...results]}`);
  const ceiling = w.events / (await twoProcesses(w.halfArgs));
  const fmt = (r: number) => `${(r / 1e6).toFixed(2)} M/s`;
  console.log(
    `| ${w.name} | ${w.events.toLocaleString('en')} | ${rates.map(fmt).join(' | ')} | ${fmt(ceiling)} | ${(rates[1]! / rates[0]!).toFixed(2)} | ${(rates[2]! / rates[1]!).toFixed(2)} | ${(ceiling / rates[0]!).toFixed(2)} | ${cpu.map((c) => c.toFixed(2)).join(' / ')} |`,
  );
}
