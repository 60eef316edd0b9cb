/**
 * Complex event processing over generated logins: three patterns, each in
 * its own child process (so peak RSS is its own), on event time with keyed
 * state on the heap.
 *
 * - fraud: three failures in a row, then a success from another country
 *   than the first failure's, within ten minutes;
 * - strict3: `a next b next c` within one minute;
 * - loop-until: `a followedBy b+ until c followedBy d` within ten minutes.
 *
 * The same patterns then run on Flink CEP over the same events (bench/peers/flink,
 * weir.cep.CepBench: a port of this generator), one JVM per run, unless WEIR_SKIP_FLINK=1;
 * both engines must find the same number of matches.
 *
 *   npm run bench:cep -- [--events N] [--keys K] [--reps R]
 */
import { fileURLToPath } from 'node:url';
import {
  CEP,
  DiscardingSink,
  type LastStage,
  type Pattern,
  type StageTypes,
  StreamEnvironment,
  WatermarkStrategy,
} from '../src/index.js';
import { runPeerMain } from './peers/flink-cep.js';
import { type Event, makeEvent, patterns } from './shared/cep-events.js';
import { benchArgs, type Measured, measureChild, median, runModes } from './shared/modes.js';

type Mode = keyof typeof patterns;

async function run(mode: Mode | 'pipeline', events: number, keys: number, parallelism: number) {
  const env = new StreamEnvironment({ parallelism });
  let matches = 0;
  let matchedEvents = 0;
  const stream = env
    .fromGenerator({ count: events, seed: 11, generate: (i, r) => makeEvent(i, r, keys) })
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forBoundedOutOfOrderness<Event>(1000).withTimestampAssigner((e) => e.time),
    )
    .keyBy((e) => e.user);
  const count = <S extends StageTypes>(pattern: Pattern<Event, S, LastStage<S>>) =>
    CEP.pattern(stream, pattern)
      .select((m) => {
        matches++;
        for (const list of Object.values(m) as (readonly Event[])[]) matchedEvents += list.length;
        return 0;
      })
      .sinkTo(new DiscardingSink());
  if (mode === 'pipeline') {
    // The same source, watermarks and keyBy without a pattern: the floor under every pattern.
    stream.process({ processElement: () => {} }).sinkTo(new DiscardingSink());
  } else if (mode === 'fraud') count(patterns.fraud);
  else if (mode === 'strict3') count(patterns.strict3);
  else count(patterns['loop-until']);
  await env.execute(`cep-${mode}`);
  return { matches, matchedEvents };
}

interface Outcome extends Measured {
  readonly matches: number;
  readonly matchedEvents: number;
}

const args = benchArgs({ events: 10_000_000, keys: 100_000 });
const MODES = Object.keys(patterns) as Mode[];
/** Weir only: the same job without a pattern, the floor under every pattern's cost. */
const FLOOR = 'pipeline';

if (args.child !== undefined) {
  const mode = args.child as Mode | 'pipeline';
  await measureChild(mode, args.events, () => run(mode, args.events, args.keys, args.parallelism));
} else {
  const runs = runModes<Outcome>(
    fileURLToPath(import.meta.url),
    [FLOOR, ...MODES],
    args,
    (o) => `peak RSS ${o.peakRssMb.toFixed(0)} MB, ${o.matches} matches`,
  );
  const flink = process.env.WEIR_SKIP_FLINK === '1' ? [] : await runFlink(MODES, args);
  console.log('');
  console.log(
    `events ${args.events}, keys ${args.keys}, parallelism ${args.parallelism}, heap state`,
  );
  console.log(
    `| pattern | engine | events/s (median of ${args.reps}) | events per CPU-second | peak RSS MB | matches |`,
  );
  console.log('|---|---|---|---|---|---|');
  const floor = runs.filter((r) => r.mode === FLOOR);
  console.log(
    `| none (source, watermarks, keyBy) | Weir | ${(median(floor.map((r) => r.eventsPerSec)) / 1e6).toFixed(3)} M | ${(median(floor.map((r) => r.eventsPerCpuSec)) / 1e6).toFixed(3)} M | ${median(floor.map((r) => r.peakRssMb)).toFixed(0)} | - |`,
  );
  for (const mode of MODES) {
    const rs = runs.filter((r) => r.mode === mode);
    const fs = flink.filter((r) => r.mode === mode);
    for (const [engine, outcomes] of [
      ['Weir', rs],
      ['Flink CEP', fs],
    ] as const) {
      if (outcomes.length === 0) continue;
      // Every run of either engine must find the matches of Weir's first run.
      const same = outcomes.every((r) => r.matches === rs[0]!.matches);
      console.log(
        `| ${mode} | ${engine} | ${(median(outcomes.map((r) => r.eventsPerSec)) / 1e6).toFixed(3)} M | ${(median(outcomes.map((r) => r.eventsPerCpuSec)) / 1e6).toFixed(3)} M | ${median(outcomes.map((r) => r.peakRssMb)).toFixed(0)} | ${outcomes[0]!.matches}${same ? '' : ' (differs!)'} |`,
      );
      if (!same) process.exitCode = 1;
    }
  }
}

/** Runs every pattern `args.reps` times on Flink CEP, each run in its own JVM. */
async function runFlink(modes: readonly Mode[], a: typeof args): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (let rep = 0; rep < a.reps; rep++) {
    for (const mode of modes) {
      const stdout = await runPeerMain(
        'weir.cep.CepBench',
        [mode, String(a.events), String(a.keys)],
        { timeoutMs: 60 * 60_000, jvmOptions: ['-Xmx2g'] },
      );
      const o = JSON.parse(stdout.trim().split('\n').pop()!) as Outcome;
      outcomes.push(o);
      console.log(
        `flink ${mode} rep ${rep + 1}: ${(o.eventsPerSec / 1e6).toFixed(3)} M events/s (${(o.eventsPerCpuSec / 1e6).toFixed(3)} M per CPU-second), ${o.seconds.toFixed(2)} s, peak RSS ${o.peakRssMb.toFixed(0)} MB, ${o.matches} matches`,
      );
    }
  }
  return outcomes;
}
