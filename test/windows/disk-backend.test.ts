/**
 * With the disk state backend, window contents live in it: on disk,
 * checkpointed incrementally (a small change gives a small delta), and
 * cleaned up when windows are purged. With the heap backend they stay in the
 * operator's own maps.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Operator } from '../../src/core/operator.js';
import type { Json } from '../../src/core/snapshot.js';
import {
  CollectSink,
  GeneratorSource,
  StreamEnvironment,
  Triggers,
  WatermarkStrategy,
  type WindowResult,
  Windows,
} from '../../src/index.js';
import { RollingReduceOperator } from '../../src/runtime/operators/keyed/rolling-reduce.js';
import { SliceWindowOperator } from '../../src/runtime/windowing/slice-window-operator.js';
import {
  aggregateAggregation,
  resultFiring,
} from '../../src/runtime/windowing/window-aggregation.js';
import { WindowOperator } from '../../src/runtime/windowing/window-operator.js';
import type { StateBackendOptions } from '../../src/state/create-backend.js';
import { KeyedOneInputHarness, type OperatorSnapshot } from '../../src/testing/index.js';
import { type CountSum, countSum, type Ev, ev } from '../helpers/timeline.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function diskOptions(): Promise<StateBackendOptions> {
  const dir = await mkdtemp(join(tmpdir(), 'weir-disk-windows-'));
  dirs.push(dir);
  return { kind: 'disk', workingDirectory: dir };
}

/** An operator set up as a task would, in a harness that keeps what it emits. */
function harness<IN, OUT>(
  operator: Operator<IN, OUT>,
  stateBackend: StateBackendOptions,
  restoreFrom?: OperatorSnapshot,
) {
  const h = new KeyedOneInputHarness(operator, (e: IN) => (e as Ev).k, {
    operatorId: 'w',
    stateBackend,
    ...(restoreFrom === undefined ? {} : { restoreFrom }),
  });
  const feed = (events: Ev[]) => h.processElements(events as IN[], (e) => (e as Ev).t);
  return {
    get out(): OUT[] {
      return h.outputValues();
    },
    feed,
    gauge: (name: string) => h.metric(name),
    snapshot: (checkpointId: number) => h.snapshot(checkpointId),
  };
}

const puts = (s: OperatorSnapshot) =>
  Object.values(s.keyedDelta?.groups ?? {}).flatMap((g) => g.put) as Json[][];
const removes = (s: OperatorSnapshot) =>
  Object.values(s.keyedDelta?.groups ?? {}).flatMap((g) => g.remove) as Json[][];
const fullEntries = (s: OperatorSnapshot) => Object.values(s.keyed ?? {}).flat() as Json[][];

type Result = WindowResult<string, CountSum>;

/** Tumbling (size = slide) or sliding windows counting and summing, by slices. */
const sliceWindows = (size: number, slide: number) =>
  new SliceWindowOperator<Ev, CountSum, CountSum, Result>({
    size,
    slide,
    offset: 0,
    allowedLateness: 0,
    lateDataTag: undefined,
    aggregation: aggregateAggregation(countSum),
    firing: resultFiring(),
  });

/** Session windows (gap 10) counting and summing, by the general window operator. */
const sessionWindows = () =>
  new WindowOperator<Ev, CountSum, CountSum, Result>({
    assigner: Windows.session(10),
    trigger: Triggers.eventTime<Ev>(),
    allowedLateness: 0,
    lateDataTag: undefined,
    aggregation: aggregateAggregation(countSum),
    firing: resultFiring(),
  });

const KEYS = 500;
const keyName = (i: number) => `user-${i}`;

describe('window contents in the disk state backend', () => {
  it('slices are keyed state on disk: the checkpoint after a one-record change is a one-entry delta, and fired windows are removed', async () => {
    const operator = sliceWindows(10, 10);
    const h = harness(operator, await diskOptions());
    h.feed(Array.from({ length: KEYS }, (_, i) => ev(keyName(i), 3, i)));
    expect(h.gauge('weir_state_entries')).toBe(KEYS);
    expect(h.gauge('weir_state_bytes')).toBeGreaterThan(KEYS * 20);

    const full = h.snapshot(1);
    expect(full.keyedDelta).toBeUndefined();
    expect(Object.keys(full.states ?? {})).toEqual(['__weir.window-slices']);
    const entries = fullEntries(full);
    expect(entries).toHaveLength(KEYS);
    // [state, key, namespace (slice end), map key, accumulator]
    expect(entries.find((e) => e[1] === keyName(7))).toEqual([
      '__weir.window-slices',
      keyName(7),
      '10',
      null,
      { count: 1, sum: 7 },
    ]);
    operator.notifyCheckpointComplete(1);

    h.feed([ev(keyName(7), 5, 100)]);
    const delta = h.snapshot(2);
    expect(delta.keyedDelta?.base).toBe(1);
    expect(puts(delta)).toEqual([
      ['__weir.window-slices', keyName(7), '10', null, { count: 2, sum: 107 }],
    ]);
    expect(removes(delta)).toEqual([]);
    expect(JSON.stringify(delta).length).toBeLessThan(JSON.stringify(full).length / 50);
    operator.notifyCheckpointComplete(2);

    operator.processWatermark(9);
    expect(h.out).toHaveLength(KEYS);
    expect(h.gauge('weir_state_entries')).toBe(0);
    const purged = h.snapshot(3);
    expect(puts(purged)).toEqual([]);
    expect(removes(purged)).toHaveLength(KEYS);
    operator.close();
  });

  it('a window job on the disk backend shows its window state in weir_state_bytes; on the heap it has none', async () => {
    const run = async (stateBackend: StateBackendOptions) => {
      // One phase: a local fold would hold the records of a window that never fires.
      const env = new StreamEnvironment({ parallelism: 2, stateBackend, localAggregation: false });
      env
        .fromSource(new GeneratorSource({ generate: (i) => i, ratePerSecond: 20_000 }))
        .assignTimestampsAndWatermarks(
          WatermarkStrategy.forBoundedOutOfOrderness<number>(0).withTimestampAssigner(() => 1_000),
        )
        .keyBy((i) => i % KEYS)
        .window(Windows.tumbling(3_600_000))
        .reduce((a, b) => a + b)
        .uid('sums')
        .sinkTo(new CollectSink());
      const client = env.executeAsync('disk windows');
      const entries = () => client.metrics.total('weir_state_entries', { operator: 'sums' });
      const deadline = Date.now() + 15_000;
      while (entries() < KEYS) {
        if (Date.now() > deadline) throw new Error(`only ${entries()} state entries`);
        await new Promise((r) => setTimeout(r, 20));
      }
      const bytes = client.metrics.total('weir_state_bytes', { operator: 'sums' });
      const samples = client.metrics.samples('weir_state_bytes', { operator: 'sums' });
      await client.cancel();
      return { bytes, samples };
    };
    const disk = await run(await diskOptions());
    expect(disk.samples).toHaveLength(2);
    expect(disk.bytes).toBeGreaterThan(KEYS * 20);
    const heap = await run({ kind: 'heap' });
    expect(heap.samples).toEqual([]);
  });

  it('the rolling reduce keeps its reductions there: incremental checkpoints, restored from a snapshot', async () => {
    const sum = (a: Ev, b: Ev): Ev => ({ k: a.k, t: b.t, v: a.v + b.v });
    const operator = new RollingReduceOperator<Ev>(sum);
    const h = harness(operator, await diskOptions());
    h.feed(Array.from({ length: KEYS }, (_, i) => ev(keyName(i), 1, i)));
    h.feed([ev(keyName(3), 2, 10)]);
    expect(h.gauge('weir_state_entries')).toBe(KEYS);
    expect(h.gauge('weir_state_bytes')).toBeGreaterThan(KEYS * 20);
    const full = h.snapshot(1);
    expect(Object.keys(full.states ?? {})).toEqual(['__weir.reduced']);
    expect(fullEntries(full)).toHaveLength(KEYS);
    operator.notifyCheckpointComplete(1);
    h.feed([ev(keyName(3), 3, 100)]);
    const delta = h.snapshot(2);
    expect(puts(delta)).toEqual([
      ['__weir.reduced', keyName(3), '', null, { k: keyName(3), t: 3, v: 113 }],
    ]);
    operator.close();

    const restored = new RollingReduceOperator<Ev>(sum);
    const r = harness(restored, await diskOptions(), full);
    r.feed([ev(keyName(3), 4, 1000), ev(keyName(4), 4, 1)]);
    expect(r.out.map((e) => e.v)).toEqual([1013, 5]);
    restored.close();
  });

  it('general windows (sessions) are keyed state with their timers: a merge is a small delta, and a restore fires them', async () => {
    const operator = sessionWindows();
    const h = harness(operator, await diskOptions());
    h.feed(Array.from({ length: KEYS }, (_, i) => ev(keyName(i), 1, i)));
    expect(h.gauge('weir_state_entries')).toBe(KEYS);
    expect(h.gauge('weir_state_bytes')).toBeGreaterThan(KEYS * 20);
    const full = h.snapshot(1);
    expect(Object.keys(full.states ?? {})).toEqual(['__weir.windows']);
    const entries = fullEntries(full);
    expect(entries).toHaveLength(KEYS);
    const seven = entries.find((e) => e[1] === keyName(7))!;
    expect(seven.slice(0, 4)).toEqual(['__weir.windows', keyName(7), '1:11', null]);
    // The window's contents and its cleanup timer (at its last timestamp, 10).
    expect(seven[4]).toMatchObject({ acc: { v: { count: 1, sum: 7 } }, timers: ['e10'] });
    operator.notifyCheckpointComplete(1);

    // A record that extends one session: the old window goes, the merged one comes.
    h.feed([ev(keyName(7), 5, 100)]);
    const delta = h.snapshot(2);
    expect(puts(delta).map((e) => e.slice(0, 4))).toEqual([
      ['__weir.windows', keyName(7), '1:15', null],
    ]);
    expect(puts(delta)[0]![4]).toMatchObject({
      acc: { v: { count: 2, sum: 107 } },
      timers: ['e14'],
    });
    expect(removes(delta)).toEqual([['__weir.windows', keyName(7), '1:11', null]]);
    operator.close();

    const restored = sessionWindows();
    const r = harness(restored, await diskOptions(), full);
    restored.processWatermark(100);
    expect(r.out).toHaveLength(KEYS);
    expect(r.out.find((w) => w.key === keyName(7))).toMatchObject({
      window: { start: 1, end: 11 },
      value: { count: 1, sum: 7 },
    });
    expect(r.gauge('weir_state_entries')).toBe(0);
    restored.close();
  });

  it('state written with the heap backend is taken over by the disk backend; disk state fails clearly on the heap', async () => {
    const operators = {
      slices: () => sliceWindows(10, 5),
      sessions: sessionWindows,
      reduce: () => new RollingReduceOperator<Ev>((a, b) => ({ k: a.k, t: b.t, v: a.v + b.v })),
    };
    const before = [ev('a', 1, 1), ev('b', 3, 2), ev('a', 7, 3)];
    const after = [ev('a', 12, 4), ev('b', 30, 5)];
    for (const [name, create] of Object.entries(operators)) {
      const run = async (stateBackend: StateBackendOptions, restored?: OperatorSnapshot) => {
        const operator = create() as Operator<Ev, unknown>;
        const h = harness(operator, stateBackend, restored);
        if (restored === undefined) h.feed(before);
        const snapshot = h.snapshot(1);
        const emitted = h.out.length;
        h.feed(after);
        operator.processWatermark(Number.POSITIVE_INFINITY);
        operator.close();
        const render = (xs: unknown[]) => xs.map((x) => JSON.stringify(x)).sort();
        return { snapshot, out: render(h.out), afterSnapshot: render(h.out.slice(emitted)) };
      };
      const heap = await run({ kind: 'heap' });
      const disk = await run(await diskOptions());
      expect(disk.out, name).toEqual(heap.out);
      const takenOver = await run(await diskOptions(), heap.snapshot);
      expect(takenOver.out, name).toEqual(heap.afterSnapshot);
      expect(takenOver.out.length, name).toBeGreaterThan(0);
      await expect(run({ kind: 'heap' }, disk.snapshot), name).rejects.toThrow(
        /written with the disk state backend, but the job uses the heap backend/,
      );
    }
  });
});
