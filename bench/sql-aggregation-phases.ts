/**
 * One-phase against two-phase GROUP BY and the distinct-aggregate split, on 2 worker threads
 * at parallelism 2 with mini-batch on: a skewed GROUP BY (90% of the rows of one key) and
 * Nexmark q15 and q16 (distinct counts per day, per channel and day). For each run: CPU seconds
 * of the process (all threads), wall seconds, and the records that cross keyed exchanges
 * (records into the GROUP BY steps behind them: the rows for one phase, the partials for two).
 * Rounds alternate the plans, so that a busy machine slows all alike; compare within a round.
 *
 *   npm run bench:aggregation-phases -- [--events N] [--nexmark-events N] [--rounds R]
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runJobModule } from '../src/index.js';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '2000000' },
    'nexmark-events': { type: 'string', default: '1000000' },
    rounds: { type: 'string', default: '2' },
    workloads: { type: 'string', default: 'skew,q15,q16' },
  },
});
const job = fileURLToPath(new URL('./jobs/sql-aggregation-job.js', import.meta.url));
const PLANS = ['one-phase', 'two-phase', 'split'] as const;

/** A GROUP BY step behind a keyed exchange: one-phase, global or final (not a `/local` half). */
const AGGREGATE_STEP = /^updating-aggregate-\d+$/;

async function measure(workload: string, events: number, plan: string) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const run = await runJobModule(job, {
    parallelism: 2,
    workers: 2,
    args: [workload, String(events), plan],
    metrics: { instrumentation: true },
  });
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const crossing = run.result.metrics
    .filter(
      (m) =>
        m.name === 'weir_operator_records_in_total' && AGGREGATE_STEP.test(m.labels.operator ?? ''),
    )
    .reduce((n, m) => n + m.value, 0);
  const results = run.result.metric('weir_operator_records_in_total', { operator: 'results' });
  return { seconds, cpuSeconds: (used.user + used.system) / 1e6, crossing, results };
}

const load = (await import('node:os')).loadavg().map((l) => l.toFixed(2));
console.log(`load average at start: ${load.join(' ')}`);
console.log(
  '| workload | round | plan | CPU s | wall s | records crossing exchanges | changes out | CPU / one-phase |',
);
console.log('|---|---|---|---|---|---|---|---|');
for (const workload of values.workloads.split(',')) {
  const events = Number(workload === 'skew' ? values.events : values['nexmark-events']);
  const plans = workload === 'skew' ? PLANS.slice(0, 2) : PLANS;
  for (let round = 1; round <= Number(values.rounds); round++) {
    // Alternate the order between rounds, so no plan always runs first.
    const order = round % 2 === 1 ? plans : [...plans].reverse();
    const measured = new Map<string, Awaited<ReturnType<typeof measure>>>();
    for (const plan of order) measured.set(plan, await measure(workload, events, plan));
    const base = measured.get('one-phase')?.cpuSeconds ?? Number.NaN;
    for (const plan of plans) {
      const m = measured.get(plan);
      if (m === undefined) continue;
      console.log(
        `| ${workload} (${events} events) | ${round} | ${plan} | ${m.cpuSeconds.toFixed(2)} | ${m.seconds.toFixed(2)} | ${m.crossing} | ${m.results} | ${(m.cpuSeconds / base).toFixed(2)} |`,
      );
    }
  }
}
console.log(
  `load average at end: ${(await import('node:os'))
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
