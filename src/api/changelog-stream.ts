import {
  type Change,
  type ChangelogMode,
  type GroupResult,
  type RetractableAggregateFunction,
  widestChangelog,
} from '../core/changelog.js';
import { describeRecord, invalidArgument, WeirError } from '../core/errors.js';
import type { Key } from '../core/key-groups.js';
import type { StateSerializer, StateTtlConfig } from '../core/state.js';
import type { WindowResult } from '../core/window-result.js';
import type { NodeData } from '../plan/logical/logical-graph.js';
import type { FlatMapNode, MapNode, UpdatingAggregateNode } from '../plan/logical/nodes.js';
import type { JoinType, RegularJoinSpec, ViewOutput } from '../plan/logical/specs.js';
import { addNode, DataStream, keyedBy, type StreamBuilder, type StreamRef } from './data-stream.js';

/** A state time-to-live: milliseconds, or a full TTL configuration. */
export type StateRetention = number | StateTtlConfig;

/** How an updating aggregation emits and keeps its groups. */
export interface UpdatingAggregateOptions<ACC> {
  /**
   * `retract` (default): an update is `-U old` then `+U new`; `upsert`: only
   * `+U new`, keyed by the group key.
   */
  readonly mode?: 'retract' | 'upsert';
  /** Drop a group's state this long after its last change (processing time). Default: kept forever. */
  readonly ttl?: StateRetention;
  /** Encodes the accumulator in checkpoints. Default: the accumulator is JSON data. */
  readonly accumulatorSerializer?: StateSerializer<ACC>;
}

/** How a table view keeps its rows. */
export interface TableViewOptions {
  /** Forget a key's row this long after its last change (processing time). Default: kept forever. */
  readonly ttl?: StateRetention;
}

function ttlConfig(
  retention: StateRetention | undefined,
  what: string,
): StateTtlConfig | undefined {
  if (retention === undefined) return undefined;
  const config = typeof retention === 'number' ? { ttlMs: retention } : retention;
  if (!Number.isFinite(config?.ttlMs) || config.ttlMs <= 0) {
    throw invalidArgument(
      `${what}: ttl must be a positive number of milliseconds, got ${describeRecord(retention)}`,
    );
  }
  return config;
}

/** @internal Adds a keyed node whose main output is a changelog (or plain records). */
function keyedNode(
  builder: StreamBuilder,
  refs: readonly StreamRef[],
  selectKey: (value: never) => Key,
  keyName: string,
  name: string,
  data: NodeData,
  changelog: ChangelogMode | undefined,
): StreamRef[] {
  return addNode(builder, data, name, refs, keyedBy(selectKey, keyName), {
    keyed: true,
    stateful: true,
    changelog,
  }).refs.slice();
}

/** @internal Adds a forward node declaring what its output carries. */
function forwardNode(
  builder: StreamBuilder,
  refs: readonly StreamRef[],
  name: string,
  data: NodeData,
  changelog: ChangelogMode | undefined,
): StreamRef[] {
  return addNode(builder, data, name, refs, { kind: 'forward' }, { changelog }).refs.slice();
}

function checkAggregate(fn: RetractableAggregateFunction<never, never, never>): void {
  if (
    typeof fn?.createAccumulator !== 'function' ||
    typeof fn.add !== 'function' ||
    typeof fn.getResult !== 'function'
  ) {
    throw invalidArgument(
      'updatingAggregate() needs an object with createAccumulator, add and getResult (and retract, for changelog input)',
    );
  }
}

/**
 * A stream of changes (`+I`, `-U`, `+U`, `-D`) to rows of type T: the output
 * of updating operators, or a stream declared as one. Its mode
 * (`insert-only`, `upsert`, `retract`) says which kinds it may carry; row
 * transformations keep the mode, and sinks refuse a mode they cannot apply
 * when the job is built.
 */
export class ChangelogStream<T> extends DataStream<Change<T>> {
  /** @internal */
  constructor(
    builder: StreamBuilder,
    refs: readonly StreamRef[],
    /** The key an `upsert` stream's changes replace rows by; undefined for other modes. */
    readonly upsertKey: ((row: T) => Key) | undefined,
  ) {
    super(builder, refs);
  }

  /** Which changes this stream may carry. */
  get mode(): ChangelogMode {
    return this.changelogMode();
  }

  private derived<R>(
    refs: StreamRef[],
    upsertKey: ((row: R) => Key) | undefined,
  ): ChangelogStream<R> {
    return new ChangelogStream<R>(this.builder, refs, upsertKey);
  }

  /** Keeps the changes `predicate` accepts, as a changelog of the same mode; a type guard on the rows narrows it. */
  override filter<S extends T>(
    predicate: (change: Change<T>) => change is Change<S>,
  ): ChangelogStream<S>;
  override filter(predicate: (change: Change<T>) => boolean): ChangelogStream<T>;
  override filter(predicate: (change: Change<T>) => boolean): ChangelogStream<T> {
    const refs = forwardNode(
      this.builder,
      this.refs,
      'filter',
      { kind: 'filter', predicate },
      this.mode,
    );
    return this.derived(refs, this.upsertKey);
  }

  /**
   * Keeps the rows `predicate` accepts (a WHERE over the changing rows): in a
   * retract stream every change of a rejected row is dropped; in an upsert
   * stream a rejected `+I`/`+U` becomes a `-D` of that row, so a row that
   * stops matching leaves the result.
   */
  filterRows(predicate: (row: T) => boolean): ChangelogStream<T> {
    const mode = this.mode;
    const keepRows = (change: Change<T>, out: { collect(change: Change<T>): void }) => {
      if (predicate(change.value)) out.collect(change);
      else if (mode === 'upsert' && (change.kind === '+I' || change.kind === '+U')) {
        out.collect({ kind: '-D', value: change.value });
      }
    };
    const refs = forwardNode(
      this.builder,
      this.refs,
      'filter rows',
      { kind: 'flat-map', fn: keepRows as FlatMapNode['fn'] },
      mode,
    );
    return this.derived(refs, this.upsertKey);
  }

  /**
   * Maps every change's row, keeping its kind and the stream's mode. An
   * upsert stream needs the key of the new rows (`upsertKey`).
   */
  mapRows<R>(fn: (row: T) => R, upsertKey?: (row: R) => Key): ChangelogStream<R> {
    const mode = this.mode;
    if (mode === 'upsert' && upsertKey === undefined) {
      throw invalidArgument(
        'mapRows() on an upsert changelog needs the upsert key of the mapped rows: mapRows(fn, (row) => row.id)',
      );
    }
    const mapRow = (c: Change<T>): Change<R> => ({ kind: c.kind, value: fn(c.value) });
    const refs = forwardNode(
      this.builder,
      this.refs,
      'map rows',
      { kind: 'map', fn: mapRow as MapNode['fn'] },
      mode,
    );
    return this.derived(refs, mode === 'upsert' ? upsertKey : undefined);
  }

  /** Merges changelogs (and insert-only streams of changes); the mode is the widest of them. */
  override union(...others: DataStream<Change<T>>[]): ChangelogStream<T> {
    let upsertKey = this.upsertKey;
    for (const o of others) if (o instanceof ChangelogStream) upsertKey ??= o.upsertKey;
    return this.derived([...this.refs, ...others.flatMap((o) => o.refs)], upsertKey);
  }

  /**
   * @internal This changelog as one that retracts what it replaces: an
   * upsert stream's `+U` overwrites a row without retracting it, so operators
   * that add and remove rows (aggregations, joins) first pass it through a
   * view keyed by the upsert key (Flink's changelog normalization).
   */
  retractable(what: string): ChangelogStream<T> {
    if (this.mode !== 'upsert') return this;
    if (this.upsertKey === undefined) {
      throw new WeirError(
        'INVALID_JOB',
        `${what} over an upsert changelog needs its upsert key, and this stream has none; declare it with asChangelog('upsert', (row) => row.id)`,
      );
    }
    return this.materialize(this.upsertKey).toRetractStream();
  }

  /**
   * A regular (unbounded) join with `right` on equal keys, like SQL's
   * `JOIN ... ON l.k = r.k [AND where]`: every change of either input is
   * joined with the other input's current rows of its key, kept in keyed
   * state (checkpointed) for the TTL. Emits `+I [l, r]` when a joined row
   * appears and `-D [l, r]` when it goes; outer joins pad a row without a
   * match with null (`+I [l, null]`), retract that (`-D [l, null]`) when the
   * first match arrives, and restore it when the last match goes. The output
   * is a retract changelog (insert-only for an inner join of insert-only
   * inputs); its event time is the later of the two rows' times, and its
   * watermark the minimum of both inputs'. Refused without a TTL or
   * `unboundedState: true`.
   */
  regularJoin<R, K extends Key, J extends JoinType = 'inner'>(
    right: ChangelogStream<R>,
    options: RegularJoinOptions<T, R, K, J>,
  ): ChangelogStream<JoinResult<T, R, J>> {
    const type: JoinType = options?.type ?? 'inner';
    if (!['inner', 'left', 'right', 'full'].includes(type)) {
      throw invalidArgument(
        `regularJoin() type must be 'inner', 'left', 'right' or 'full', got ${describeRecord(type)}`,
      );
    }
    const { leftKey, rightKey, where } = options;
    if (typeof leftKey !== 'function' || typeof rightKey !== 'function') {
      throw invalidArgument(
        'regularJoin() needs leftKey and rightKey functions, e.g. { leftKey: (l) => l.id, rightKey: (r) => r.id }',
      );
    }
    if (where !== undefined && typeof where !== 'function') {
      throw invalidArgument('regularJoin() where must be a function (left, right) => boolean');
    }
    const ttls = joinTtls(options as unknown as RegularJoinOptions<never, never, Key, JoinType>);
    const spec = {
      type,
      where,
      leftTtl: ttls.left,
      rightTtl: ttls.right,
      leftInsertOnly: this.mode === 'insert-only',
      rightInsertOnly: right.mode === 'insert-only',
    };
    const insertOnly =
      type === 'inner' && this.mode === 'insert-only' && right.mode === 'insert-only';
    const leftInput = this.retractable('regularJoin()');
    const rightInput = right.retractable('regularJoin()');
    const joined = leftInput.addTwoInputNode<never>(
      { kind: 'regular-join', spec: spec as RegularJoinSpec<unknown, unknown> },
      `regular ${type} join`,
      rightInput,
      [
        keyedBy((c: Change<T>) => leftKey(c.value), 'leftKey'),
        keyedBy((c: Change<R>) => rightKey(c.value), 'rightKey'),
      ],
      { keyed: true, stateful: true, changelog: insertOnly ? 'insert-only' : 'retract' },
    );
    return new ChangelogStream<JoinResult<T, R, J>>(this.builder, joined.refs, undefined);
  }

  /** Groups the changing rows by key, for an updating aggregation. */
  groupBy<K extends Key>(selectKey: (row: T) => K, name = 'groupBy'): GroupedChangelogStream<T, K> {
    return new GroupedChangelogStream(this, selectKey, name);
  }

  /**
   * The latest row per primary key, kept in keyed state (checkpointed): read
   * it back as a stream with `toUpsertStream`, `toRetractStream` or (for an
   * append-only input) `toInsertStream`.
   */
  materialize<K extends Key>(
    primaryKey: (row: T) => K,
    options: TableViewOptions = {},
  ): TableView<T, K> {
    if (typeof primaryKey !== 'function') {
      throw invalidArgument('materialize() needs a primary key function, e.g. (row) => row.id');
    }
    return new TableView(this, primaryKey, ttlConfig(options.ttl, 'materialize()'));
  }
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
}

function joinTtls(options: RegularJoinOptions<never, never, Key, JoinType>): {
  left: StateTtlConfig | undefined;
  right: StateTtlConfig | undefined;
} {
  const ttl = options.ttl;
  const perSide =
    ttl !== undefined && typeof ttl === 'object' && !('ttlMs' in ttl)
      ? (ttl as { left?: StateRetention; right?: StateRetention })
      : { left: ttl as StateRetention | undefined, right: ttl as StateRetention | undefined };
  const left = ttlConfig(perSide.left, 'regularJoin() left');
  const right = ttlConfig(perSide.right, 'regularJoin() right');
  if (options.unboundedState !== true && (left === undefined || right === undefined)) {
    const missing =
      left === undefined && right === undefined
        ? 'both inputs'
        : left === undefined
          ? 'the left input'
          : 'the right input';
    throw new WeirError(
      'INVALID_JOB',
      `regularJoin() keeps every row of its inputs in state, and no state TTL is set for ${missing}: set ttl (e.g. { ttl: 3_600_000 } or { ttl: { left: ..., right: ... } }), or unboundedState: true to keep rows forever`,
    );
  }
  return { left, right };
}

/** A changelog grouped by a key: the input of an updating aggregation. */
export class GroupedChangelogStream<T, K extends Key> {
  /** @internal */
  constructor(
    private readonly input: ChangelogStream<T>,
    private readonly selectKey: (row: T) => K,
    private readonly keyName: string,
  ) {}

  /**
   * A non-windowed GROUP BY over a changelog: `+I`/`+U` rows are added to
   * their group, `-U`/`-D` rows taken out again (with `fn.retract`, or by
   * recomputing from the rows the operator keeps when `fn` has none).
   * Emits the group's result as changes; see {@link KeyedStream.updatingAggregate}.
   */
  updatingAggregate<ACC, R>(
    fn: RetractableAggregateFunction<T, ACC, R>,
    options: UpdatingAggregateOptions<ACC> = {},
  ): ChangelogStream<GroupResult<K, R>> {
    const select = this.selectKey;
    const input = this.input.retractable('updatingAggregate()');
    return changelogApi.updatingAggregate<Change<T>, T, K, ACC, R>(
      input.builder,
      input.refs,
      (c) => select(c.value),
      this.keyName,
      fn,
      options,
      true,
    );
  }
}

/**
 * A keyed table view over a changelog: the latest row per primary key.
 * Each `to...Stream` call adds a view operator (state keyed by the primary
 * key) that emits how the view changes.
 */
export class TableView<T, K extends Key> {
  /** @internal */
  constructor(
    /** @internal */
    readonly input: ChangelogStream<T>,
    /** The primary key of the view's rows. */
    readonly primaryKey: (row: T) => K,
    private readonly ttl: StateTtlConfig | undefined,
  ) {}

  private stream(output: ViewOutput): StreamRef[] {
    const pk = this.primaryKey;
    const ttl = this.ttl;
    return keyedNode(
      this.input.builder,
      this.input.refs,
      ((c: Change<T>) => pk(c.value)) as (value: never) => Key,
      'primary key',
      `table view (${output})`,
      { kind: 'table-view', output, ttl },
      output === 'insert-only' ? undefined : output,
    );
  }

  /** The view's changes as upserts on the primary key: `+I`, `+U` (new row), `-D`. */
  toUpsertStream(): ChangelogStream<T> {
    return new ChangelogStream<T>(this.input.builder, this.stream('upsert'), this.primaryKey);
  }

  /** The view's changes with retractions: `+I`, `-U` old then `+U` new, `-D`. */
  toRetractStream(): ChangelogStream<T> {
    return new ChangelogStream<T>(this.input.builder, this.stream('retract'), undefined);
  }

  /**
   * The view's rows as plain records: only for an append-only (insert-only)
   * input, refused when the job is built otherwise. A second row for a key
   * fails the job, naming the key.
   */
  toInsertStream(): DataStream<T> {
    const mode = this.input.mode;
    if (mode !== 'insert-only') {
      throw new WeirError(
        'INVALID_JOB',
        `toInsertStream() needs an append-only view, but its input is a ${mode} changelog (rows are updated or deleted); use toUpsertStream() or toRetractStream()`,
      );
    }
    return new DataStream<T>(this.input.builder, this.stream('insert-only'));
  }
}

/** How a temporal join finds the table row of a probe row. */
export interface TemporalJoinOptions<P, K extends Key, J extends 'inner' | 'left'> {
  /** The probe row's value of the table's primary key. */
  readonly probeKey: (probe: P) => K;
  /** `inner` (default) drops probe rows without a valid version; `left` keeps them with null. */
  readonly type?: J;
}

/** The output row of a temporal join: the probe row and the table row valid at its time. */
export type TemporalJoinResult<P, B, J extends 'inner' | 'left'> = J extends 'left'
  ? readonly [P, B | null]
  : readonly [P, B];

/** @internal Builds changelog operators for streams; reached through the environment, so data-stream.ts needs no value import of this module. */
export const changelogApi = {
  toChangelog<T>(stream: DataStream<T>): ChangelogStream<T> {
    const refs = forwardNode(
      stream.builder,
      stream.refs,
      'to changelog',
      { kind: 'to-changelog' },
      'insert-only',
    );
    return new ChangelogStream<T>(stream.builder, refs, undefined);
  },

  asChangelog<T>(
    stream: DataStream<Change<T>>,
    mode: ChangelogMode,
    upsertKey: ((row: T) => Key) | undefined,
  ): ChangelogStream<T> {
    if (mode !== 'insert-only' && mode !== 'upsert' && mode !== 'retract') {
      throw invalidArgument(
        `asChangelog() needs a mode of 'insert-only', 'upsert' or 'retract', got ${describeRecord(mode)}`,
      );
    }
    if (mode === 'upsert' && typeof upsertKey !== 'function') {
      throw invalidArgument(
        "asChangelog('upsert') needs the upsert key: asChangelog('upsert', (row) => row.id)",
      );
    }
    const refs = forwardNode(
      stream.builder,
      stream.refs,
      `changelog (${mode})`,
      { kind: 'as-changelog', mode },
      mode,
    );
    return new ChangelogStream<T>(stream.builder, refs, mode === 'upsert' ? upsertKey : undefined);
  },

  updatingAggregate<IN, ROW, K extends Key, ACC, R>(
    builder: StreamBuilder,
    refs: readonly StreamRef[],
    selectKey: (value: IN) => K,
    keyName: string,
    fn: RetractableAggregateFunction<ROW, ACC, R>,
    options: UpdatingAggregateOptions<ACC>,
    changelogInput: boolean,
  ): ChangelogStream<GroupResult<K, R>> {
    checkAggregate(fn as RetractableAggregateFunction<never, never, never>);
    const inputMode = widestChangelog(
      refs.map((r) => (r.tag === undefined ? builder.graph.changelogOf(r.node) : 'insert-only')),
    );
    if (!changelogInput && inputMode !== 'insert-only') {
      throw new WeirError(
        'INVALID_JOB',
        `updatingAggregate() after keyBy() of a ${inputMode} changelog would fold its changes in as plain records; use changelog.groupBy((row) => key).updatingAggregate(fn), which retracts -U and -D rows`,
      );
    }
    const mode = options.mode ?? 'retract';
    if (mode !== 'retract' && mode !== 'upsert') {
      throw invalidArgument(
        `updatingAggregate() mode must be 'retract' or 'upsert', got ${describeRecord(mode)}`,
      );
    }
    const ttl = ttlConfig(options.ttl, 'updatingAggregate()');
    const spec = {
      fn,
      changelogInput,
      mode,
      ttl,
      accumulatorSerializer: options.accumulatorSerializer,
    };
    const out = keyedNode(
      builder,
      refs,
      selectKey as (value: never) => Key,
      keyName,
      'updating aggregate',
      { kind: 'updating-aggregate', spec: spec as unknown as UpdatingAggregateNode['spec'] },
      mode,
    );
    return new ChangelogStream<GroupResult<K, R>>(
      builder,
      out,
      mode === 'upsert' ? (r) => r.key : undefined,
    );
  },

  temporalJoin<P, B, K extends Key, J extends 'inner' | 'left'>(
    probe: DataStream<P>,
    table: TableView<B, K>,
    options: TemporalJoinOptions<P, K, J>,
  ): DataStream<TemporalJoinResult<P, B, J>> {
    if (!(table instanceof TableView)) {
      throw invalidArgument(
        'temporalJoin() needs a versioned table: changelog.materialize((row) => row.primaryKey)',
      );
    }
    const probeKey = options?.probeKey;
    if (typeof probeKey !== 'function') {
      throw invalidArgument(
        "temporalJoin() needs probeKey, the probe row's value of the table's primary key: { probeKey: (p) => p.currency }",
      );
    }
    const type = options.type ?? 'inner';
    if (type !== 'inner' && type !== 'left') {
      throw invalidArgument(
        `temporalJoin() type must be 'inner' or 'left', got ${describeRecord(type)}`,
      );
    }
    const pk = table.primaryKey;
    return probe.addTwoInputNode<TemporalJoinResult<P, B, J>>(
      { kind: 'temporal-join', joinType: type },
      `temporal ${type} join`,
      table.input,
      [keyedBy(probeKey, 'probeKey'), keyedBy((c: Change<B>) => pk(c.value), 'primaryKey')],
      { keyed: true, stateful: true },
    );
  },

  windowChangelog<K extends Key, R>(
    results: DataStream<WindowResult<K, R>>,
    allowedLateness: number,
    mode: 'retract' | 'upsert',
  ): ChangelogStream<WindowResult<K, R>> {
    if (mode !== 'retract' && mode !== 'upsert') {
      throw invalidArgument(
        `a window changelog's mode must be 'retract' or 'upsert', got ${describeRecord(mode)}`,
      );
    }
    const refs = keyedNode(
      results.builder,
      results.refs,
      ((r: WindowResult<K, R>) => r.key) as (value: never) => Key,
      'window key',
      `window changelog (${mode})`,
      { kind: 'window-changelog', mode, allowedLateness },
      mode,
    );
    return new ChangelogStream<WindowResult<K, R>>(
      results.builder,
      refs,
      mode === 'upsert' ? (r) => `${String(r.key)}@${r.window.start}:${r.window.end}` : undefined,
    );
  },
};

/** @internal */
export type ChangelogApi = typeof changelogApi;
