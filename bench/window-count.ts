/**
 * Keyed tumbling-window count over generated events: Weir against a
 * hand-fused loop that computes the same result with no engine at all (the
 * ceiling for any JavaScript engine that hands records to user functions as
 * objects). Each variant runs in its own child process, so peak RSS is its own.
 *
 *   npm run bench -- [--events N] [--keys K] [--reps R] [--parallelism P] [--state-backend heap|disk]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StreamEnvironment } from '../src/index.js';
import { DeterministicRandom as Rng } from '../src/util/random.js';
import { addClickCountJob, makeClick, OUT_OF_ORDERNESS_MS, WINDOW_MS } from './shared/clicks.js';
import { benchArgs, type Measured, measureChild, median, runModes } from './shared/modes.js';

interface Outcome extends Measured {
  readonly results: number;
  readonly checksum: number;
}

function fused(events: number, keys: number): Pick<Outcome, 'results' | 'checksum'> {
  // window start -> user -> count; fires when maxTime - bound - 1 >= end - 1.
  const windows = new Map<number, Map<number, number>>();
  const random = new Rng();
  let maxTime = Number.NEGATIVE_INFINITY;
  let results = 0;
  let checksum = 0;
  const fire = (watermark: number) => {
    for (const [start, counts] of windows) {
      if (start + WINDOW_MS - 1 > watermark) continue;
      for (const [user, n] of counts) {
        results++;
        checksum = (checksum + n * (user + 1) + start) % 1_000_000_007;
      }
      windows.delete(start);
    }
  };
  for (let i = 0; i < events; i++) {
    const c = makeClick(i, random.reseed(7, i), keys);
    const start = c.time - (((c.time % WINDOW_MS) + WINDOW_MS) % WINDOW_MS);
    let counts = windows.get(start);
    if (counts === undefined) {
      counts = new Map();
      windows.set(start, counts);
    }
    counts.set(c.user, (counts.get(c.user) ?? 0) + 1);
    if (c.time > maxTime) maxTime = c.time;
    // Same watermark cadence as the engine: after every 1024 records.
    if ((i & 1023) === 1023) fire(maxTime - OUT_OF_ORDERNESS_MS - 1);
  }
  fire(Number.POSITIVE_INFINITY);
  return { results, checksum };
}

async function engine(events: number, keys: number, parallelism: number, checkpointDir?: string) {
  const env = new StreamEnvironment({
    parallelism,
    stateBackend: { kind: args.stateBackend },
    ...(checkpointDir === undefined
      ? {}
      : { checkpointing: { directory: checkpointDir, intervalMs: 1000 } }),
  });
  let results = 0;
  let checksum = 0;
  addClickCountJob(env, events, keys, (r) => {
    results++;
    checksum = (checksum + r.value * (r.key + 1) + r.window.start) % 1_000_000_007;
  });
  await env.execute('window-count');
  return { results, checksum };
}

async function work(mode: string, events: number, keys: number, parallelism: number) {
  if (mode === 'fused') return fused(events, keys);
  if (mode === 'weir') return engine(events, keys, parallelism);
  const checkpointDir = await mkdtemp(join(tmpdir(), 'weir-bench-chk-'));
  try {
    return await engine(events, keys, parallelism, checkpointDir);
  } finally {
    await rm(checkpointDir, { recursive: true, force: true });
  }
}

const args = benchArgs({ events: 10_000_000, keys: 1000 });

if (args.child !== undefined) {
  const mode = args.child;
  await measureChild(mode, args.events, () => work(mode, args.events, args.keys, args.parallelism));
} else {
  const runs = runModes<Outcome>(
    fileURLToPath(import.meta.url),
    ['fused', 'weir', 'weir+checkpoints'],
    args,
    (o) => `peak RSS ${o.peakRssMb.toFixed(0)} MB, ${o.results} results`,
  );
  const by = (m: string) => runs.filter((r) => r.mode === m);
  const f = by('fused');
  const w = by('weir');
  const c = by('weir+checkpoints');
  const agree = [...w, ...c].every(
    (r) => r.checksum === f[0]!.checksum && r.results === f[0]!.results,
  );
  const fRate = median(f.map((r) => r.eventsPerSec));
  const wRate = median(w.map((r) => r.eventsPerSec));
  const cRate = median(c.map((r) => r.eventsPerSec));
  const fCpu = median(f.map((r) => r.eventsPerCpuSec));
  const wCpu = median(w.map((r) => r.eventsPerCpuSec));
  const cCpu = median(c.map((r) => r.eventsPerCpuSec));
  console.log('');
  console.log(
    `events ${args.events}, keys ${args.keys}, tumbling ${WINDOW_MS} ms, parallelism ${args.parallelism}, ${args.stateBackend} state backend`,
  );
  console.log(
    `| variant | events/s (median of ${f.length}) | events per CPU-second | peak RSS MB |`,
  );
  console.log('|---|---|---|---|');
  const row = (name: string, rate: number, cpuRate: number, rs: Outcome[]) =>
    console.log(
      `| ${name} | ${(rate / 1e6).toFixed(2)} M | ${(cpuRate / 1e6).toFixed(2)} M | ${median(rs.map((r) => r.peakRssMb)).toFixed(0)} |`,
    );
  row('hand-fused loop', fRate, fCpu, f);
  row('Weir', wRate, wCpu, w);
  row('Weir, checkpoint every 1 s', cRate, cCpu, c);
  console.log(
    `Weir / fused: ${((wRate / fRate) * 100).toFixed(1)}% (wall), ${((wCpu / fCpu) * 100).toFixed(1)}% (CPU)   results identical: ${agree}`,
  );
  console.log(
    `checkpointing every 1 s costs ${((1 - cRate / wRate) * 100).toFixed(1)}% (wall), ${((1 - cCpu / wCpu) * 100).toFixed(1)}% (CPU) of throughput`,
  );
  if (!agree) process.exitCode = 1;
}
