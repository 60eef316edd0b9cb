/**
 * What a checkpoint of the CEP operator costs: the fraud pattern (bench/cep.ts)
 * runs over generated events in an operator harness (heap state, one subtask,
 * watermarks 1 s behind), then snapshots are taken mid-stream. Prints the CPU
 * time of each snapshot (including the harness's copy of the result), its
 * size as JSON, the keys holding state, and whether a restore from it finds
 * the same matches as the run that went on.
 *
 *   node dist-bench/bench/cep-snapshot.js [events] [keys]
 */
import { CepOperator } from '../src/runtime/operators/cep/cep-operator.js';
import { KeyedOneInputHarness, type OperatorSnapshot } from '../src/testing/index.js';
import { DeterministicRandom } from '../src/util/random.js';
import { type Event, makeEvent, patterns } from './shared/cep-events.js';

const events = Number(process.argv[2] ?? 1_000_000);
const keys = Number(process.argv[3] ?? 100_000);

function harness(restoreFrom?: OperatorSnapshot) {
  const op = new CepOperator<Event, number>({
    pattern: patterns.fraud.toSpec(),
    timeDomain: 'event-time',
    fn: { processMatch: (_m, _ctx, out) => out.collect(1) },
  });
  return new KeyedOneInputHarness<number, Event, number>(op, (e) => e.user, {
    operatorId: 'cep',
    ...(restoreFrom === undefined ? {} : { restoreFrom: [restoreFrom] }),
  });
}

function cpuMs(f: () => void): number {
  const t = process.cpuUsage();
  f();
  const d = process.cpuUsage(t);
  return (d.user + d.system) / 1000;
}

const random = new DeterministicRandom();
const input = Array.from({ length: events }, (_, i) => makeEvent(i, random.reseed(11, i), keys));
const feed = (h: KeyedOneInputHarness<number, Event, number>, from: number, to: number) => {
  for (let i = from; i < to; i++) {
    const e = input[i]!;
    h.processElement(e, e.time);
    if (i % 1000 === 999) h.processWatermark(i - 1000);
  }
};

const h = harness();
const cuts = [0.5, 0.75].map((f) => Math.floor(f * events));
let at = 0;
let restored: { snapshot: OperatorSnapshot; at: number; matches: number } | undefined;
for (const cut of cuts) {
  feed(h, at, cut);
  at = cut;
  let snapshot: OperatorSnapshot = {};
  const ms = cpuMs(() => {
    snapshot = h.snapshot();
  });
  const bytes = JSON.stringify(snapshot).length;
  console.log(
    `snapshot at ${cut}: ${ms.toFixed(0)} ms CPU, ${(bytes / 1e6).toFixed(1)} MB as JSON, ${h.metric('weir_state_entries')} keys with state`,
  );
  restored ??= { snapshot, at: cut, matches: h.outputValues().length };
}
feed(h, at, events);
h.processWatermark(Number.POSITIVE_INFINITY);
// Restored from the first snapshot, the run must find the matches the run that went on found after it.
const r = harness(restored!.snapshot);
feed(r, restored!.at, events);
r.processWatermark(Number.POSITIVE_INFINITY);
const after = h.outputValues().length - restored!.matches;
const again = r.outputValues().length;
console.log(`matches after the first snapshot: ${after} in the run, ${again} restored from it`);
if (again !== after) process.exitCode = 1;
