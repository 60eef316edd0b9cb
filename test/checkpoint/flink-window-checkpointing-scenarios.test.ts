/**
 * Scenarios of Flink's event-time window checkpointing integration tests, run as whole Weir
 * jobs that fail once in the middle, restart from their latest checkpoint and must still
 * produce every window exactly once, with exactly the contents a plain batch computation of
 * the same windows gives:
 *
 * - EventTimeWindowCheckpointingITCase (flink-tests): keyed tumbling and sliding windows with a
 *   window function over all elements, with a window function keeping keyed state across
 *   windows (at the smallest and the largest max parallelism), and pre-aggregated with a
 *   reduce function followed by a window function. Flink runs each against several state
 *   backends; here each runs on the heap and on the disk backend.
 * - EventTimeAllWindowCheckpointingITCase (flink-tests): the same over non-keyed windows.
 *   Weir has no `windowAll`: every record gets one constant key (`0`), so the window
 *   operator still runs at the job's parallelism but only one subtask holds data, as one
 *   all-window subtask does in Flink.
 *
 * The shape is Flink's: a non-parallel source emits, for each sequence number `n`, one record
 * `(key, n)` per key with event time `n`, and a watermark trailing 4/3 of a window (the newer
 * Flink version of the test does so, so that timers are in flight at each checkpoint); the
 * stream is rebalanced over 4 subtasks before the keyBy; checkpoints are taken often, and the
 * source throws once ("Artificial Failure") after two checkpoints completed and a third of its
 * input is out; the restart strategy is fixed-delay with one attempt and no delay. Flink's
 * validating sink keeps its counts in checkpointed state; here the sink is Weir's
 * ExactlyOnceFileSink (two-phase commit, parallelism 1), whose committed output after the run
 * is compared, record for record, with the batch computation: a window lost or counted twice
 * on restore fails the comparison.
 *
 * Deliberate differences:
 * - Flink's source is unbounded and its sink ends the job (SuccessException) once every
 *   key has `elements / slide` windows, so trailing sliding windows that reach past the data
 *   never fire. Weir's source is bounded: its end of input fires every window that holds data,
 *   and the expected results include the trailing (partial) sliding windows, computed the same
 *   way (Flink's newer validator likewise clips their sums at the last element).
 * - Before the failure Flink's source sleeps 1 ms per element and stops at the failure point
 *   until two checkpoints completed. Here the source also waits about 1 ms per element, but
 *   keeps going after that point and fails only once it has emitted records after the latest
 *   checkpoint, so the restart always replays records (a bare restart with nothing
 *   to replay would test less). The test checks that the restore was from a checkpoint in the
 *   middle of the input, before the failure.
 * - Smaller inputs than Flink (300 elements per key for keyed windows, 900 for all-windows)
 *   to keep the file fast.
 * - testPreAggregatedFoldingTumblingTimeWindow's FoldFunction (Flink has since removed folds)
 *   is an AggregateFunction followed by a window function, its modern replacement.
 *
 * Not ported:
 * - the `open()` assertions of Flink's rich window functions (parallelism seen by the function,
 *   `open` called before `apply`): Weir's window functions have no open/close lifecycle.
 * - snapshot compression, ZooKeeper HA and the RocksDB incremental/async variants of the state
 *   backend parameters: Weir has no such settings; its two backends are heap and disk.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type AggregateFunction,
  type DataStream,
  ExactlyOnceFileSink,
  type Json,
  type ProcessWindowFunction,
  type RecordBatch,
  type Source,
  type SourceContext,
  type SourceReader,
  type StateBackendOptions,
  StreamEnvironment,
  type WindowAssigner,
  Windows,
} from '../../src/index.js';
import { committedLines } from '../helpers/committed-lines.js';

const PARALLELISM = 4;

/** Flink's `Tuple2<Long, IntType>`: a key and a sequence number (also the event time). */
interface Event {
  readonly key: number;
  readonly value: number;
}

/** Flink's `Tuple4<Long, Long, Long, IntType>`: key, window start and end, and a number. */
interface Row {
  readonly key: number;
  readonly start: number;
  readonly end: number;
  readonly value: number;
}

/** What the source saw in one run of a scenario (every attempt of the job). */
interface SourceLog {
  /** Whether the artificial failure was thrown (once per scenario, like Flink's static flag). */
  failedBefore: boolean;
  /** Sequence numbers emitted when the failure was thrown. */
  emittedAtFailure: number | undefined;
  /** Positions the source was restored to. */
  readonly restoredFrom: number[];
}

/**
 * Flink's FailingSource with its KeyedEventTimeGenerator: for each sequence number `n` below
 * `elements`, one record per key with event time `n`, then the watermark `n - trailing`. Its
 * position (the next sequence number) is checkpointed. Until it has failed it waits about a
 * millisecond per sequence number, so checkpoints land in the middle of the input; it throws
 * once, after two completed checkpoints, `failAfter` sequence numbers, and records emitted
 * after the latest checkpoint's snapshot (those the restart must replay).
 */
class FailingSource implements Source<Event> {
  readonly name = 'failing source';
  readonly bounded = true;
  readonly parallelizable = false;

  constructor(
    private readonly numKeys: number,
    private readonly elements: number,
    private readonly failAfter: number,
    private readonly trailing: number,
    readonly log: SourceLog,
  ) {}

  createReader(context: SourceContext): SourceReader<Event> {
    const { numKeys, elements, failAfter, trailing, log } = this;
    const restored = context.restoredPosition;
    let emitted = typeof restored === 'number' ? restored : 0;
    if (typeof restored === 'number') log.restoredFrom.push(restored);
    let completed = 0;
    let snapshotPosition = -1;
    let paced = false;
    let waiting: Promise<void> | undefined;
    return {
      open() {},
      poll(): RecordBatch<Event> | 'wait' | 'end' {
        if (!log.failedBefore) {
          // `emitted > snapshotPosition`: records went out after the latest checkpoint's
          // snapshot (completed or not), so whichever checkpoint is restored, some are replayed.
          if (completed >= 2 && emitted >= failAfter && emitted > snapshotPosition) {
            log.failedBefore = true;
            log.emittedAtFailure = emitted;
            throw new Error('Artificial Failure');
          }
          // Pace the input before the failure: one sequence number per millisecond or so.
          if (!paced) {
            waiting ??= new Promise((resolve) =>
              setTimeout(() => {
                paced = true;
                waiting = undefined;
                resolve();
              }, 1),
            );
            return 'wait';
          }
          paced = false;
        }
        if (emitted >= elements) return 'end';
        const next = emitted++;
        const values: Event[] = [];
        const timestamps: number[] = [];
        for (let key = 0; key < numKeys; key++) {
          values.push({ key, value: next });
          timestamps.push(next);
        }
        return { values, timestamps, keys: undefined };
      },
      available: () => waiting ?? Promise.resolve(),
      currentWatermark: () => emitted - 1 - trailing,
      snapshot(): Json {
        snapshotPosition = emitted;
        return emitted;
      },
      notifyCheckpointComplete() {
        completed++;
      },
      close() {},
    };
  }
}

// ---- Flink's functions, as Weir window functions --------------------------------------------

/** The window function of testTumblingTimeWindow/testSlidingTimeWindow: the sum of the values. */
const sumOfValues: ProcessWindowFunction<Event, Row, number> = {
  process(key, ctx, elements, out) {
    let sum = 0;
    for (const e of elements) sum += e.value;
    out.collect({ key, start: ctx.window.start, end: ctx.window.end, value: sum });
  },
};

/**
 * The window function of doTestTumblingTimeWindowWithKVState: a count per key in keyed state
 * shared by the key's windows, starting at the key, so the n-th window of key k says `k + n`.
 */
const countInKeyedState: ProcessWindowFunction<Event, Row, number> = {
  process(key, ctx, _elements, out) {
    const count = ctx.globalState().getValueState<number>('count');
    const next = (count.value() ?? key) + 1;
    count.update(next);
    out.collect({ key, start: ctx.window.start, end: ctx.window.end, value: next });
  },
};

/** The reduce function of the pre-aggregated tests: the key, the sum of both values. */
const sumReducer = (a: Event, b: Event): Event => ({ key: a.key, value: a.value + b.value });

/** The window function after a pre-aggregation: each pre-aggregated element as a row. */
const passThrough: ProcessWindowFunction<Event, Row, number> = {
  process(_key, ctx, elements, out) {
    for (const e of elements)
      out.collect({ key: e.key, start: ctx.window.start, end: ctx.window.end, value: e.value });
  },
};

/** The fold of testPreAggregatedFoldingTumblingTimeWindow, as an aggregate: (key, sum). */
const foldingSum: AggregateFunction<Event, { key: number; sum: number }, Event> = {
  createAccumulator: () => ({ key: 0, sum: 0 }),
  add: (e, acc) => ({ key: e.key, sum: acc.sum + e.value }),
  getResult: (acc) => ({ key: acc.key, value: acc.sum }),
  merge: (a, b) => ({ key: a.key, sum: a.sum + b.sum }),
};

// ---- The expected results: a plain batch computation of the same windows ------------------

interface Shape {
  readonly size: number;
  /** The slide of sliding windows; tumbling when absent. */
  readonly slide?: number;
}

/** The starts of the windows holding event time `t`, as Flink's assigners compute them. */
function windowStarts(t: number, { size, slide }: Shape): number[] {
  const step = slide ?? size;
  const starts: number[] = [];
  for (let start = t - (((t % step) + step) % step); start > t - size; start -= step)
    starts.push(start);
  return starts;
}

type Windowed = (key: number, start: number, values: readonly number[], nth: number) => number;

/**
 * Every window of every key that holds data, computed from the whole input at once, its
 * value given by `value` (the window's values and its 1-based rank among the key's windows).
 */
function expectedRows(numKeys: number, elements: number, shape: Shape, value: Windowed): Row[] {
  const rows: Row[] = [];
  for (let key = 0; key < numKeys; key++) {
    const windows = new Map<number, number[]>();
    for (let n = 0; n < elements; n++)
      for (const start of windowStarts(n, shape)) {
        const values = windows.get(start) ?? [];
        values.push(n);
        windows.set(start, values);
      }
    const starts = [...windows.keys()].sort((a, b) => a - b);
    for (const [i, start] of starts.entries())
      rows.push({
        key,
        start,
        end: start + shape.size,
        value: value(key, start, windows.get(start) ?? [], i + 1),
      });
  }
  return sortRows(rows);
}

const sumWindow: Windowed = (_key, _start, values) => values.reduce((s, v) => s + v, 0);
const keyPlusCount: Windowed = (key, _start, _values, nth) => key + nth;

function sortRows(rows: readonly Row[]): Row[] {
  return [...rows].sort((a, b) => a.key - b.key || a.start - b.start || a.value - b.value);
}

// ---- Running a scenario ----------------------------------------------------------------------

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weir-flink-window-chk-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Scenario {
  readonly numKeys: number;
  readonly elements: number;
  readonly shape: Shape;
  readonly stateBackend: StateBackendOptions;
  readonly maxParallelism?: number;
  /** Keyed (Flink's keyBy(0)) or one constant key (Flink's windowAll). */
  readonly keyed: boolean;
  /** The windowed computation, from the windowed stream to the rows the sink checks. */
  readonly window: (
    stream: DataStream<Event>,
    keyOf: (e: Event) => number,
    assigner: WindowAssigner<never>,
  ) => DataStream<Row>;
}

/**
 * Runs the scenario's job once, failing in the middle and restarting from its latest
 * checkpoint, and returns its committed output, checking on the way that exactly one restart
 * happened and that it restored a checkpoint from before the failure.
 */
async function runWithFailure(s: Scenario): Promise<Row[]> {
  const log: SourceLog = { failedBefore: false, emittedAtFailure: undefined, restoredFrom: [] };
  // Flink's trailing watermark: 4/3 of the elements per window (the slide for sliding windows).
  const perWindow = s.shape.slide ?? s.shape.size;
  const source = new FailingSource(
    s.numKeys,
    s.elements,
    Math.floor(s.elements / 3),
    Math.floor((4 * perWindow) / 3),
    log,
  );
  const env = new StreamEnvironment({
    parallelism: PARALLELISM,
    ...(s.maxParallelism === undefined ? {} : { maxParallelism: s.maxParallelism }),
    stateBackend: s.stateBackend,
    checkpointing: { directory: join(dir, 'chk'), intervalMs: 20 },
    restartStrategy: { kind: 'fixed-delay', attempts: 1, delayMs: 0 },
  });
  const assigner =
    s.shape.slide === undefined
      ? Windows.tumbling(s.shape.size)
      : Windows.sliding(s.shape.size, s.shape.slide);
  // Without keyBy(0) there is windowAll in Flink; here one constant key stands for it.
  const keyOf = s.keyed ? (e: Event) => e.key : () => 0;
  const out = join(dir, 'out');
  s.window(env.fromSource(source).uid('source').rebalance(), keyOf, assigner)
    .sinkTo(new ExactlyOnceFileSink<Row>({ directory: out }))
    .uid('sink')
    .setParallelism(1);
  const result = await env.execute('window checkpointing');
  expect(result.status).toBe('finished');
  expect(log.failedBefore).toBe(true);
  expect(result.metric('weir_job_restarts_total')).toBe(1);
  // Restored once, from a checkpoint in the middle of the input, taken before the failure,
  // with records after it that the restart replayed.
  expect(log.restoredFrom).toHaveLength(1);
  const restored = log.restoredFrom[0] ?? -1;
  expect(restored).toBeGreaterThan(0);
  expect(restored).toBeLessThan(log.emittedAtFailure ?? 0);
  expect(log.emittedAtFailure ?? s.elements).toBeLessThan(s.elements);
  return sortRows((await committedLines(out)).map((line) => JSON.parse(line) as Row));
}

const BACKENDS: readonly (readonly [string, StateBackendOptions])[] = [
  ['heap', { kind: 'heap' }],
  ['disk', { kind: 'disk' }],
];

// Flink's MEM/FILE sizes are 300 elements per key, 20 keys and windows of 100; its RocksDB
// sizes (3000, 100 keys, windows of 1000 sliding by 100) are scaled down here.
const KEYS = 20;
const ELEMENTS = 300;
const TUMBLING: Shape = { size: 100 };
const SLIDING: Shape = { size: 200, slide: 50 };

describe.each(BACKENDS)('EventTimeWindowCheckpointingITCase (%s backend)', (_name, backend) => {
  const keyed = { numKeys: KEYS, elements: ELEMENTS, stateBackend: backend, keyed: true };

  it('testTumblingTimeWindow', async () => {
    const rows = await runWithFailure({
      ...keyed,
      shape: TUMBLING,
      window: (stream, keyOf, assigner) =>
        stream.keyBy(keyOf).window(assigner).process(sumOfValues),
    });
    expect(rows).toEqual(expectedRows(KEYS, ELEMENTS, TUMBLING, sumWindow));
  });

  for (const [name, maxParallelism] of [
    ['testTumblingTimeWindowWithKVStateMinMaxParallelism', PARALLELISM],
    ['testTumblingTimeWindowWithKVStateMaxMaxParallelism', 1 << 15],
  ] as const) {
    it(name, async () => {
      const rows = await runWithFailure({
        ...keyed,
        maxParallelism,
        shape: TUMBLING,
        window: (stream, keyOf, assigner) =>
          stream.keyBy(keyOf).window(assigner).process(countInKeyedState),
      });
      expect(rows).toEqual(expectedRows(KEYS, ELEMENTS, TUMBLING, keyPlusCount));
    });
  }

  it('testSlidingTimeWindow', async () => {
    const rows = await runWithFailure({
      ...keyed,
      maxParallelism: 2 * PARALLELISM,
      shape: SLIDING,
      window: (stream, keyOf, assigner) =>
        stream.keyBy(keyOf).window(assigner).process(sumOfValues),
    });
    expect(rows).toEqual(expectedRows(KEYS, ELEMENTS, SLIDING, sumWindow));
  });

  it('testPreAggregatedTumblingTimeWindow', async () => {
    const rows = await runWithFailure({
      ...keyed,
      shape: TUMBLING,
      window: (stream, keyOf, assigner) =>
        stream.keyBy(keyOf).window(assigner).reduce(sumReducer, passThrough),
    });
    expect(rows).toEqual(expectedRows(KEYS, ELEMENTS, TUMBLING, sumWindow));
  });

  it('testPreAggregatedSlidingTimeWindow', async () => {
    const rows = await runWithFailure({
      ...keyed,
      shape: SLIDING,
      window: (stream, keyOf, assigner) =>
        stream.keyBy(keyOf).window(assigner).reduce(sumReducer, passThrough),
    });
    expect(rows).toEqual(expectedRows(KEYS, ELEMENTS, SLIDING, sumWindow));
  });
});

// Flink's all-window sizes: one key, 3000 elements, windows of 100 (tumbling) and of 1000
// sliding by 100; scaled down here.
const ALL_ELEMENTS = 900;
const ALL_TUMBLING: Shape = { size: 100 };
const ALL_SLIDING: Shape = { size: 300, slide: 50 };

describe.each(BACKENDS)('EventTimeAllWindowCheckpointingITCase (%s backend)', (_name, backend) => {
  // Flink's NUM_KEYS = 1: one record per sequence number, all in the constant key's windows.
  const all = { numKeys: 1, elements: ALL_ELEMENTS, stateBackend: backend, keyed: false };

  it('testTumblingTimeWindow', async () => {
    const rows = await runWithFailure({
      ...all,
      shape: ALL_TUMBLING,
      window: (stream, keyOf, assigner) =>
        stream.keyBy(keyOf).window(assigner).process(sumOfValues),
    });
    expect(rows).toEqual(expectedRows(1, ALL_ELEMENTS, ALL_TUMBLING, sumWindow));
  });

  it('testSlidingTimeWindow', async () => {
    const rows = await runWithFailure({
      ...all,
      shape: ALL_SLIDING,
      window: (stream, keyOf, assigner) =>
        stream.keyBy(keyOf).window(assigner).process(sumOfValues),
    });
    expect(rows).toEqual(expectedRows(1, ALL_ELEMENTS, ALL_SLIDING, sumWindow));
  });

  it('testPreAggregatedTumblingTimeWindow', async () => {
    const rows = await runWithFailure({
      ...all,
      shape: ALL_TUMBLING,
      window: (stream, keyOf, assigner) =>
        stream.keyBy(keyOf).window(assigner).reduce(sumReducer, passThrough),
    });
    expect(rows).toEqual(expectedRows(1, ALL_ELEMENTS, ALL_TUMBLING, sumWindow));
  });

  it('testPreAggregatedFoldingTumblingTimeWindow (fold as an aggregate)', async () => {
    const rows = await runWithFailure({
      ...all,
      shape: ALL_TUMBLING,
      window: (stream, keyOf, assigner) =>
        stream.keyBy(keyOf).window(assigner).aggregate(foldingSum, passThrough),
    });
    expect(rows).toEqual(expectedRows(1, ALL_ELEMENTS, ALL_TUMBLING, sumWindow));
  });

  it('testPreAggregatedSlidingTimeWindow', async () => {
    const rows = await runWithFailure({
      ...all,
      shape: ALL_SLIDING,
      window: (stream, keyOf, assigner) =>
        stream.keyBy(keyOf).window(assigner).reduce(sumReducer, passThrough),
    });
    expect(rows).toEqual(expectedRows(1, ALL_ELEMENTS, ALL_SLIDING, sumWindow));
  });
});
