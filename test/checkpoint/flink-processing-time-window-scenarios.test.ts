/**
 * Scenarios of Flink's ProcessingTimeWindowCheckpointingITCase (flink-tests), run as whole
 * Weir jobs over processing-time windows that fail once in the middle, restart from their
 * latest checkpoint and must still count every element exactly once.
 *
 * The shape is Flink's: a non-parallel source emits the sequence numbers `0 .. n-1` as records
 * `(n, n)`, about one per millisecond until its failure point (half the input); the stream is
 * rebalanced over 4 subtasks and keyed by the sequence number, so every key holds one element;
 * windows are tumbling processing-time windows of 100 ms or sliding ones of 150 ms every 50 ms;
 * checkpoints are frequent and the restart strategy is fixed-delay with one attempt and no
 * delay. The window function checks that each element still pairs its sequence number with
 * itself and emits `(n, 1)`; the aggregating variants first map every value to 1 and reduce
 * with a function that keeps the key and the count 1. The sink must then have seen, for every
 * sequence number, exactly one count per window holding it: 1 for tumbling windows, 3
 * (150 / 50) for sliding ones.
 *
 * Ported: testTumblingProcessingTimeWindow, testSlidingProcessingTimeWindow,
 * testAggregatingTumblingProcessingTimeWindow, testAggregatingSlidingProcessingTimeWindow.
 *
 * Adapted:
 * - Flink's validating sink keeps its counts in checkpointed state and ends the job once every
 *   count is reached; its source then idles forever, since Flink drops processing-time windows
 *   that are still open at end of input. Weir fires such windows at end of input (see
 *   docs/semantics.md, "End of bounded input"), so the source here is simply bounded, and the
 *   sink is Weir's ExactlyOnceFileSink (two-phase commit, parallelism 1), whose committed
 *   output is counted after the run: a window lost or emitted twice across the restore fails
 *   the comparison with the expected counts (a batch computation: every element, each in
 *   `size / slide` windows).
 * - Flink's source stops at its failure point until a checkpoint taken after a "decent amount"
 *   of input (a quarter of it) completed, then throws. Here the source keeps emitting (paced)
 *   after that point and fails only once such a checkpoint completed and it has emitted
 *   records after the latest snapshot, so that the restart always replays records. The test
 *   checks that it restored from a position in the middle of the input, before the failure.
 * - Flink's `setAutoWatermarkInterval(10)` has no effect on processing-time windows and is
 *   left out.
 *
 * Not ported: the `open()` assertions of the rich window function (parallelism seen by the
 * function, `open` called before `apply`): Weir's window functions have no open/close
 * lifecycle. Flink's non-serializable IntType exists to test Java serialization; records here
 * are plain JSON.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type DataStream,
  ExactlyOnceFileSink,
  type Json,
  type ProcessWindowFunction,
  type RecordBatch,
  type Source,
  type SourceContext,
  type SourceReader,
  StreamEnvironment,
  type WindowAssigner,
  Windows,
} from '../../src/index.js';
import { committedLines } from '../helpers/committed-lines.js';

const PARALLELISM = 4;
const ELEMENTS = 3000;

/** Flink's `Tuple2<Long, IntType>`: the sequence number (the key) and a value. */
interface Pair {
  readonly seq: number;
  readonly value: number;
}

/** What the source saw over every attempt of one scenario. */
interface SourceLog {
  failedBefore: boolean;
  emittedAtFailure: number | undefined;
  readonly restoredFrom: number[];
}

/**
 * Flink's FailingSource with its processing-time Generator: `(n, n)` for each sequence number
 * `n`, its position checkpointed. Until it has failed it waits about a millisecond per record,
 * so that processing-time windows hold a handful of records each and checkpoints land in the
 * middle of the input. It throws once, at or after half of the input, once a checkpoint whose
 * snapshot was taken after a quarter of the input has completed and records went out after
 * the latest snapshot.
 */
class FailingSource implements Source<Pair> {
  readonly name = 'failing source';
  readonly bounded = true;
  readonly parallelizable = false;

  constructor(
    private readonly elements: number,
    readonly log: SourceLog,
  ) {}

  createReader(context: SourceContext): SourceReader<Pair> {
    const { elements, log } = this;
    const failAfter = Math.floor(elements / 2);
    const restored = context.restoredPosition;
    let emitted = typeof restored === 'number' ? restored : 0;
    if (typeof restored === 'number') log.restoredFrom.push(restored);
    // Checkpoint ids whose snapshot held a decent amount of input, and whether one completed.
    const decent = new Set<number>();
    let decentCompleted = false;
    let snapshotPosition = -1;
    let paced = false;
    let waiting: Promise<void> | undefined;
    return {
      open() {},
      poll(): RecordBatch<Pair> | 'wait' | 'end' {
        if (!log.failedBefore) {
          if (decentCompleted && emitted >= failAfter && emitted > snapshotPosition) {
            log.failedBefore = true;
            log.emittedAtFailure = emitted;
            throw new Error('Artificial Failure');
          }
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
        return { values: [{ seq: next, value: next }], timestamps: [next], keys: undefined };
      },
      available: () => waiting ?? Promise.resolve(),
      snapshot(checkpointId: number): Json {
        snapshotPosition = emitted;
        if (emitted > failAfter / 2) decent.add(checkpointId);
        return emitted;
      },
      notifyCheckpointComplete(checkpointId: number) {
        // A later checkpoint completing also confirms the decent ones before it.
        if ([...decent].some((id) => id <= checkpointId)) decentCompleted = true;
      },
      close() {},
    };
  }
}

/** Flink's RichWindowFunction of the non-aggregating tests: checks each element, emits `(n, 1)`. */
const countEach: ProcessWindowFunction<Pair, Pair, number> = {
  process(key, _ctx, elements, out) {
    for (const e of elements) {
      if (e.seq !== e.value || e.seq !== key)
        throw new Error(`element ${JSON.stringify(e)} in the window of key ${key}`);
      out.collect({ seq: e.seq, value: 1 });
    }
  },
};

/** Flink's reduce function of the aggregating tests: the key, and the count 1. */
const keepOne = (a: Pair, _b: Pair): Pair => ({ seq: a.seq, value: 1 });

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weir-flink-pt-window-chk-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * Runs the job once, failing in the middle and restarting from its latest checkpoint; returns
 * the committed counts per sequence number (Flink's ValidatingSink map).
 */
async function runWithFailure(
  assigner: WindowAssigner<never>,
  window: (stream: DataStream<Pair>, assigner: WindowAssigner<never>) => DataStream<Pair>,
): Promise<Map<number, number>> {
  const log: SourceLog = { failedBefore: false, emittedAtFailure: undefined, restoredFrom: [] };
  const env = new StreamEnvironment({
    parallelism: PARALLELISM,
    checkpointing: { directory: join(dir, 'chk'), intervalMs: 50 },
    restartStrategy: { kind: 'fixed-delay', attempts: 1, delayMs: 0 },
  });
  const out = join(dir, 'out');
  window(env.fromSource(new FailingSource(ELEMENTS, log)).uid('source'), assigner)
    .sinkTo(new ExactlyOnceFileSink<Pair>({ directory: out }))
    .uid('sink')
    .setParallelism(1);
  const result = await env.execute('processing-time window checkpointing');
  expect(result.status).toBe('finished');
  expect(log.failedBefore).toBe(true);
  expect(result.metric('weir_job_restarts_total')).toBe(1);
  expect(log.restoredFrom).toHaveLength(1);
  const restored = log.restoredFrom[0] ?? -1;
  expect(restored).toBeGreaterThan(ELEMENTS / 4);
  expect(restored).toBeLessThan(log.emittedAtFailure ?? 0);
  expect(log.emittedAtFailure ?? ELEMENTS).toBeLessThan(ELEMENTS);
  const counts = new Map<number, number>();
  for (const line of await committedLines(out)) {
    const pair = JSON.parse(line) as Pair;
    counts.set(pair.seq, (counts.get(pair.seq) ?? 0) + pair.value);
  }
  return counts;
}

/** The batch answer: every sequence number, counted once per window that holds it. */
function expectedCounts(perElement: number): Map<number, number> {
  return new Map(Array.from({ length: ELEMENTS }, (_, n) => [n, perElement] as const));
}

const sorted = (m: Map<number, number>) => [...m.entries()].sort((a, b) => a[0] - b[0]);

const TUMBLING = () => Windows.tumblingProcessingTime(100);
const SLIDING = () => Windows.slidingProcessingTime(150, 50);

describe('ProcessingTimeWindowCheckpointingITCase', () => {
  it('testTumblingProcessingTimeWindow', { timeout: 120_000 }, async () => {
    const counts = await runWithFailure(TUMBLING(), (stream, assigner) =>
      stream
        .rebalance()
        .keyBy((p) => p.seq)
        .window(assigner)
        .process(countEach),
    );
    expect(sorted(counts)).toEqual(sorted(expectedCounts(1)));
  });

  it('testSlidingProcessingTimeWindow', { timeout: 120_000 }, async () => {
    const counts = await runWithFailure(SLIDING(), (stream, assigner) =>
      stream
        .rebalance()
        .keyBy((p) => p.seq)
        .window(assigner)
        .process(countEach),
    );
    expect(sorted(counts)).toEqual(sorted(expectedCounts(3)));
  });

  it('testAggregatingTumblingProcessingTimeWindow', { timeout: 120_000 }, async () => {
    const counts = await runWithFailure(TUMBLING(), (stream, assigner) =>
      stream
        .map((p) => ({ seq: p.seq, value: 1 }))
        .rebalance()
        .keyBy((p) => p.seq)
        .window(assigner)
        .reduce(keepOne)
        .map((r) => r.value),
    );
    expect(sorted(counts)).toEqual(sorted(expectedCounts(1)));
  });

  it('testAggregatingSlidingProcessingTimeWindow', { timeout: 120_000 }, async () => {
    const counts = await runWithFailure(SLIDING(), (stream, assigner) =>
      stream
        .map((p) => ({ seq: p.seq, value: 1 }))
        .rebalance()
        .keyBy((p) => p.seq)
        .window(assigner)
        .reduce(keepOne)
        .map((r) => r.value),
    );
    expect(sorted(counts)).toEqual(sorted(expectedCounts(3)));
  });
});
