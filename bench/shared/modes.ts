/**
 * The harness the micro-benchmarks share: each variant ("mode") runs in a
 * fresh child process (so JIT state and heap do not leak between variants),
 * reps alternate the modes, and the parent reports medians.
 */
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';

/** What every child measures. */
export interface Measured {
  readonly mode: string;
  readonly events: number;
  readonly seconds: number;
  readonly eventsPerSec: number;
  readonly eventsPerCpuSec: number;
  readonly peakRssMb: number;
}

/** The arguments every micro-benchmark takes. */
export interface BenchArgs {
  readonly events: number;
  readonly keys: number;
  readonly reps: number;
  readonly parallelism: number;
  /** The keyed state backend of the engine's variants (`--state-backend heap|disk`, default heap); window-count uses it. */
  readonly stateBackend: 'heap' | 'disk';
  /** Set in a child process: the mode to run. */
  readonly child: string | undefined;
}

export function benchArgs(defaults: { readonly events: number; readonly keys: number }): BenchArgs {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: String(defaults.events) },
      keys: { type: 'string', default: String(defaults.keys) },
      reps: { type: 'string', default: '3' },
      parallelism: { type: 'string', default: '1' },
      'state-backend': { type: 'string', default: 'heap' },
      child: { type: 'string' },
    },
  });
  const stateBackend = values['state-backend'];
  if (stateBackend !== 'heap' && stateBackend !== 'disk') {
    throw new Error(`--state-backend must be heap or disk, got '${stateBackend}'`);
  }
  return {
    events: Number(values.events),
    keys: Number(values.keys),
    reps: Number(values.reps),
    parallelism: Number(values.parallelism),
    stateBackend,
    child: values.child,
  };
}

/**
 * Runs `work` in this (child) process and prints one JSON line: the
 * wall-clock and CPU rates, peak RSS, and whatever `work` returned.
 */
export async function measureChild<R extends object>(
  mode: string,
  events: number,
  work: () => R | Promise<R>,
): Promise<void> {
  const started = performance.now();
  const cpuStart = process.cpuUsage();
  const result = await work();
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  const measured: Measured = {
    mode,
    events,
    seconds,
    eventsPerSec: events / seconds,
    eventsPerCpuSec: events / ((cpu.user + cpu.system) / 1e6),
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  };
  process.stdout.write(`${JSON.stringify({ ...measured, ...result })}\n`);
}

/**
 * Runs every mode `args.reps` times in child processes of `script`
 * (alternating modes, so drifting machine load hits all alike), printing a
 * line per run; returns all outcomes.
 */
export function runModes<O extends Measured>(
  script: string,
  modes: readonly string[],
  args: BenchArgs,
  describe: (outcome: O) => string = (o) => `${o.peakRssMb.toFixed(0)} MB peak RSS`,
): O[] {
  const runs: O[] = [];
  const width = Math.max(...modes.map((m) => m.length));
  for (let rep = 0; rep < args.reps; rep++) {
    for (const mode of modes) {
      const childArgs = [script, '--child', mode, '--events', String(args.events)];
      childArgs.push('--keys', String(args.keys), '--parallelism', String(args.parallelism));
      childArgs.push('--state-backend', args.stateBackend);
      const text = execFileSync(process.execPath, childArgs, {
        encoding: 'utf8',
        maxBuffer: 1 << 20,
      });
      const o = JSON.parse(text.trim().split('\n').pop()!) as O;
      runs.push(o);
      console.log(
        `${mode.padEnd(width)} rep ${rep + 1}: ${(o.eventsPerSec / 1e6).toFixed(2)} M events/s (${(o.eventsPerCpuSec / 1e6).toFixed(2)} M per CPU-second), ${o.seconds.toFixed(2)} s, ${describe(o)}`,
      );
    }
  }
  return runs;
}

export function median(xs: readonly number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
}
