/**
 * Streaming windows against a batch oracle. Random keyed events are delivered
 * out of order, then:
 *
 * 1. shuffled only within the out-of-orderness bound, so no record is late:
 *    the streamed tumbling, sliding and session results (count + sum) equal a
 *    plain batch computation of the same windows, at parallelism 1, 2 and 4;
 * 2. shuffled beyond the bound, with allowed lateness: the last update per
 *    (key, window) equals the batch computation over the records each window
 *    accepted, and the late counter and side output hold exactly the dropped ones.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  OutputTag,
  StreamEnvironment,
  Triggers,
  type WindowAssigner,
  type WindowResult,
  Windows,
} from '../../src/index.js';
import { propertyRuns, testStateBackend } from '../helpers/state-backend.js';
import {
  bounded,
  type CountSum,
  collect,
  countSum,
  type Ev,
  fmt,
  LATE_METRIC,
  sorted,
} from '../helpers/timeline.js';

type WindowSpec =
  | { kind: 'tumbling'; size: number; offset: number }
  | { kind: 'sliding'; size: number; slide: number; offset: number }
  | { kind: 'session'; gap: number };

/** slices: default trigger (tumbling/sliding use the slice operator); general: explicit trigger. */
type Path = 'slices' | 'general';

function assignerOf(spec: WindowSpec): WindowAssigner<Ev> {
  switch (spec.kind) {
    case 'tumbling':
      return Windows.tumbling(spec.size, spec.offset);
    case 'sliding':
      return Windows.sliding(spec.size, spec.slide, spec.offset);
    case 'session':
      return Windows.session(spec.gap);
  }
}

function describeSpec(spec: WindowSpec): string {
  switch (spec.kind) {
    case 'tumbling':
      return `tumbling(${spec.size}, ${spec.offset})`;
    case 'sliding':
      return `sliding(${spec.size}, ${spec.slide}, ${spec.offset})`;
    case 'session':
      return `session(${spec.gap})`;
  }
}

/** Start of the period containing t: the largest s <= t with s ≡ offset (mod period). */
function periodStart(t: number, offset: number, period: number): number {
  const r = (((t - offset) % period) + period) % period;
  return t - r;
}

/** The [start, end) windows of a fixed-size assigner that contain t. */
function windowsOf(spec: WindowSpec, t: number): [number, number][] {
  if (spec.kind === 'session') throw new Error('sessions are not assigned per record');
  const slide = spec.kind === 'sliding' ? spec.slide : spec.size;
  const out: [number, number][] = [];
  for (let s = periodStart(t, spec.offset, slide); s > t - spec.size; s -= slide) {
    out.push([s, s + spec.size]);
  }
  return out;
}

function line(k: string, start: number, end: number, acc: CountSum, timing = 'on-time'): string {
  return `${k} [${start},${end}) ${acc.count}/${acc.sum} ${timing}`;
}

function add(
  map: Map<string, CountSum & { k: string; start: number; end: number }>,
  k: string,
  start: number,
  end: number,
  v: number,
): void {
  const id = `${k}|${start}|${end}`;
  const cur = map.get(id) ?? { k, start, end, count: 0, sum: 0 };
  map.set(id, { ...cur, count: cur.count + 1, sum: cur.sum + v });
}

/** The batch result: every window of every key, computed from all records at once. */
function batchOracle(events: readonly Ev[], spec: WindowSpec): string[] {
  const acc = new Map<string, CountSum & { k: string; start: number; end: number }>();
  if (spec.kind === 'session') {
    const byKey = new Map<string, Ev[]>();
    for (const e of events) byKey.set(e.k, [...(byKey.get(e.k) ?? []), e]);
    for (const [k, es] of byKey) {
      es.sort((a, b) => a.t - b.t);
      let start = Number.NaN;
      let end = Number.NaN;
      let members: Ev[] = [];
      const flush = () => {
        for (const e of members) add(acc, k, start, end, e.v);
      };
      for (const e of es) {
        // Sessions [t, t + gap) merge when they touch (inclusive, as in Flink).
        if (members.length > 0 && e.t <= end) {
          end = Math.max(end, e.t + spec.gap);
          members.push(e);
        } else {
          if (members.length > 0) flush();
          start = e.t;
          end = e.t + spec.gap;
          members = [e];
        }
      }
      if (members.length > 0) flush();
    }
  } else {
    for (const e of events) for (const [s, end] of windowsOf(spec, e.t)) add(acc, e.k, s, end, e.v);
  }
  return sorted([...acc.values()].map((w) => line(w.k, w.start, w.end, w)));
}

interface StreamRun {
  readonly results: WindowResult<string, CountSum>[];
  readonly late: Ev[];
  readonly lateCount: number;
}

async function stream(
  arrival: readonly Ev[],
  spec: WindowSpec,
  opts: { bound: number; lateness: number; parallelism: number; batchSize: number; path: Path },
): Promise<StreamRun> {
  const env = new StreamEnvironment({
    parallelism: opts.parallelism,
    batchSize: opts.batchSize,
    ...testStateBackend(),
  });
  const lateTag = new OutputTag<Ev>('late');
  let windowed = env
    .fromArray(arrival)
    .assignTimestampsAndWatermarks(bounded(opts.bound))
    .keyBy((e) => e.k)
    .window(assignerOf(spec))
    .allowedLateness(opts.lateness)
    .sideOutputLateData(lateTag);
  if (opts.path === 'general') windowed = windowed.trigger(Triggers.eventTime());
  const results = windowed.aggregate(countSum);
  const main = collect(results);
  const side = collect(results.getSideOutput(lateTag));
  const result = await env.execute();
  return { results: main.values, late: side.values, lateCount: result.metric(LATE_METRIC) };
}

const KEYS = ['a', 'b', 'c', 'd', 'e'];

const specArb: fc.Arbitrary<WindowSpec> = fc.oneof(
  fc
    .record({ size: fc.constantFrom(1, 7, 10, 50), offset: fc.integer({ min: -6, max: 6 }) })
    .map(({ size, offset }) => ({ kind: 'tumbling' as const, size, offset: offset % size })),
  fc
    .constantFrom<[number, number]>([10, 5], [10, 1], [10, 3], [30, 10], [6, 4], [7, 7], [20, 6])
    .chain(([size, slide]) =>
      fc.integer({ min: -(slide - 1), max: slide - 1 }).map((offset) => ({
        kind: 'sliding' as const,
        size,
        slide,
        offset,
      })),
    ),
  fc.constantFrom(1, 3, 10, 25).map((gap) => ({ kind: 'session' as const, gap })),
);

/** Events with a delivery delay each; delivered in order of t + delay (stable). */
const eventsArb = (maxDelay: fc.Arbitrary<number>) =>
  fc.array(
    fc.record({
      k: fc.constantFrom(...KEYS),
      t: fc.integer({ min: -150, max: 400 }),
      v: fc.integer({ min: -5, max: 20 }),
      delay: maxDelay,
    }),
    { maxLength: 60 },
  );

function deliver(events: readonly { k: string; t: number; v: number; delay: number }[]): Ev[] {
  return events
    .map((e, i) => ({ e, i, at: e.t + e.delay }))
    .sort((x, y) => x.at - y.at || x.i - y.i)
    .map(({ e }) => ({ k: e.k, t: e.t, v: e.v }));
}

describe('streaming windows equal the batch oracle', () => {
  it('in-order-enough input (shuffled within the bound): tumbling, sliding, session at parallelism 1, 2, 4', async () => {
    await fc.assert(
      fc.asyncProperty(
        // Delays within the bound: no record can be behind the watermark.
        fc
          .constantFrom(0, 3, 20)
          .chain((bound) =>
            fc.tuple(fc.constant(bound), eventsArb(fc.integer({ min: 0, max: bound }))),
          ),
        specArb,
        fc.constantFrom<Path>('slices', 'general'),
        fc.constantFrom(1, 4, 16),
        async ([bound, raw], spec, path, batchSize) => {
          const arrival = deliver(raw);
          const expected = batchOracle(arrival, spec);
          const outputs: string[][] = [];
          for (const parallelism of [1, 2, 4]) {
            const r = await stream(arrival, spec, {
              bound,
              lateness: 0,
              parallelism,
              batchSize,
              path,
            });
            expect(r.lateCount, `${describeSpec(spec)} late`).toBe(0);
            outputs.push(sorted(r.results.map(fmt)));
          }
          expect(outputs[0], `${describeSpec(spec)} ${path} p=1`).toEqual(expected);
          expect(outputs[1], 'p=2').toEqual(outputs[0]);
          expect(outputs[2], 'p=4').toEqual(outputs[0]);
        },
      ),
      { numRuns: propertyRuns(250) },
    );
  }, 30_000);

  it('late input with allowed lateness: last update per window = oracle of accepted records; dropped ones counted', async () => {
    const fixedSpecArb = specArb.filter((s) => s.kind !== 'session');
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(0, 5),
        fc.constantFrom(0, 4, 15),
        // Delays up to 60: many records arrive behind the watermark.
        eventsArb(fc.integer({ min: 0, max: 60 })),
        fixedSpecArb,
        fc.constantFrom<Path>('slices', 'general'),
        fc.constantFrom(1, 3),
        async (bound, lateness, raw, spec, path, batchSize) => {
          const arrival = deliver(raw);

          // Oracle: replay the watermark, batch by batch, and decide per (record, window).
          const accepted = new Map<string, CountSum & { k: string; start: number; end: number }>();
          const dropped: Ev[] = [];
          let watermark = Number.NEGATIVE_INFINITY;
          let maxTs = Number.NEGATIVE_INFINITY;
          for (let i = 0; i < arrival.length; i += batchSize) {
            const batch = arrival.slice(i, i + batchSize);
            for (const e of batch) {
              let any = false;
              for (const [s, end] of windowsOf(spec, e.t)) {
                if (end - 1 + lateness <= watermark) continue;
                any = true;
                add(accepted, e.k, s, end, e.v);
              }
              if (!any) dropped.push(e);
            }
            for (const e of batch) maxTs = Math.max(maxTs, e.t);
            watermark = Math.max(watermark, maxTs - bound - 1);
          }
          const expected = sorted([...accepted.values()].map((w) => line(w.k, w.start, w.end, w)));

          const outputs: string[][] = [];
          for (const parallelism of [1, 2, 4]) {
            const r = await stream(arrival, spec, {
              bound,
              lateness,
              parallelism,
              batchSize,
              path,
            });
            outputs.push(sorted(r.results.map(fmt)));
            // Updates: per (key, window), the first emission is not an update, later ones are late updates.
            const last = new Map<string, WindowResult<string, CountSum>>();
            for (const w of r.results) {
              const id = `${w.key}|${w.window.start}|${w.window.end}`;
              const prev = last.get(id);
              if (prev === undefined) expect(w.isUpdate).toBe(false);
              else {
                expect(w.isUpdate).toBe(true);
                expect(w.timing).toBe('late');
              }
              last.set(id, w);
            }
            const finals = sorted(
              [...last.values()].map((w) => line(w.key, w.window.start, w.window.end, w.value)),
            );
            expect(finals, `${describeSpec(spec)} ${path} L=${lateness} p=${parallelism}`).toEqual(
              expected,
            );
            expect(r.lateCount).toBe(dropped.length);
            expect(sorted(r.late.map((e) => JSON.stringify(e)))).toEqual(
              sorted(dropped.map((e) => JSON.stringify(e))),
            );
          }
          expect(outputs[1], 'p=2').toEqual(outputs[0]);
          expect(outputs[2], 'p=4').toEqual(outputs[0]);
        },
      ),
      { numRuns: propertyRuns(250) },
    );
  }, 30_000);
});
