/**
 * Changelog operators over generated events: a regular inner join with a
 * state TTL of two streams (and without a TTL, to show what the TTL costs),
 * and an updating aggregation (retract output), next to a keyed rolling
 * reduce as the plain keyed baseline. Each variant
 * runs in its own child process; events/s counts input records.
 *
 *   npm run bench:changelog -- [--events N] [--keys K] [--reps R] [--parallelism P]
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  type Change,
  type RetractableAggregateFunction,
  type Sink,
  StreamEnvironment,
} from '../src/index.js';

interface Event {
  readonly key: number;
  readonly value: number;
}

interface Outcome {
  mode: string;
  events: number;
  seconds: number;
  eventsPerSec: number;
  eventsPerCpuSec: number;
  outputs: number;
}

const MODES = [
  'keyed reduce',
  'updating aggregate',
  'regular join (TTL)',
  'regular join (no TTL)',
] as const;

/** Counts what reaches it, changes included. */
function counter(into: { n: number }): Sink<unknown> {
  return {
    name: 'count',
    accepts: 'retract',
    createWriter: () => ({
      write: (batch) => {
        into.n += batch.values.length;
      },
      close() {},
    }),
  };
}

const sum: RetractableAggregateFunction<Event, number, number> = {
  createAccumulator: () => 0,
  add: (e, acc) => acc + e.value,
  retract: (e, acc) => acc - e.value,
  getResult: (acc) => acc,
};

async function run(mode: string, events: number, keys: number, parallelism: number) {
  const env = new StreamEnvironment({ parallelism });
  const generate = (salt: number) => (i: number) => ({
    key: (i * 7919 + salt) % keys,
    value: i % 100,
  });
  const out = { n: 0 };
  if (mode === 'keyed reduce') {
    env
      .fromGenerator({ count: events, generate: generate(0) })
      .keyBy((e) => e.key)
      .reduce((a, b) => ({ key: a.key, value: a.value + b.value }))
      .sinkTo(counter(out) as Sink<Event>);
  } else if (mode === 'updating aggregate') {
    env
      .fromGenerator({ count: events, generate: generate(0) })
      .keyBy((e) => e.key)
      .updatingAggregate(sum)
      .sinkTo(counter(out) as Sink<Change<{ key: number; value: number }>>);
  } else {
    // Half the events on each side; every key ends with events / keys rows per side.
    const side = (salt: number) =>
      env.fromGenerator({ count: events / 2, generate: generate(salt) }).toChangelog();
    side(0)
      .regularJoin(side(1), {
        leftKey: (e) => e.key,
        rightKey: (e) => e.key,
        ...(mode === 'regular join (TTL)' ? { ttl: 60_000 } : { unboundedState: true }),
      })
      .sinkTo(counter(out) as Sink<Change<readonly [Event, Event]>>);
  }
  await env.execute(mode);
  return out.n;
}

async function child(mode: string, events: number, keys: number, parallelism: number) {
  const started = performance.now();
  const cpuStart = process.cpuUsage();
  const outputs = await run(mode, events, keys, parallelism);
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  const outcome: Outcome = {
    mode,
    events,
    seconds,
    eventsPerSec: events / seconds,
    eventsPerCpuSec: events / ((cpu.user + cpu.system) / 1e6),
    outputs,
  };
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
}

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '2000000' },
    keys: { type: 'string', default: '100000' },
    reps: { type: 'string', default: '3' },
    parallelism: { type: 'string', default: '1' },
    child: { type: 'string' },
  },
});
const events = Number(values.events);
const keys = Number(values.keys);
const parallelism = Number(values.parallelism);

if (values.child !== undefined) {
  await child(values.child, events, keys, parallelism);
} else {
  const self = fileURLToPath(import.meta.url);
  const runs: Outcome[] = [];
  for (let rep = 0; rep < Number(values.reps); rep++) {
    for (const mode of MODES) {
      const args = [self, '--child', mode, '--events', String(events), '--keys', String(keys)];
      args.push('--parallelism', String(parallelism));
      const text = execFileSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 20 });
      const o = JSON.parse(text.trim().split('\n').pop()!) as Outcome;
      runs.push(o);
      console.log(
        `${mode.padEnd(20)} rep ${rep + 1}: ${(o.eventsPerSec / 1e6).toFixed(2)} M events/s, ${o.seconds.toFixed(2)} s, ${o.outputs} outputs`,
      );
    }
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const base = median(runs.filter((r) => r.mode === MODES[0]).map((r) => r.eventsPerSec));
  console.log('');
  console.log(`events ${events}, keys ${keys}, parallelism ${parallelism}`);
  console.log(
    '| operator | events/s (median) | events per CPU-second | outputs | vs keyed reduce |',
  );
  console.log('|---|---|---|---|---|');
  for (const mode of MODES) {
    const rs = runs.filter((r) => r.mode === mode);
    const rate = median(rs.map((r) => r.eventsPerSec));
    const cpu = median(rs.map((r) => r.eventsPerCpuSec));
    console.log(
      `| ${mode} | ${(rate / 1e6).toFixed(2)} M | ${(cpu / 1e6).toFixed(2)} M | ${rs[0]!.outputs} | ${((rate / base) * 100).toFixed(0)}% |`,
    );
  }
}
