/**
 * What a record costs to cross to another worker thread, through Weir's own
 * worker transport: the same keyed job (bench/jobs/exchange-job.ts) at
 * parallelism 2, once with both subtasks on the calling thread (the exchange
 * stays in memory) and once on two workers (about half of the records cross
 * threads: encoded in batches, transferred, decoded). The difference in CPU
 * time of the process, less the same difference for a run of a thousand
 * records (starting workers, loading the job on each), divided by the extra
 * records that crossed, is the cost per crossing record. Also measures single-thread memory copy bandwidth (large
 * Buffer copies), an input of the scaling model in docs/benchmarks.md.
 * Modes alternate within each repetition; medians and ranges are printed.
 *
 *   npm run bench:exchange -- [--events N] [--reps R]
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type RunJobModuleOptions, runJobModule } from '../src/index.js';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '2000000' },
    reps: { type: 'string', default: '3' },
  },
});
const events = Number(values.events);
const reps = Number(values.reps);
const job = fileURLToPath(new URL('./jobs/exchange-job.js', import.meta.url));

interface Run {
  readonly cpuSeconds: number;
  readonly seconds: number;
  readonly records: number;
}

/** Records of the run that measures the fixed cost of a job on workers. */
const FIXED_COST_EVENTS = 1000;

async function measure(payload: string, options: RunJobModuleOptions, n = events): Promise<Run> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const run = await runJobModule(job, { ...options, args: [payload, String(n)] });
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const records = run.result.metric('weir_operator_records_in_total', { operator: 'results' });
  return { cpuSeconds: (used.user + used.system) / 1e6, seconds, records };
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
}

function spread(xs: readonly number[], digits: number): string {
  return `${median(xs).toFixed(digits)} [${Math.min(...xs).toFixed(digits)}-${Math.max(...xs).toFixed(digits)}]`;
}

/** GB/s of copying a 256 MB buffer into another on this thread (median of several copies). */
function copyBandwidth(): number {
  const size = 256 << 20;
  const from = Buffer.alloc(size, 7);
  const to = Buffer.alloc(size);
  const rates: number[] = [];
  for (let i = 0; i < 7; i++) {
    const started = performance.now();
    from.copy(to);
    rates.push(size / 1e9 / ((performance.now() - started) / 1000));
  }
  if (to[size - 1] !== 7) throw new Error('copy failed');
  return median(rates);
}

console.log(
  '| payload | records | crossing (about half) | one thread: CPU s | 2 workers: CPU s | one thread: wall s | 2 workers: wall s | CPU ns per crossing record |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
for (const payload of ['small', 'bids']) {
  const oneThread: Run[] = [];
  const twoWorkers: Run[] = [];
  const perCrossing: number[] = [];
  for (let r = 0; r < reps; r++) {
    const a = await measure(payload, { parallelism: 2 });
    const b = await measure(payload, { parallelism: 2, workers: 2 });
    const a0 = await measure(payload, { parallelism: 2 }, FIXED_COST_EVENTS);
    const b0 = await measure(payload, { parallelism: 2, workers: 2 }, FIXED_COST_EVENTS);
    if (a.records !== b.records)
      throw new Error(`${payload}: ${a.records} vs ${b.records} records`);
    oneThread.push(a);
    twoWorkers.push(b);
    const extraCpu = b.cpuSeconds - a.cpuSeconds - (b0.cpuSeconds - a0.cpuSeconds);
    perCrossing.push((extraCpu / ((a.records - a0.records) / 2)) * 1e9);
  }
  const records = oneThread[0]!.records;
  console.log(
    `| ${payload} | ${records} | ${Math.round(records / 2)} | ${spread(
      oneThread.map((x) => x.cpuSeconds),
      2,
    )} | ${spread(
      twoWorkers.map((x) => x.cpuSeconds),
      2,
    )} | ${spread(
      oneThread.map((x) => x.seconds),
      2,
    )} | ${spread(
      twoWorkers.map((x) => x.seconds),
      2,
    )} | ${spread(perCrossing, 0)} |`,
  );
}
console.log(`\nmemory copy bandwidth, one thread: ${copyBandwidth().toFixed(1)} GB/s`);
