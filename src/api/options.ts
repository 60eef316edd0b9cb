/**
 * The option and result types of the fluent API. Types only, and nothing of
 * the stream implementations: the public interfaces (`streams.ts`) and every
 * implementation module import them from here, so neither has to import the
 * other.
 */

import type { Clock } from '../core/clock.js';
import type { JoinType } from '../core/joins.js';
import type { Key } from '../core/key-groups.js';
import type { OutputTag } from '../core/output-tag.js';
import type { DeduplicateOrder, KeepRow, RankComparator } from '../core/ranking.js';
import type { StateSerializer, StateTtlConfig } from '../core/state.js';
import type { MetricsOptions } from '../metrics/metrics-server.js';
import type { CheckpointOptions } from '../runtime/checkpoint/checkpoint-config.js';
import type { RestartStrategy } from '../runtime/job/job-client.js';
import type { StateBackendOptions } from '../state/create-backend.js';

export type {
  CoGroupWindowFunction,
  IntervalJoinContext,
  JoinType,
  ProcessJoinFunction,
} from '../core/joins.js';
export type {
  DeduplicateOrder,
  KeepRow,
  RankComparator,
  Ranked,
  WindowRanked,
} from '../core/ranking.js';
export type {
  ExecuteOptions,
  JobClient,
  JobResult,
  RestartStrategy,
  SavepointOptions,
  StateQueryResult,
} from '../runtime/job/job-client.js';

/** The settings of a `StreamEnvironment`; every one is optional. */
export interface EnvironmentOptions {
  /** Default number of subtasks per operator. Default 1. */
  readonly parallelism?: number;
  /** Number of key groups: the upper bound for rescaling keyed state. Default 128. */
  readonly maxParallelism?: number;
  /** Records per batch read by bounded sources. Default 1024. */
  readonly batchSize?: number;
  /** Batches buffered per channel between tasks before the producer waits. Default 8. */
  readonly channelCapacity?: number;
  /**
   * Buffer debloating: every task measures how fast it takes records off each
   * input channel and lets the producer queue only what it drains within
   * `targetMs` (at least one batch, at most `channelCapacity` batches), so
   * under backpressure a checkpoint barrier waits about `targetMs` per
   * exchange instead of behind full channels. `true` or omitted: on with a
   * 1000 ms target; `false`: channels are bounded by `channelCapacity` only.
   * See docs/checkpoints.md (Backpressure).
   */
  readonly bufferDebloating?: boolean | { readonly targetMs?: number };
  /** Run single-input forward operators in their producer's task. Default true. */
  readonly chaining?: boolean;
  /**
   * Run chained stateless operators (map, filter, flatMap, where each but the
   * last feeds only the next) as one loop per batch: a record goes through
   * all of them with no batch in between. Metrics, watermarks, checkpoints and
   * errors (which name the failing operator) are as without it. Default true;
   * needs `chaining`. See docs/architecture.md (Fused stateless runs).
   */
  readonly fusion?: boolean;
  /**
   * Two-phase window aggregation: at parallelism above 1, tumbling and
   * sliding event-time windows whose function can merge accumulators (`reduce`,
   * or `aggregate` with `merge`) fold records per key and slice before the
   * keyed exchange, so the exchange moves partials instead of records.
   * Results are the same either way. Default true.
   */
  readonly localAggregation?: boolean;
  /**
   * How often (ms of processing time, a positive whole number) watermark
   * generators are asked for a watermark while their input is quiet, like
   * Flink's `setAutoWatermarkInterval`. Applies to every
   * `assignTimestampsAndWatermarks` step whose strategy sets no interval of
   * its own (`withPeriodicInterval`). Unset (default): generators are asked
   * after each batch only, so a live source that goes quiet holds its last
   * watermark until the next record arrives.
   */
  readonly autoWatermarkIntervalMs?: number;
  /** Processing-time source; tests may inject their own. */
  readonly clock?: Clock;
  /**
   * Keep V8's allocation-site pretenuring on in this process. By default a job turns it off
   * when it starts (V8 flags are process-wide, and stay off after the job): with it, a
   * young-generation collection in the middle of one of a job's first batches can make V8
   * allocate that code's rows as long-lived for the rest of the run, which then pays a full
   * collection every few hundred milliseconds. See docs/architecture.md (The hot path).
   * Default false.
   */
  readonly allocationSitePretenuring?: boolean;
  /**
   * Keyed state backend of stateful operators: `{ kind: 'heap' }` (default) or
   * `{ kind: 'disk', ... }` for state larger than memory.
   */
  readonly stateBackend?: StateBackendOptions;
  /** Take periodic checkpoints (off when omitted). */
  readonly checkpointing?: CheckpointOptions;
  /** Instrumentation and the Prometheus endpoint (off unless `port` is set); see docs/observability.md. */
  readonly metrics?: MetricsOptions;
  /**
   * Run the subtasks on this many worker threads (`'auto'`: one per core);
   * subtask `s` of every operator runs on worker `s mod workers`. Only for a
   * job that comes from a module (`runJobModule`, `weir run --workers`), which
   * every worker loads to build the same graph; a job built inline runs on
   * the calling thread whatever this says. Default: the calling thread.
   */
  readonly workers?: number | 'auto';
  /**
   * Bytes of each shared-memory ring between two workers (one per direction
   * and pair): a power of two, at least 256. Batches that do not fit wait in
   * order on the sender; a batch larger than half the ring crosses in parts.
   * N workers hold N(N-1) rings. Default 2 MiB.
   */
  readonly workerRingBytes?: number;
  /**
   * Restart a failed job from its latest checkpoint; see {@link RestartStrategy}.
   * Default: no restarts. (`weir run` gives a job with `--checkpoint-dir`
   * `exponential-delay` unless told otherwise; a job built here is started by
   * its caller, who decides.)
   */
  readonly restartStrategy?: RestartStrategy;
}

/** Side outputs to collect, by the name their records are returned under. */
export type SideOutputTags = Readonly<Record<string, OutputTag<unknown>>>;

/** The records of each collected side output, typed by its tag. */
export type SideOutputRecords<S extends SideOutputTags> = {
  -readonly [K in keyof S]: S[K] extends OutputTag<infer X> ? X[] : never;
};

/** How `DataStream.executeAndCollect` runs the job and which side outputs it collects. */
export interface CollectOptions<S extends SideOutputTags> {
  /** The job's name (default `collect`). */
  readonly jobName?: string;
  /** The side outputs of the step that produced the stream, by the name to return them under. */
  readonly sideOutputs: S;
}

/** What `DataStream.executeAndCollect` resolves with when it collects side outputs too. */
export interface CollectedWithSideOutputs<T, S extends SideOutputTags> {
  /** The stream's own records. */
  records: T[];
  /** The records of each side output, under the name it was given. */
  sideOutputs: SideOutputRecords<S>;
}

/** A state time-to-live: milliseconds, or a full TTL configuration. */
export type StateRetention = number | StateTtlConfig;

/** Options of {@link KeyedStream.reduce}. */
export interface ReduceOptions {
  /**
   * Lets the job's REST API read each key's current reduction:
   * `GET /jobs/:id/state/<operator uid>/<key>` (docs/observability.md). Give
   * the step a `uid()`, so the address stays the same across changes to the job.
   */
  readonly queryable?: boolean;
}

/** How an updating aggregation emits and keeps its groups. */
export interface UpdatingAggregateOptions<ACC, IN = never> {
  /**
   * `retract` (default): an update is `-U old` then `+U new`; `upsert`: only
   * `+U new`, keyed by the group key.
   */
  readonly mode?: 'retract' | 'upsert';
  /** Drop a group's state this long after its last change (processing time). Default: kept forever. */
  readonly ttl?: StateRetention;
  /** Encodes the accumulator in checkpoints. Default: the accumulator is JSON data. */
  readonly accumulatorSerializer?: StateSerializer<ACC>;
  /**
   * Encodes the input rows kept in checkpoints when `fn` has no `retract` (over a changelog the
   * operator keeps each group's rows to recompute the result after a retraction). Default:
   * the rows are JSON data.
   */
  readonly rowSerializer?: StateSerializer<IN>;
  /**
   * Mini-batch (Flink's `table.exec.mini-batch.*`): rows still fold into state one by one,
   * but each group's change is emitted once per bundle of up to `size` input rows, at the
   * latest `allowLatencyMs` after the bundle's first row (and at every watermark, checkpoint
   * and the end of input). Fewer, later changes; the same state. Default: a change per row.
   */
  readonly miniBatch?: { readonly size: number; readonly allowLatencyMs: number };
  /**
   * Two-phase aggregation (Flink's local-global GROUP BY): each bundle's records are folded
   * per key before the keyed exchange (a local step that keeps no state), and only the
   * partial accumulators cross it, merged into the group's state after it. Fewer records
   * cross the exchange when keys repeat within a bundle (a hot key most of all). Needs
   * `miniBatch`, `fn.merge` and insert-only input. Default false.
   */
  readonly localAggregation?: boolean;
}

/** How a table view keeps its rows. */
export interface TableViewOptions<T = unknown> {
  /** Forget a key's row this long after its last change (processing time). Default: kept forever. */
  readonly ttl?: StateRetention;
  /** How the kept rows are written to checkpoints; default `Serializers.json()`. */
  readonly serializer?: StateSerializer<T>;
}

/** The row type of a regular join's output: null on the side an outer join pads. */
export type JoinResult<L, R, J extends JoinType> = J extends 'inner'
  ? readonly [L, R]
  : J extends 'left'
    ? readonly [L, R | null]
    : J extends 'right'
      ? readonly [L | null, R]
      : readonly [L | null, R | null];

/** How a regular join matches rows and how long it keeps them. */
export interface RegularJoinOptions<L, R, K extends Key, J extends JoinType> {
  /** `inner` (default), `left`, `right` or `full` (outer). */
  readonly type?: J;
  /** The equality key of a left row. */
  readonly leftKey: (left: L) => K;
  /** The equality key of a right row; rows join when their keys are equal. */
  readonly rightKey: (right: R) => K;
  /** An extra condition on a pair with equal keys (a non-equi part of the ON clause). */
  readonly where?: (left: L, right: R) => boolean;
  /**
   * How long each side's rows are kept after their last change (processing
   * time): one retention for both sides, or one per side. Required unless
   * `unboundedState` is set.
   */
  readonly ttl?:
    | StateRetention
    | { readonly left?: StateRetention; readonly right?: StateRetention };
  /** Keep every row of both sides forever (state grows with the number of distinct rows). */
  readonly unboundedState?: boolean;
  /**
   * For an insert-only side: the event time from which a row of it can match no later row of
   * the other side, because every row of the other side that could match it arrives before the
   * watermark reaches that time. The other side is then typically a window aggregation's
   * results, each emitted when the watermark passed its window's end, and the condition bounds
   * that end by this side's time (SQL: `l.t BETWEEN r.window_end - INTERVAL '10' SECOND AND
   * r.window_end`, where a row of `l` at `t` matches no window ending after `t + 10 s`). The
   * row is dropped once the join's watermark (the lesser of both inputs') has reached its
   * time, by a sweep at most once per second of event time; one that arrives after its time
   * is joined with the rows held but not kept. The output is the same as without, with state
   * bounded by the span of those times. Asserting a time that a later row of the other side
   * can still match loses results (a window with early firings or allowed lateness emits
   * rows of windows the watermark has passed: it does not qualify). Refused for a side that
   * is not insert-only, and in an outer join that pads the other side's rows.
   */
  readonly retainUntil?: {
    readonly left?: (left: L) => number;
    readonly right?: (right: R) => number;
  };
  /**
   * A side's unique key, when no two of its current rows share one and a row's unique key
   * determines its join key (as a GROUP BY's group key does when it contains the join
   * columns): that side's rows are kept one per unique key, and a `+U` replaces the row of
   * its key (what the old row joined is retracted first), so the side needs no `-U`.
   */
  readonly uniqueKeys?: {
    readonly left?: (left: L) => Key;
    readonly right?: (right: R) => Key;
  };
  /**
   * How each side's rows are written to checkpoints; default `Serializers.json()`, so rows
   * holding values JSON has not (bigint, Map, bytes) need one.
   */
  readonly serializers?: {
    readonly left?: StateSerializer<L>;
    readonly right?: StateSerializer<R>;
  };
}

/** How a temporal join finds the table row of a probe row. */
export interface TemporalJoinOptions<P, K extends Key, J extends 'inner' | 'left'> {
  /** The probe row's value of the table's primary key. */
  readonly probeKey: (probe: P) => K;
  /** `inner` (default) drops probe rows without a valid version; `left` keeps them with null. */
  readonly type?: J;
  /**
   * How probe rows waiting for the watermark are written to checkpoints; default
   * `Serializers.json()`. The table's versions use the serializer given to `materialize`.
   */
  readonly probeSerializer?: StateSerializer<P>;
}

/** The output row of a temporal join: the probe row and the table row valid at its time. */
export type TemporalJoinResult<P, B, J extends 'inner' | 'left'> = J extends 'left'
  ? readonly [P, B | null]
  : readonly [P, B];

/** Keep-first by arrival: the only deduplication that never revises what it emitted. */
export interface KeepFirstByArrival {
  readonly keep: 'first';
  readonly order?: 'arrival';
  /** Forget a key this long (ms, processing time) after its first row; its next row counts as new. Default: never. */
  readonly ttl?: number | StateTtlConfig;
}

/** Deduplication that may replace the kept row and so emits changes. */
export interface DeduplicateOptions<T = unknown> {
  readonly keep: KeepRow;
  /** Default `event-time`, except keep-first, whose default is `arrival`. */
  readonly order?: DeduplicateOrder;
  /** `retract` (default): `-U old`, `+U new`; `upsert`: only `+U new`, keyed by the stream's key. */
  readonly mode?: 'retract' | 'upsert';
  /** Forget a key this long (ms, processing time) after its kept row was written. Default: never. */
  readonly ttl?: number | StateTtlConfig;
  /** How the kept row is written to checkpoints; default `Serializers.json()`. */
  readonly serializer?: StateSerializer<T>;
}

/**
 * Deduplication whose state keeps, and whose changes carry, a row written from each record it
 * keeps (a projection of it) rather than the record: less state per key when the record holds
 * more than the output needs. The records' timestamps still order them.
 */
export interface DeduplicateRowsOptions<T, R> extends DeduplicateOptions<R> {
  /** Called once for each record that becomes its key's row (never for one that is dropped). */
  readonly row: (record: T) => R;
}

/** Window deduplication: the first or last record of each window by event time. */
export interface WindowDeduplicateOptions<T> {
  readonly keep: KeepRow;
  /** Records behind every window they belong to go here (they are always counted). */
  readonly lateDataTag?: OutputTag<T>;
  /** The event time that orders a window's records (a row's rowtime column). Default: their timestamps. */
  readonly timeOf?: (record: T) => number;
}

/** Top-N per key: the `n` first rows by `compare`. */
export interface TopNOptions<T> {
  readonly n: number;
  /** Negative when `a` ranks before `b` (e.g. `(a, b) => b.price - a.price` for the highest prices). */
  readonly compare: RankComparator<T>;
  /** Forget a key's ranking this long (ms, processing time) after it last changed. Default: never. */
  readonly ttl?: number | StateTtlConfig;
  /** How ranked rows are written to checkpoints; default `Serializers.json()`. */
  readonly serializer?: StateSerializer<T>;
}

/** Top-N with rank numbers: emits `Ranked` rows. */
export interface RankedTopNOptions<T> extends TopNOptions<T> {
  readonly rankNumber: true;
  /** `retract` (default): `-U old` / `+U new` per moved rank; `upsert`: only `+U new`, keyed by (key, rank). */
  readonly mode?: 'retract' | 'upsert';
}

/**
 * Top-N with rank numbers whose output rows `ranked` writes (a table row with its row number,
 * as the SQL planner's), so that no `Ranked` object is made per change.
 */
export interface RankedRowsTopNOptions<T, R> extends RankedTopNOptions<T> {
  readonly ranked: (row: T, rank: number) => R;
}

/** Window Top-N: the final `n` first rows of each window. */
export interface WindowTopNOptions<T> {
  readonly n: number;
  readonly compare: RankComparator<T>;
  /** Records behind every window they belong to go here (they are always counted). */
  readonly lateDataTag?: OutputTag<T>;
}

/** How main records meet the broadcast side table. */
interface BroadcastJoinBase<T, S, BK extends Key> {
  /** The table key a main record looks up. */
  readonly mainKey: (main: T) => BK;
  /** The key of a side row in the table (a later row with the same key replaces it). */
  readonly sideKey: (side: S) => BK;
  /**
   * Hold main records (and the watermark) until the side input has ended, so
   * every main record sees the complete table. Default: true when every
   * source of the side stream is bounded, false otherwise (main records then
   * join the table as it is when they arrive).
   */
  readonly waitForSide?: boolean;
}

/** Inner: a main record without a side row produces nothing. */
export interface InnerBroadcastJoinOptions<T, S, BK extends Key, OUT>
  extends BroadcastJoinBase<T, S, BK> {
  readonly kind?: 'inner';
  readonly join: (main: T, side: S) => OUT;
}

/** Left: a main record without a side row is joined with `undefined`. */
export interface LeftBroadcastJoinOptions<T, S, BK extends Key, OUT>
  extends BroadcastJoinBase<T, S, BK> {
  readonly kind: 'left';
  readonly join: (main: T, side: S | undefined) => OUT;
}

/** How `broadcastJoin` joins main records with the side table: inner or left. */
export type BroadcastJoinOptions<T, S, BK extends Key, OUT> =
  | InnerBroadcastJoinOptions<T, S, BK, OUT>
  | LeftBroadcastJoinOptions<T, S, BK, OUT>;
