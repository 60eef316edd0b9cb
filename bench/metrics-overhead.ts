/**
 * What observability costs: the keyed tumbling-window count of
 * bench/window-count.ts with the runtime's instrumentation off, against the
 * same job with instrumentation on and the Prometheus endpoint serving,
 * scraped every second from another process (this one, the parent, as
 * Prometheus would). Each run is its own child process; the variants alternate so drift in the machine's speed
 * hits all alike. A third variant, instrumentation without the endpoint,
 * separates the two costs. Besides wall-clock throughput it reports events
 * per CPU-second of the job's process, which a busy machine disturbs less.
 *
 *   tsc -p tsconfig.bench.json && node dist-bench/bench/metrics-overhead.js \
 *     [--events N] [--keys K] [--reps R] [--parallelism P] [--scrape-ms MS]
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { StreamEnvironment } from '../src/index.js';
import { addClickCountJob, WINDOW_MS } from './shared/clicks.js';

/** off: no instrumentation; instr: instrumentation only; on: instrumentation, endpoint, scraper. */
type Mode = 'off' | 'instr' | 'on';
const MODES: readonly Mode[] = ['off', 'instr', 'on'];

interface Outcome {
  readonly mode: Mode;
  readonly seconds: number;
  readonly eventsPerSec: number;
  /** CPU time (user + system) of the job's process: less sensitive than wall time to other load. */
  readonly cpuSeconds: number;
  readonly eventsPerCpuSec: number;
  readonly results: number;
  readonly scrapes: number;
}

async function child(mode: Mode, events: number, keys: number, parallelism: number) {
  const env = new StreamEnvironment({
    parallelism,
    metrics: mode === 'on' ? { port: 0 } : mode === 'instr' ? {} : { instrumentation: false },
  });
  let results = 0;
  addClickCountJob(env, events, keys, () => {
    results++;
  });
  const client = env.executeAsync('metrics-overhead');
  // Throughput is measured from the first records read to the end: one-time start-up
  // costs (binding the endpoint's socket) are not per-event costs.
  const read = () => client.metrics.total('weir_source_records_total');
  while (read() === 0) await new Promise((r) => setTimeout(r, 0));
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const readBefore = read();
  if (mode === 'on') {
    // The parent process scrapes the endpoint, as Prometheus would.
    process.stderr.write(`metrics-url ${client.monitor.metricsUrl}\n`);
  }
  await client.result;
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const measured = events - readBefore;
  const outcome: Outcome = {
    mode,
    seconds,
    eventsPerSec: measured / seconds,
    cpuSeconds,
    eventsPerCpuSec: measured / cpuSeconds,
    results,
    scrapes: 0,
  };
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
}

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '20000000' },
    keys: { type: 'string', default: '1000' },
    reps: { type: 'string', default: '10' },
    parallelism: { type: 'string', default: '1' },
    'scrape-ms': { type: 'string', default: '1000' },
    child: { type: 'string' },
  },
});
const events = Number(values.events);
const keys = Number(values.keys);
const parallelism = Number(values.parallelism);
const scrapeMs = Number(values['scrape-ms']);

if (MODES.includes(values.child as Mode)) {
  await child(values.child as Mode, events, keys, parallelism);
  process.exit(0);
} else {
  const self = fileURLToPath(import.meta.url);
  /** Runs one child; scrapes its endpoint every `scrapeMs` from this process while it runs. */
  const runChild = (script: string, mode: Mode, args: readonly string[]): Promise<Outcome> =>
    new Promise((resolve, reject) => {
      const proc = spawn(process.execPath, [script, '--child', mode, ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      let scrapes = 0;
      let timer: NodeJS.Timeout | undefined;
      proc.stdout.on('data', (c: Buffer) => {
        stdout += c.toString();
      });
      proc.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
        const url = /metrics-url (\S+)/.exec(stderr)?.[1];
        if (url !== undefined && timer === undefined) {
          timer = setInterval(() => {
            fetch(url)
              .then((r) => r.text())
              .then(
                () => scrapes++,
                () => {},
              );
          }, scrapeMs);
        }
      });
      proc.on('error', reject);
      proc.on('close', (code) => {
        clearInterval(timer);
        if (code !== 0) {
          reject(new Error(`child ${mode} exited with ${code}: ${stderr}`));
          return;
        }
        const o = JSON.parse(stdout.trim().split('\n').pop()!) as Outcome;
        resolve({ ...o, scrapes });
      });
    });
  const runs: Outcome[] = [];
  const reps = Number(values.reps);
  for (let rep = 0; rep < reps; rep++) {
    // Alternate which variant goes first, so neither always runs on a warmer machine.
    const order: Mode[] = rep % 2 === 0 ? [...MODES] : [...MODES].reverse();
    for (const mode of order) {
      const o = await runChild(self, mode, [
        '--events',
        String(events),
        '--keys',
        String(keys),
        '--parallelism',
        String(parallelism),
      ]);
      runs.push(o);
      console.log(
        `${mode.padEnd(5)} rep ${rep + 1}: ${(o.eventsPerSec / 1e6).toFixed(3)} M events/s (${(o.eventsPerCpuSec / 1e6).toFixed(3)} M per CPU-second), ${o.seconds.toFixed(2)} s, ${o.results} results${mode === 'on' ? `, ${o.scrapes} scrapes` : ''}`,
      );
    }
  }
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    const m = Math.floor(s.length / 2);
    return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
  };
  const off = runs.filter((r) => r.mode === 'off');
  const agree = runs.every((r) => r.results === runs[0]!.results);
  const pct = (ratio: number) => `${((1 - ratio) * 100).toFixed(2)}%`;
  const labels: Record<Mode, string> = {
    off: 'instrumentation off',
    instr: 'instrumentation on',
    on: 'instrumentation on, endpoint scraped',
  };
  console.log('');
  console.log(
    `events ${events}, keys ${keys}, tumbling ${WINDOW_MS} ms, parallelism ${parallelism}, scrape every ${scrapeMs} ms, ${off.length} runs each`,
  );
  console.log(
    '| variant | events/s, wall clock (median) | events per CPU-second (median) | overhead, wall (paired median) | overhead, CPU (paired median) |',
  );
  console.log('|---|---|---|---|---|');
  for (const mode of MODES) {
    const these = runs.filter((r) => r.mode === mode);
    // Paired: each repetition's run against the same repetition's "off" run.
    const wall = median(these.map((r, i) => r.eventsPerSec / off[i]!.eventsPerSec));
    const cpu = median(these.map((r, i) => r.eventsPerCpuSec / off[i]!.eventsPerCpuSec));
    console.log(
      `| ${labels[mode]} | ${(median(these.map((r) => r.eventsPerSec)) / 1e6).toFixed(3)} M | ${(median(these.map((r) => r.eventsPerCpuSec)) / 1e6).toFixed(3)} M | ${mode === 'off' ? '–' : pct(wall)} | ${mode === 'off' ? '–' : pct(cpu)} |`,
    );
  }
  console.log(`results identical: ${agree}`);
  if (!agree) process.exitCode = 1;
}
