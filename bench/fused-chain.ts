/**
 * Fused stateless runs against one batch loop per operator: a chain of
 * `--steps` stateless operators (map, filter, flatMap, in turn) over generated
 * numbers into a discarding sink, with the environment's `fusion` on and off.
 * Each run is its own child process; the two variants alternate, so drift in
 * the machine's speed hits both alike. Reports CPU seconds of the child (less
 * disturbed than wall time on a busy machine), median of `--reps`.
 *
 *   tsc -p tsconfig.bench.json && node dist-bench/bench/fused-chain.js \
 *     [--events N] [--steps S] [--reps R]
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  type Collector,
  type DataStream,
  DiscardingSink,
  StreamEnvironment,
} from '../src/index.js';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '5000000' },
    steps: { type: 'string', default: '6' },
    reps: { type: 'string', default: '3' },
    child: { type: 'string' },
  },
});
const events = Number(values.events);
const steps = Number(values.steps);

interface Row {
  readonly id: number;
  readonly value: number;
}

function twice(row: Row, out: Collector<Row>): void {
  out.collect(row);
  if ((row.id & 7) === 0) out.collect({ id: row.id, value: -row.value });
}

/** Step `i`: a map, a filter (keeps 15 of 16) or a flatMap (one output, two for every 8th id). */
function addStep(stream: DataStream<Row>, i: number): DataStream<Row> {
  switch (i % 3) {
    case 0:
      return stream.map((r) => ({ id: r.id, value: r.value + i }));
    case 1:
      return stream.filter((r) => (r.id & 15) !== i % 16);
    default:
      return stream.flatMap(twice);
  }
}

async function child(fusion: boolean): Promise<void> {
  const env = new StreamEnvironment({ fusion });
  let stream: DataStream<Row> = env.fromGenerator({
    count: events,
    generate: (id) => ({ id, value: id * 3 }),
  });
  for (let i = 0; i < steps; i++) stream = addStep(stream, i);
  stream.sinkTo(new DiscardingSink<Row>());
  const cpu = process.cpuUsage();
  await env.execute('fused chain');
  const used = process.cpuUsage(cpu);
  process.stdout.write(`${(used.user + used.system) / 1e6}\n`);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

if (values.child !== undefined) {
  await child(values.child === 'fused');
} else {
  const self = fileURLToPath(import.meta.url);
  const cpu: Record<'fused' | 'unfused', number[]> = { fused: [], unfused: [] };
  const load = loadavg()[0]!;
  for (let r = 0; r < Number(values.reps); r++) {
    for (const mode of ['fused', 'unfused'] as const) {
      const args = [self, '--child', mode, '--events', String(events), '--steps', String(steps)];
      cpu[mode].push(Number(execFileSync(process.execPath, args, { encoding: 'utf8' }).trim()));
    }
  }
  const f = median(cpu.fused);
  const u = median(cpu.unfused);
  console.log(`${events} events, ${steps} stateless steps, load average ${load.toFixed(1)}`);
  console.log('| variant | CPU s (median) | events/CPU-s | all runs |');
  console.log('|---|---|---|---|');
  for (const [name, s, all] of [
    ['fused', f, cpu.fused],
    ['one loop per operator', u, cpu.unfused],
  ] as const) {
    const runs = all.map((x) => x.toFixed(2)).join(', ');
    console.log(`| ${name} | ${s.toFixed(2)} | ${(events / s / 1e6).toFixed(2)} M | ${runs} |`);
  }
  console.log(`fused / unfused CPU: ${(f / u).toFixed(2)}`);
}
