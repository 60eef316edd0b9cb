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
import { DataStreamImpl } from './data-stream.js';
import { implOf } from './impl-of.js';
import type {
  JoinResult,
  RegularJoinOptions,
  StateRetention,
  TableViewOptions,
  TemporalJoinOptions,
  TemporalJoinResult,
  UpdatingAggregateOptions,
} from './options.js';
import {
  addNodeRefs,
  addTwoInputNode,
  addTwoInputNodeRefs,
  keyedBy,
  type StreamBuilder,
  type StreamFactory,
  type StreamParts,
  type StreamRef,
} from './stream-builder.js';
import type { ChangelogStream, DataStream, GroupedChangelogStream, TableView } from './streams.js';

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

/** Adds a keyed node whose main output is a changelog (or plain records). */
function keyedNode(
  input: StreamParts,
  selectKey: (value: never) => Key,
  keyName: string,
  name: string,
  data: NodeData,
  changelog: ChangelogMode | undefined,
): StreamRef[] {
  return addNodeRefs(input.builder, data, name, input.refs, keyedBy(selectKey, keyName), {
    keyed: true,
    stateful: true,
    changelog,
  });
}

/** Adds a forward node declaring what its output carries. */
function forwardNode(
  input: StreamParts,
  name: string,
  data: NodeData,
  changelog: ChangelogMode | undefined,
): StreamRef[] {
  return addNodeRefs(input.builder, data, name, input.refs, { kind: 'forward' }, { changelog });
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

/** The implementation of {@link ChangelogStream}: a data stream of changes that knows its mode. */
export class ChangelogStreamImpl<T>
  extends DataStreamImpl<Change<T>>
  implements ChangelogStream<T>
{
  constructor(
    builder: StreamBuilder,
    refs: readonly StreamRef[],
    readonly upsertKey: ((row: T) => Key) | undefined,
  ) {
    super(builder, refs);
  }

  get mode(): ChangelogMode {
    return this.changelogMode();
  }

  private derived<R>(
    refs: readonly StreamRef[],
    upsertKey: ((row: R) => Key) | undefined,
  ): ChangelogStreamImpl<R> {
    return new ChangelogStreamImpl<R>(this.builder, refs, upsertKey);
  }

  override filter<R extends T>(
    predicate: (change: Change<T>) => change is Change<R>,
  ): ChangelogStream<R>;
  override filter<S extends Change<T>>(predicate: (value: Change<T>) => value is S): DataStream<S>;
  override filter(predicate: (change: Change<T>) => boolean): ChangelogStream<T>;
  override filter(predicate: (change: Change<T>) => boolean): ChangelogStream<T> {
    const refs = forwardNode(this, 'filter', { kind: 'filter', predicate }, this.mode);
    return this.derived(refs, this.upsertKey);
  }

  filterRows(predicate: (row: T) => boolean): ChangelogStream<T> {
    const mode = this.mode;
    // In an upsert stream a delete passes whatever its row: it may hold only the key (a
    // tombstone), and deleting a key that was filtered out before changes nothing.
    const keepRows = (change: Change<T>, out: { collect(change: Change<T>): void }) => {
      if (mode === 'upsert' && change.kind === '-D') out.collect(change);
      else if (predicate(change.value)) out.collect(change);
      else if (mode === 'upsert' && (change.kind === '+I' || change.kind === '+U')) {
        out.collect({ kind: '-D', value: change.value });
      }
    };
    const refs = forwardNode(
      this,
      'filter rows',
      { kind: 'flat-map', fn: keepRows as FlatMapNode['fn'] },
      mode,
    );
    return this.derived(refs, this.upsertKey);
  }

  mapRows<R>(fn: (row: T) => R, upsertKey?: (row: R) => Key): ChangelogStream<R> {
    const mode = this.mode;
    if (mode === 'upsert' && upsertKey === undefined) {
      throw invalidArgument(
        'mapRows() on an upsert changelog needs the upsert key of the mapped rows: mapRows(fn, (row) => row.id)',
      );
    }
    const mapRow = (c: Change<T>): Change<R> => ({ kind: c.kind, value: fn(c.value) });
    const refs = forwardNode(this, 'map rows', { kind: 'map', fn: mapRow as MapNode['fn'] }, mode);
    return this.derived(refs, mode === 'upsert' ? upsertKey : undefined);
  }

  override union(...others: DataStream<Change<T>>[]): ChangelogStream<T> {
    let upsertKey = this.upsertKey;
    const refs = [...this.refs];
    for (const other of others) {
      const o = implOf(other, DataStreamImpl, 'union');
      if (o instanceof ChangelogStreamImpl) upsertKey ??= (o as ChangelogStreamImpl<T>).upsertKey;
      refs.push(...o.refs);
    }
    return this.derived(refs, upsertKey);
  }

  /**
   * This changelog as one that retracts what it replaces: an upsert stream's
   * `+U` overwrites a row without retracting it, so operators that add and
   * remove rows (aggregations, joins) first pass it through a view keyed by
   * the upsert key (Flink's changelog normalization).
   */
  retractable(what: string): ChangelogStreamImpl<T> {
    if (this.mode !== 'upsert') return this;
    if (this.upsertKey === undefined) {
      throw new WeirError(
        'INVALID_JOB',
        `${what} over an upsert changelog needs its upsert key, and this stream has none; declare it with asChangelog('upsert', (row) => row.id)`,
      );
    }
    return new TableViewImpl(this, this.upsertKey, undefined).view('retract');
  }

  regularJoin<R, K extends Key, J extends JoinType = 'inner'>(
    right: ChangelogStream<R>,
    options: RegularJoinOptions<T, R, K, J>,
  ): ChangelogStream<JoinResult<T, R, J>> {
    const rightStream = implOf(right, ChangelogStreamImpl, 'regularJoin') as ChangelogStreamImpl<R>;
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
    const retainUntil = options.retainUntil ?? {};
    for (const [side, fn, mode] of [
      ['left', retainUntil.left, this.mode],
      ['right', retainUntil.right, rightStream.mode],
    ] as const) {
      if (fn === undefined) continue;
      if (typeof fn !== 'function')
        throw invalidArgument(
          `regularJoin() retainUntil.${side} must be a function (row) => number`,
        );
      // A retraction must find the row it retracts: only appended rows may be dropped.
      if (mode !== 'insert-only')
        throw invalidArgument(
          `regularJoin() retainUntil.${side} needs an insert-only ${side} input; it is ${mode}`,
        );
      // The other side's padded rows are judged by the rows of this side held: all must stay.
      const otherOuter = side === 'left' ? 'right' : 'left';
      if (type === otherOuter || type === 'full')
        throw invalidArgument(
          `regularJoin() retainUntil.${side} is for an inner or ${side} join (a ${type} join pads the ${otherOuter} rows by the ${side} rows it holds)`,
        );
    }
    const spec = {
      type,
      where,
      leftTtl: ttls.left,
      rightTtl: ttls.right,
      leftInsertOnly: this.mode === 'insert-only',
      rightInsertOnly: rightStream.mode === 'insert-only',
      ...(options.uniqueKeys?.left === undefined ? {} : { leftUniqueKey: options.uniqueKeys.left }),
      ...(options.uniqueKeys?.right === undefined
        ? {}
        : { rightUniqueKey: options.uniqueKeys.right }),
      ...(options.serializers?.left === undefined
        ? {}
        : { leftSerializer: options.serializers.left }),
      ...(options.serializers?.right === undefined
        ? {}
        : { rightSerializer: options.serializers.right }),
      ...(retainUntil.left === undefined ? {} : { leftRetainUntil: retainUntil.left }),
      ...(retainUntil.right === undefined ? {} : { rightRetainUntil: retainUntil.right }),
    };
    const insertOnly =
      type === 'inner' && this.mode === 'insert-only' && rightStream.mode === 'insert-only';
    const leftInput = this.retractable('regularJoin()');
    const rightInput = rightStream.retractable('regularJoin()');
    const refs = addTwoInputNodeRefs(
      leftInput,
      rightInput,
      { kind: 'regular-join', spec: spec as RegularJoinSpec<unknown, unknown> },
      `regular ${type} join`,
      [
        keyedBy((c: Change<T>) => leftKey(c.value), 'leftKey'),
        keyedBy((c: Change<R>) => rightKey(c.value), 'rightKey'),
      ],
      { keyed: true, stateful: true, changelog: insertOnly ? 'insert-only' : 'retract' },
    );
    return new ChangelogStreamImpl<JoinResult<T, R, J>>(this.builder, refs, undefined);
  }

  groupBy<K extends Key>(selectKey: (row: T) => K, name = 'groupBy'): GroupedChangelogStream<T, K> {
    return new GroupedChangelogStreamImpl(this, selectKey, name);
  }

  materialize<K extends Key>(
    primaryKey: (row: T) => K,
    options: TableViewOptions<T> = {},
  ): TableView<T, K> {
    if (typeof primaryKey !== 'function') {
      throw invalidArgument('materialize() needs a primary key function, e.g. (row) => row.id');
    }
    return new TableViewImpl(
      this,
      primaryKey,
      ttlConfig(options.ttl, 'materialize()'),
      options.serializer,
    );
  }
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

/** The implementation of {@link GroupedChangelogStream}: a changelog and its grouping key. */
class GroupedChangelogStreamImpl<T, K extends Key> implements GroupedChangelogStream<T, K> {
  constructor(
    private readonly input: ChangelogStreamImpl<T>,
    private readonly selectKey: (row: T) => K,
    private readonly keyName: string,
  ) {}

  updatingAggregate<ACC, R>(
    fn: RetractableAggregateFunction<T, ACC, R>,
    options: UpdatingAggregateOptions<ACC, T> = {},
  ): ChangelogStream<GroupResult<K, R>> {
    const select = this.selectKey;
    const input = this.input.retractable('updatingAggregate()');
    return updatingAggregate<Change<T>, T, K, ACC, R>(
      input,
      (c) => select(c.value),
      this.keyName,
      fn,
      options,
      true,
    );
  }
}

/** The implementation of {@link TableView}: a changelog and its primary key. */
export class TableViewImpl<T, K extends Key> implements TableView<T, K> {
  constructor(
    readonly input: ChangelogStreamImpl<T>,
    readonly primaryKey: (row: T) => K,
    private readonly ttl: StateTtlConfig | undefined,
    /** How the view's rows are checkpointed (also a temporal join's versions); default JSON. */
    readonly serializer?: StateSerializer<T>,
  ) {}

  private stream(output: ViewOutput): StreamRef[] {
    const pk = this.primaryKey;
    const ttl = this.ttl;
    const serializer = this.serializer as StateSerializer<unknown> | undefined;
    return keyedNode(
      this.input,
      ((c: Change<T>) => pk(c.value)) as (value: never) => Key,
      'primary key',
      `table view (${output})`,
      { kind: 'table-view', output, ttl, ...(serializer === undefined ? {} : { serializer }) },
      output === 'insert-only' ? undefined : output,
    );
  }

  /** The view's changes as a changelog of `mode`, keyed by the primary key when it upserts. */
  view(mode: 'upsert' | 'retract'): ChangelogStreamImpl<T> {
    const upsertKey = mode === 'upsert' ? this.primaryKey : undefined;
    return new ChangelogStreamImpl<T>(this.input.builder, this.stream(mode), upsertKey);
  }

  toUpsertStream(): ChangelogStream<T> {
    return this.view('upsert');
  }

  toRetractStream(): ChangelogStream<T> {
    return this.view('retract');
  }

  toInsertStream(): DataStream<T> {
    const mode = this.input.mode;
    if (mode !== 'insert-only') {
      throw new WeirError(
        'INVALID_JOB',
        `toInsertStream() needs an append-only view, but its input is a ${mode} changelog (rows are updated or deleted); use toUpsertStream() or toRetractStream()`,
      );
    }
    return new DataStreamImpl<T>(this.input.builder, this.stream('insert-only'));
  }
}

function miniBatchConfig(
  miniBatch: UpdatingAggregateOptions<unknown>['miniBatch'],
): UpdatingAggregateOptions<unknown>['miniBatch'] {
  if (miniBatch === undefined) return undefined;
  const { size, allowLatencyMs } = miniBatch ?? {};
  if (
    !Number.isInteger(size) ||
    size <= 0 ||
    !Number.isFinite(allowLatencyMs) ||
    allowLatencyMs <= 0
  ) {
    throw invalidArgument(
      `updatingAggregate(): miniBatch needs a positive integer size and a positive allowLatencyMs, got ${describeRecord(miniBatch)}`,
    );
  }
  return { size, allowLatencyMs };
}

/** What two-phase aggregation needs: bundles to fold, accumulators to merge, rows that never change. */
function checkLocalAggregation(
  fn: RetractableAggregateFunction<never, never, unknown>,
  miniBatch: UpdatingAggregateOptions<unknown>['miniBatch'],
  changelogInput: boolean,
): void {
  const missing =
    miniBatch === undefined
      ? 'miniBatch (the bundles it folds)'
      : typeof fn.merge !== 'function'
        ? 'fn.merge (to combine partial accumulators)'
        : changelogInput
          ? 'insert-only input (a changelog is grouped with retractions, which partials cannot carry)'
          : undefined;
  if (missing !== undefined)
    throw invalidArgument(`updatingAggregate(): localAggregation needs ${missing}`);
}

/** `KeyedStream.updatingAggregate` and `GroupedChangelogStream.updatingAggregate`. */
function updatingAggregate<IN, ROW, K extends Key, ACC, R>(
  input: StreamParts,
  selectKey: (value: IN) => K,
  keyName: string,
  fn: RetractableAggregateFunction<ROW, ACC, R>,
  options: UpdatingAggregateOptions<ACC, ROW>,
  changelogInput: boolean,
): ChangelogStream<GroupResult<K, R>> {
  checkAggregate(fn as RetractableAggregateFunction<never, never, never>);
  const { builder, refs } = input;
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
  const miniBatch = miniBatchConfig(options.miniBatch);
  const twoPhase = options.localAggregation === true;
  if (twoPhase)
    checkLocalAggregation(
      fn as RetractableAggregateFunction<never, never, unknown>,
      miniBatch,
      changelogInput,
    );
  const spec = {
    fn,
    changelogInput,
    mode,
    ttl,
    accumulatorSerializer: options.accumulatorSerializer,
    rowSerializer: options.rowSerializer,
    ...(miniBatch === undefined ? {} : { miniBatch }),
    ...(twoPhase ? { twoPhase } : {}),
  };
  const out = keyedNode(
    input,
    selectKey as (value: never) => Key,
    keyName,
    'updating aggregate',
    { kind: 'updating-aggregate', spec: spec as unknown as UpdatingAggregateNode['spec'] },
    mode,
  );
  return new ChangelogStreamImpl<GroupResult<K, R>>(
    builder,
    out,
    mode === 'upsert' ? (r) => r.key : undefined,
  );
}

/**
 * The changelog operations the factory hands to the other stream modules
 * (`stream-factory.ts`), so `data-stream.ts`, `keyed-stream.ts` and
 * `windowed-stream.ts` need no import of this module, which extends theirs.
 */
export const changelogOperations: Pick<
  StreamFactory,
  'toChangelog' | 'asChangelog' | 'updatingAggregate' | 'temporalJoin' | 'windowChangelog'
> = {
  toChangelog<T>(stream: StreamParts): ChangelogStream<T> {
    const refs = forwardNode(stream, 'to changelog', { kind: 'to-changelog' }, 'insert-only');
    return new ChangelogStreamImpl<T>(stream.builder, refs, undefined);
  },

  asChangelog<T>(
    stream: StreamParts,
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
    const refs = forwardNode(stream, `changelog (${mode})`, { kind: 'as-changelog', mode }, mode);
    return new ChangelogStreamImpl<T>(
      stream.builder,
      refs,
      mode === 'upsert' ? upsertKey : undefined,
    );
  },

  updatingAggregate,

  temporalJoin<P, B, K extends Key, J extends 'inner' | 'left'>(
    probe: StreamParts,
    table: TableView<B, K>,
    options: TemporalJoinOptions<P, K, J>,
  ): DataStream<TemporalJoinResult<P, B, J>> {
    if (!(table instanceof TableViewImpl)) {
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
    const serializers = {
      probe: options.probeSerializer as StateSerializer<unknown> | undefined,
      version: table.serializer as StateSerializer<unknown> | undefined,
    };
    return addTwoInputNode<TemporalJoinResult<P, B, J>>(
      probe,
      table.input,
      { kind: 'temporal-join', joinType: type, serializers },
      `temporal ${type} join`,
      [keyedBy(probeKey, 'probeKey'), keyedBy((c: Change<B>) => pk(c.value), 'primaryKey')],
      { keyed: true, stateful: true },
    );
  },

  windowChangelog<R>(
    results: StreamParts,
    allowedLateness: number,
    mode: 'retract' | 'upsert',
  ): ChangelogStream<R> {
    if (mode !== 'retract' && mode !== 'upsert') {
      throw invalidArgument(
        `a window changelog's mode must be 'retract' or 'upsert', got ${describeRecord(mode)}`,
      );
    }
    const refs = keyedNode(
      results,
      ((r: WindowResult<Key, unknown>) => r.key) as (value: never) => Key,
      'window key',
      `window changelog (${mode})`,
      { kind: 'window-changelog', mode, allowedLateness },
      mode,
    );
    const upsertKey = (r: WindowResult<Key, unknown>) =>
      `${String(r.key)}@${r.window.start}:${r.window.end}`;
    return new ChangelogStreamImpl<R>(
      results.builder,
      refs,
      mode === 'upsert' ? (upsertKey as (row: R) => Key) : undefined,
    );
  },
};
