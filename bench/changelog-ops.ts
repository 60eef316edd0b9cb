/**
 * Changelog operators over generated events: a regular inner join with a
 * state TTL of two streams (and without a TTL, to show what the TTL costs),
 * and an updating aggregation (retract output; also with mini-batch, on the
 * heap or, with `--state-backend disk`, on the disk state backend), next to a
 * keyed rolling reduce as the plain keyed baseline. Each variant
 * runs in its own child process; events/s counts input records.
 *
 *   npm run bench:changelog -- [--events N] [--keys K] [--reps R] [--parallelism P]
 *     [--state-backend heap|disk]
 */
import { fileURLToPath } from 'node:url';
import {
  type Change,
  type RetractableAggregateFunction,
  type Sink,
  StreamEnvironment,
} from '../src/index.js';
import { benchArgs, type Measured, measureChild, median, runModes } from './shared/modes.js';

interface Event {
  readonly key: number;
  readonly value: number;
}

interface Outcome extends Measured {
  readonly outputs: number;
}

const MODES = [
  'keyed reduce',
  'updating aggregate',
  'updating aggregate (mini-batch)',
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

/** Flink's `table.exec.mini-batch.*` as the Nexmark SQL runs set them. */
const MINI_BATCH = { size: 50_000, allowLatencyMs: 2_000 };

async function run(
  mode: string,
  events: number,
  keys: number,
  parallelism: number,
  stateBackend: 'heap' | 'disk',
) {
  const env = new StreamEnvironment({ parallelism, stateBackend: { kind: stateBackend } });
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
  } else if (mode.startsWith('updating aggregate')) {
    env
      .fromGenerator({ count: events, generate: generate(0) })
      .keyBy((e) => e.key)
      .updatingAggregate(sum, mode.includes('mini-batch') ? { miniBatch: MINI_BATCH } : {})
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

const args = benchArgs({ events: 2_000_000, keys: 100_000 });

if (args.child !== undefined) {
  const mode = args.child;
  await measureChild(mode, args.events, async () => ({
    outputs: await run(mode, args.events, args.keys, args.parallelism, args.stateBackend),
  }));
} else {
  const runs = runModes<Outcome>(
    fileURLToPath(import.meta.url),
    MODES,
    args,
    (o) => `${o.outputs} outputs`,
  );
  const base = median(runs.filter((r) => r.mode === MODES[0]).map((r) => r.eventsPerSec));
  console.log('');
  console.log(
    `events ${args.events}, keys ${args.keys}, parallelism ${args.parallelism}, ${args.stateBackend} state`,
  );
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
