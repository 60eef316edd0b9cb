/**
 * Fused stateless runs: chained map, filter and flatMap steps executed as one
 * loop per batch. The oracle is twofold: the same job with `fusion: false`
 * (one batch loop per operator, as before), and a plain array computation of
 * the same steps. Errors must name the failing operator; watermarks must reach
 * the windows after the run; a checkpoint barrier must pass the run so that a
 * stop with savepoint and restore emits every record exactly once.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Collector } from '../../src/core/functions.js';
import type { Output } from '../../src/core/operator.js';
import type { RecordBatch } from '../../src/core/record-batch.js';
import {
  CollectSink,
  type DataStream,
  type ProcessFunction,
  StreamEnvironment,
  WatermarkStrategy,
  WeirError,
  Windows,
} from '../../src/index.js';
import { OPERATOR_METRICS } from '../../src/metrics/index.js';
import { planJob } from '../../src/plan/planner.js';
import { FilterOperator } from '../../src/runtime/operators/basic/filter.js';
import { FusedStatelessRun } from '../../src/runtime/operators/basic/fused-run.js';
import { envImpl } from '../helpers/internals.js';
import { propertyRuns, testStateBackend } from '../helpers/state-backend.js';
import { waitUntil } from '../helpers/timeline.js';

/** A stateless step as data, so a property can draw chains of them. */
type StepSpec =
  | { readonly kind: 'map'; readonly mul: number; readonly add: number }
  | { readonly kind: 'filter'; readonly mod: number; readonly rest: number }
  | { readonly kind: 'flat-map'; readonly copies: number };

const stepSpec: fc.Arbitrary<StepSpec> = fc.oneof(
  fc.record({
    kind: fc.constant('map' as const),
    mul: fc.integer({ min: -3, max: 3 }),
    add: fc.integer({ min: -5, max: 5 }),
  }),
  fc.record({
    kind: fc.constant('filter' as const),
    mod: fc.integer({ min: 2, max: 5 }),
    rest: fc.integer({ min: 0, max: 1 }),
  }),
  fc.record({ kind: fc.constant('flat-map' as const), copies: fc.integer({ min: 0, max: 3 }) }),
);

interface Rec {
  readonly v: number;
  readonly t: number;
}

const mapOf =
  (s: { mul: number; add: number }) =>
  (r: Rec): Rec => ({ v: r.v * s.mul + s.add, t: r.t });
const filterOf =
  (s: { mod: number; rest: number }) =>
  (r: Rec): boolean =>
    Math.abs(r.v) % s.mod === s.rest;
/** `copies` outputs per record, except for records divisible by 4 (none: a flatMap can drop). */
const flatMapOf =
  (s: { copies: number }) =>
  (r: Rec, out: Collector<Rec>): void => {
    if (r.v % 4 === 0) return;
    for (let c = 0; c < s.copies; c++) out.collect({ v: r.v + c, t: r.t });
  };

/** The steps as a plain computation over an array. */
function oracle(input: readonly Rec[], steps: readonly StepSpec[]): Rec[] {
  let rows = [...input];
  for (const s of steps) {
    if (s.kind === 'map') rows = rows.map(mapOf(s));
    else if (s.kind === 'filter') rows = rows.filter(filterOf(s));
    else {
      const f = flatMapOf(s);
      rows = rows.flatMap((r) => {
        const out: Rec[] = [];
        f(r, { collect: (x) => out.push(x) });
        return out;
      });
    }
  }
  return rows;
}

function applySteps(stream: DataStream<Rec>, steps: readonly StepSpec[]): DataStream<Rec> {
  let s = stream;
  steps.forEach((step, i) => {
    if (step.kind === 'map') s = s.map(mapOf(step));
    else if (step.kind === 'filter') s = s.filter(filterOf(step));
    else s = s.flatMap<Rec>(flatMapOf(step));
    s = s.uid(`step-${i}`);
  });
  return s;
}

/** Reads the record's timestamp as the runtime carries it, after the run (not fusible). */
const withTimestamp: ProcessFunction<Rec, string> = {
  processElement(r, ctx, out) {
    out.collect(`${r.v}@${ctx.timestamp}`);
  },
};

const timestamps = () =>
  WatermarkStrategy.forBoundedOutOfOrderness<Rec>(0).withTimestampAssigner((r) => r.t);

function bothSigns(x: number, out: Collector<number>): void {
  out.collect(x);
  out.collect(-x);
}

/** Catches whatever `collect` throws: without fusion, a later step never runs inside it. */
function collectCatching(x: number, out: Collector<number>): void {
  try {
    out.collect(x);
  } catch {
    // Nothing to catch when later steps run after this function returned.
  }
}

async function runSteps(
  input: readonly Rec[],
  steps: readonly StepSpec[],
  options: { fusion: boolean; parallelism: number; batchSize: number },
): Promise<string[]> {
  const env = new StreamEnvironment({ ...options, ...testStateBackend() });
  const stream = env.fromArray(input).assignTimestampsAndWatermarks(timestamps());
  return applySteps(stream, steps).process(withTimestamp).executeAndCollect();
}

describe('fused stateless runs', () => {
  it('the planner fuses chained map/filter/flatMap steps only where nothing else reads between them', () => {
    const env = new StreamEnvironment({ parallelism: 2 });
    const numbers = env.fromArray([1, 2, 3]);
    const a = numbers.map((x) => x + 1).uid('a');
    const b = a.filter((x) => x > 1).uid('b');
    const c = b.flatMap<number>((x, out) => out.collect(x)).uid('c');
    // `b` also feeds `d`: the edge b -> c cannot fuse (d needs b's batch), a -> b can.
    b.map((x) => x * 2)
      .uid('d')
      .sinkTo(new CollectSink());
    c.rebalance()
      .map((x) => x)
      .uid('e')
      .sinkTo(new CollectSink());
    const planned = (fusion: boolean) => {
      const plan = planJob(envImpl(env).graph, {
        parallelism: 2,
        maxParallelism: 128,
        chaining: true,
        fusion,
      });
      const id = (n: number) => plan.nodes[n]!.operatorId;
      return plan.edges.filter((e) => e.fused === true).map((e) => `${id(e.from)}->${id(e.to)}`);
    };
    expect(planned(true)).toEqual(['a->b']);
    expect(planned(false)).toEqual([]);
    const explained = env.explain();
    expect(explained).toMatch(/\] b: filter .* <- \[\d+\] forward chained fused$/m);
    expect(explained).toMatch(/\] c: flat-map .* <- \[\d+\] forward chained$/m);
  });

  it('equals the unfused job and a plain computation, timestamps included (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: -50, max: 50 }), { maxLength: 60 }),
        fc.array(stepSpec, { minLength: 1, maxLength: 5 }),
        fc.constantFrom(1, 2),
        fc.constantFrom(1, 3, 64),
        async (values, steps, parallelism, batchSize) => {
          const input = values.map((v, i) => ({ v, t: 1000 + i * 7 }));
          const fused = await runSteps(input, steps, { fusion: true, parallelism, batchSize });
          const unfused = await runSteps(input, steps, { fusion: false, parallelism, batchSize });
          const expected = oracle(input, steps).map((r) => `${r.v}@${r.t}`);
          // At parallelism 1 the order is the input's; at 2 the two subtasks interleave.
          const norm = (rows: string[]) => (parallelism === 1 ? rows : [...rows].sort());
          expect(norm(fused)).toEqual(norm(expected));
          expect(norm(unfused)).toEqual(norm(expected));
        },
      ),
      { numRuns: propertyRuns(40) },
    );
  });

  it('a run of filters keeps the keys of keyed batches, and never writes into a batch it emitted', () => {
    const emitted: RecordBatch<unknown>[] = [];
    const last: Output<unknown> = {
      emit: (b) => emitted.push(b),
      emitWatermark: () => {},
      emitIdle: () => {},
      emitSide: () => {},
      end: () => {},
    };
    const run = new FusedStatelessRun(new FilterOperator<unknown>(() => true));
    const step = (fn: (v: unknown) => boolean) => ({
      operatorId: 'f',
      step: { kind: 'filter' as const, fn },
      recordsIn: undefined,
      recordsOut: undefined,
    });
    run.connect([step((v) => (v as number) > 1), step((v) => (v as number) < 5)], last);
    run.processBatch({
      values: [1, 2, 3, 6],
      timestamps: [10, 20, 30, 60],
      keys: ['a', 'b', 'c', 'd'],
    });
    run.processBatch({ values: [4, 0], timestamps: [40, 0], keys: undefined });
    expect(emitted).toEqual([
      { values: [2, 3], timestamps: [20, 30], keys: ['b', 'c'] },
      { values: [4], timestamps: [40], keys: undefined },
    ]);
  });

  it('counts records in and out of every fused operator', async () => {
    const env = new StreamEnvironment({ batchSize: 16 });
    env
      .fromArray(Array.from({ length: 100 }, (_, i) => i))
      .map((x) => x * 3)
      .uid('times-three')
      .filter((x) => x % 2 === 0)
      .uid('even')
      .flatMap(bothSigns)
      .uid('both-signs')
      .sinkTo(new CollectSink())
      .uid('out');
    const result = await env.executeAsync('counting').result;
    const m = (name: string, operator: string) => result.metric(name, { operator });
    expect(m(OPERATOR_METRICS.recordsIn, 'times-three')).toBe(100);
    expect(m(OPERATOR_METRICS.recordsOut, 'times-three')).toBe(100);
    expect(m(OPERATOR_METRICS.recordsIn, 'even')).toBe(100);
    expect(m(OPERATOR_METRICS.recordsOut, 'even')).toBe(50);
    expect(m(OPERATOR_METRICS.recordsIn, 'both-signs')).toBe(50);
    expect(m(OPERATOR_METRICS.recordsOut, 'both-signs')).toBe(100);
    expect(m(OPERATOR_METRICS.recordsIn, 'out')).toBe(100);
  });

  it('passes watermarks: event-time windows after a fused run fire as without fusion', async () => {
    const input = Array.from({ length: 500 }, (_, i) => ({ v: i, t: i * 10 }));
    const counts = async (fusion: boolean) => {
      const env = new StreamEnvironment({ batchSize: 7, fusion, ...testStateBackend() });
      return env
        .fromArray(input)
        .assignTimestampsAndWatermarks(timestamps())
        .filter((r) => r.v % 3 !== 0)
        .map((r) => ({ v: r.v % 4, t: r.t }))
        .flatMap<Rec>((r, out) => out.collect(r))
        .keyBy((r) => r.v)
        .window(Windows.tumbling(1000))
        .aggregate({
          createAccumulator: () => 0,
          add: (_r, n) => n + 1,
          getResult: (n) => n,
          merge: (a, b) => a + b,
        })
        .map((w) => `${w.key} ${w.window.start} ${w.value} ${w.timing}`)
        .executeAndCollect();
    };
    const expected = new Map<string, number>();
    for (const r of input) {
      if (r.v % 3 === 0) continue;
      const k = `${r.v % 4} ${Math.floor(r.t / 1000) * 1000}`;
      expected.set(k, (expected.get(k) ?? 0) + 1);
    }
    const oracleRows = [...expected].map(([k, n]) => `${k} ${n} on-time`).sort();
    expect((await counts(true)).sort()).toEqual(oracleRows);
    expect((await counts(false)).sort()).toEqual(oracleRows);
  });

  describe('a failing function is reported with its own operator and record', () => {
    const input = [1, 2, 3, 4, 5];
    const failAt = (n: number) => (x: number) => {
      if (x === n) throw new Error(`no ${n}`);
      return x;
    };
    const run = (fail: 'first' | 'middle' | 'last') =>
      new StreamEnvironment()
        .fromArray(input)
        .map(fail === 'first' ? failAt(2) : (x: number) => x)
        .uid('first-map')
        .filter((x) => (fail === 'middle' ? failAt(3)(x) : x) > 0)
        .uid('middle-filter')
        .flatMap<number>((x, out) => out.collect(fail === 'last' ? failAt(4)(x) : x))
        .uid('last-flat-map')
        .executeAndCollect();

    it.each([
      ['first', 'first-map', 'map function', '2'],
      ['middle', 'middle-filter', 'filter predicate', '3'],
      ['last', 'last-flat-map', 'flatMap function', '4'],
    ] as const)('%s step', async (fail, uid, what, record) => {
      const error = await run(fail).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(WeirError);
      const w = error as WeirError;
      expect(w.code).toBe('USER_FUNCTION_FAILED');
      expect(w.operatorId).toBe(uid);
      expect(w.record).toBe(record);
      expect(w.message).toContain(what);
    });

    it('a flatMap never sees the error of a later step (it cannot swallow or take the blame)', async () => {
      const job = new StreamEnvironment()
        .fromArray(input)
        .flatMap(collectCatching)
        .uid('catching-flat-map')
        .map(failAt(3))
        .uid('failing-map')
        .executeAndCollect();
      const error = (await job.then(
        () => undefined,
        (e: unknown) => e,
      )) as WeirError;
      expect(error).toBeInstanceOf(WeirError);
      expect(error.operatorId).toBe('failing-map');
      expect(error.record).toBe('3');
    });
  });

  describe('checkpoint barriers pass a fused run', () => {
    let dir: string;
    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'weir-fused-'));
    });
    afterEach(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    const N = 3000;
    const line = (i: number) => `${i}:${i * 2 + 1}`;
    const expected = Array.from({ length: N }, (_, i) => line(i))
      .filter((_, i) => i % 5 !== 0)
      .sort();

    function job(parallelism: number, sink: CollectSink<string>): StreamEnvironment {
      const env = new StreamEnvironment({ parallelism, batchSize: 20 });
      env
        .fromGenerator({ count: N, ratePerSecond: 3000, generate: (i) => i })
        .uid('numbers')
        .filter((i) => i % 5 !== 0)
        .uid('drop-fifths')
        .map((i) => ({ i, odd: i * 2 + 1 }))
        .uid('pair')
        .flatMap<string>((p, out) => out.collect(`${p.i}:${p.odd}`))
        .uid('render')
        .sinkTo(sink)
        .uid('out');
      return env;
    }

    it.each([1, 2])(
      'stop with savepoint midway and restore: every record once (parallelism %i)',
      async (parallelism) => {
        const first = new CollectSink<string>();
        const running = job(parallelism, first).executeAsync('first');
        await waitUntil(() => first.values.length >= 300, 20_000, 'records before the stop');
        const savepoint = await running.stopWithSavepoint(join(dir, 'savepoints'));
        expect((await running.result).status).toBe('cancelled');
        const before = [...first.values];
        expect(before.length).toBeLessThan(expected.length);
        const second = new CollectSink<string>();
        const result = await job(parallelism, second).execute('second', {
          restoreFrom: savepoint,
        });
        expect(result.status).toBe('finished');
        expect([...before, ...second.values].sort()).toEqual(expected);
      },
      60_000,
    );
  });
});
