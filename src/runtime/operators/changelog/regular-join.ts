import type { JoinedRow, JoinType } from '../../../core/joins.js';

export type { JoinedRow, JoinType };

import type { Change } from '../../../core/changelog.js';
import { describeRecord, WeirError } from '../../../core/errors.js';
import type {
  Collector,
  KeyedProcessContext,
  KeyedRuntimeContext,
  KeyedTimerService,
  OnTimerContext,
} from '../../../core/functions.js';
import type { Key } from '../../../core/key-groups.js';
import { decodeTime, encodeTime, type Json } from '../../../core/snapshot.js';
import type { MapState, StateSerializer, StateTtlConfig, ValueState } from '../../../core/state.js';
import type { KeyedStateBackend } from '../../../state/keyed-state-backend.js';
import {
  backendOf,
  type KeyedCoProcessFunction,
  setOutputTimestamp,
} from '../keyed/keyed-co-process.js';
import { rowText } from './same-row.js';

/** How a regular join is set up. */
export interface RegularJoinSpec<L, R> {
  readonly type: JoinType;
  readonly where: ((left: L, right: R) => boolean) | undefined;
  readonly leftTtl: StateTtlConfig | undefined;
  readonly rightTtl: StateTtlConfig | undefined;
  /** The left input carries only `+I` (known when the job is built): its rows are appended. */
  readonly leftInsertOnly?: boolean;
  readonly rightInsertOnly?: boolean;
  /**
   * A side's unique key (the same for every change of a row): that side's rows are kept one
   * per key, and an update-after replaces the row of its key without its update-before.
   */
  readonly leftUniqueKey?: (row: L) => Key;
  readonly rightUniqueKey?: (row: R) => Key;
  /** How each side's rows are written to snapshots; default `Serializers.json()`. */
  readonly leftSerializer?: StateSerializer<L>;
  readonly rightSerializer?: StateSerializer<R>;
  /**
   * An insert-only side's last useful time: the watermark from which a row of it can match no
   * later row of the other side (see `RegularJoinOptions.retainUntil`). Such rows are dropped
   * by a sweep when the watermark reaches the next whole second (`SWEEP_SPACING_MS`) after
   * it; a row that arrives after its time has passed is joined but not kept.
   */
  readonly leftRetainUntil?: (row: L) => number;
  readonly rightRetainUntil?: (row: R) => number;
}

/** The event time between two sweeps of rows dropped by the watermark (see `retainUntil`). */
const SWEEP_SPACING_MS = 1000;

/** A stored row: the row, how many copies are held, the event time of the last one. */
type Entry<T> = [row: T, count: number, time: number];

/**
 * Where a side keeps its rows in its map. A changelog side keys each row by its JSON
 * text, so that a retraction finds it. An insert-only side is never looked
 * up by row: each row is appended under the next number of a per-key
 * counter (kept in keyed state, so it moves with the key on rescaling and
 * survives restore), which saves serializing every row and keeps TTL per row.
 * Both kinds of key may meet in one map when a job is restored with an input
 * whose mode changed.
 */
type RowKey = string | number;

/** A key's listed rows and, at the same index, each one's event time, in arrival order. */
interface Listed<T> {
  readonly rows: T[];
  readonly times: number[];
}

/**
 * One side's rows. An insert-only side without a TTL, on a backend whose reads return the
 * stored objects (the heap), keeps them listed instead of in the map: one value per key, two
 * arrays appended to in place. An unbounded join (Nexmark q4 and q9 keep every bid and
 * auction) then holds no entry array, map entry or id per row, whose allocation and
 * collection were most of its cost, and finds a key's rows with one lookup. With a TTL each row
 * must expire on its own, which the map does; on the disk backend a value is stored encoded,
 * rewritten whole by every append. A listing side also reads map rows (restored from a
 * snapshot of the map layout); a side that does not list moves listed rows it restored into
 * its map when it opens, where they expire and are retracted like its own.
 */
interface SideRows<T> {
  readonly map: MapState<RowKey, Entry<T>>;
  /** The map may hold rows: this side writes it, or a restored snapshot did. */
  readonly mapInUse: boolean;
  readonly listed: ValueState<Listed<T>>;
  /** New rows of this (insert-only) side are listed; only then does it hold listed rows. */
  readonly appendsToList: boolean;
}

/** Listed rows in snapshots, each row by the side's serializer (JSON by default). */
function listedSerializer<T>(rows: StateSerializer<T> | undefined): StateSerializer<Listed<T>> {
  return {
    id: `join-listed(${rows?.id ?? 'json'})`,
    version: rows?.version ?? 1,
    // A time may be -Infinity (no event time), which JSON cannot hold.
    toJson: (l) => [
      rows === undefined ? (l.rows as Json[]) : l.rows.map((r) => rows.toJson(r)),
      l.times.map(encodeTime),
    ],
    fromJson: (json, version) => {
      const [r, t] = json as [Json[], Json[]];
      return {
        rows: rows === undefined ? (r as T[]) : r.map((x) => rows.fromJson(x, version)),
        times: t.map(decodeTime),
      };
    },
  };
}

/** Whether any key holds state `name` (checked once, when the join opens). */
function holdsAny(backend: KeyedStateBackend, name: string): boolean {
  let any = false;
  backend.forEachKeyAndNamespace(name, () => {
    any = true;
  });
  return any;
}

/**
 * Entries written with a side's row serializer: none keeps the JSON default, so snapshots
 * taken before a serializer was given stay readable by jobs that still give none.
 */
function entrySerializer<T>(rows: StateSerializer<T> | undefined): {
  serializer?: StateSerializer<Entry<T>>;
} {
  if (rows === undefined) return {};
  return {
    serializer: {
      id: `join-entry(${rows.id})`,
      version: rows.version,
      // The time of a row may be -Infinity (no event time), which JSON cannot hold.
      toJson: ([row, count, time]) => [rows.toJson(row), count, encodeTime(time)],
      fromJson: (json, version) => {
        const [row, count, time] = json as [Json, number, Json];
        return [rows.fromJson(row, version), count, decodeTime(time)];
      },
    },
  };
}

/** One input as seen from the side a change arrives on. */
interface Side<S, O> {
  readonly mine: SideRows<S>;
  readonly other: SideRows<O>;
  /** The side carries only `+I`: its rows are appended, never looked up by row. */
  readonly insertOnly: boolean;
  /** The per-key counter of an insert-only side appending to its map; undefined otherwise. */
  readonly nextId: ValueState<number> | undefined;
  /** This side's unique key: its rows are kept by it (see {@link RegularJoinSpec}). */
  readonly uniqueKey: ((row: S) => Key) | undefined;
  /** The watermark from which an appended row can match nothing more (see the spec). */
  readonly retainUntil: ((row: S) => number) | undefined;
  readonly name: 'left' | 'right';
  /** This side's rows are kept (padded) when they have no match. */
  readonly mineOuter: boolean;
  readonly otherOuter: boolean;
  readonly matches: (mine: S, other: O) => boolean;
  readonly pair: (mine: S | null, other: O | null) => JoinedRow<unknown, unknown>;
}

/**
 * A regular (unbounded) equi-join on changelog inputs: each side's rows are
 * kept per key (a multiset, with a TTL), every change of one side is joined
 * with the other side's current rows of the key, and the result is emitted
 * as `+I` (a joined row appears) and `-D` (it disappears). Outer joins emit a
 * row without a match padded with null, retract it when the first match
 * arrives, and emit it again when the last match is retracted.
 */
export class RegularJoinFunction<K extends Key, L, R>
  implements KeyedCoProcessFunction<K, Change<L>, Change<R>, Change<JoinedRow<L, R>>>
{
  // Set in open: the runtime runs each subtask on its own Object.create() of this function.
  private fromLeft!: Side<L, R>;
  private fromRight!: Side<R, L>;
  private backend!: KeyedStateBackend;
  /**
   * The times at which a sweep is due (`retainUntil`), each a timer of whichever key asked for
   * it first; held in memory, so after a restore a time may get a second timer, whose sweep
   * then finds nothing to do.
   */
  private sweeps!: Set<number>;
  /** The watermark the last sweep dropped rows up to. */
  private sweptTo!: number;

  constructor(private readonly spec: RegularJoinSpec<L, R>) {}

  open(context: KeyedRuntimeContext): void {
    const { leftTtl, rightTtl, where, type } = this.spec;
    this.backend = backendOf(context);
    this.sweeps = new Set();
    this.sweptTo = Number.NEGATIVE_INFINITY;
    const leftAppend = this.spec.leftInsertOnly === true;
    const rightAppend = this.spec.rightInsertOnly === true;
    // Both map layouts share one map: appended rows (number keys) join with rows restored
    // under their JSON text (string keys), whose counts the loops honour.
    const rowsOf = <T>(
      name: 'left' | 'right',
      serializer: StateSerializer<T> | undefined,
      ttl: StateTtlConfig | undefined,
      insertOnly: boolean,
    ): SideRows<T> => {
      const map = context.state.getMapState<RowKey, Entry<T>>({
        name,
        ...entrySerializer(serializer),
        ...(ttl === undefined ? {} : { ttl }),
      });
      const listed = context.state.getValueState<Listed<T>>({
        name: `${name} listed`,
        serializer: listedSerializer(serializer),
      });
      const appendsToList = insertOnly && ttl === undefined && this.backend.readsAreLive;
      return {
        map,
        mapInUse: !appendsToList || holdsAny(this.backend, name),
        listed,
        appendsToList,
      };
    };
    const left = rowsOf('left', this.spec.leftSerializer, leftTtl, leftAppend);
    const right = rowsOf('right', this.spec.rightSerializer, rightTtl, rightAppend);
    // The counter expires with the side's rows: it is written on every append, so it outlives them.
    const counter = (name: string, ttl: StateTtlConfig | undefined) =>
      context.state.getValueState<number>({ name, ...(ttl === undefined ? {} : { ttl }) });
    const leftOuter = type === 'left' || type === 'full';
    const rightOuter = type === 'right' || type === 'full';
    this.fromLeft = {
      mine: left,
      other: right,
      insertOnly: leftAppend,
      nextId: leftAppend && !left.appendsToList ? counter('left next id', leftTtl) : undefined,
      uniqueKey: leftAppend ? undefined : this.spec.leftUniqueKey,
      retainUntil: leftAppend ? this.spec.leftRetainUntil : undefined,
      name: 'left',
      mineOuter: leftOuter,
      otherOuter: rightOuter,
      matches: where === undefined ? () => true : (l, r) => where(l, r),
      pair: (l, r) => [l, r],
    };
    this.fromRight = {
      mine: right,
      other: left,
      insertOnly: rightAppend,
      nextId: rightAppend && !right.appendsToList ? counter('right next id', rightTtl) : undefined,
      uniqueKey: rightAppend ? undefined : this.spec.rightUniqueKey,
      retainUntil: rightAppend ? this.spec.rightRetainUntil : undefined,
      name: 'right',
      mineOuter: rightOuter,
      otherOuter: leftOuter,
      matches: where === undefined ? () => true : (r, l) => where(l, r),
      pair: (r, l) => [l, r],
    };
    for (const side of [this.fromLeft, this.fromRight] as Side<unknown, unknown>[])
      if (!side.mine.appendsToList) unlist(this.backend, side);
  }

  processElement1(
    change: Change<L>,
    ctx: KeyedProcessContext<K>,
    out: Collector<Change<JoinedRow<L, R>>>,
  ): void {
    this.process(this.fromLeft, change, ctx, asChanges(out));
  }

  processElement2(
    change: Change<R>,
    ctx: KeyedProcessContext<K>,
    out: Collector<Change<JoinedRow<L, R>>>,
  ): void {
    this.process(this.fromRight, change, ctx, asChanges(out));
  }

  private process<S, O>(
    side: Side<S, O>,
    change: Change<S>,
    ctx: KeyedProcessContext<K>,
    out: Collector<Change<JoinedRow<unknown, unknown>>>,
  ): void {
    const { retainUntil } = side;
    if (retainUntil === undefined || this.keeps(retainUntil(change.value), ctx.timerService))
      apply(side, change, ctx.timestamp, out);
    // Past its last useful time: joined with what is held, not kept.
    else joinWithOther(side, change.value, true, ctx.timestamp, out);
  }

  /**
   * Whether a row whose last useful time is `until` is to be kept: not if the watermark has
   * reached it already; if so, with a sweep due at that time.
   */
  private keeps(until: number, timers: KeyedTimerService): boolean {
    if (!(until > timers.currentWatermark())) return false;
    // Each sweep reads every row of the side: at most one per SWEEP_SPACING_MS of event time.
    const due = Math.ceil(until / SWEEP_SPACING_MS) * SWEEP_SPACING_MS;
    if (!this.sweeps.has(due)) {
      this.sweeps.add(due);
      timers.registerEventTimeTimer(due);
    }
    return true;
  }

  /**
   * A sweep is due: every key's appended rows whose last useful time the watermark has
   * reached go, on both sides. One pass over the side's rows drops what several due sweeps
   * would, so the later ones of the same watermark find nothing to do.
   */
  onTimer(time: number, ctx: OnTimerContext<K>): void {
    this.sweeps.delete(time);
    const watermark = Math.max(time, ctx.timerService.currentWatermark());
    if (watermark <= this.sweptTo) return;
    this.sweptTo = watermark;
    sweep(this.backend, this.fromLeft, watermark);
    sweep(this.backend, this.fromRight, watermark);
  }
}

/** Drops every key's appended rows of `side` whose last useful time is `watermark` or before. */
function sweep<S, O>(backend: KeyedStateBackend, side: Side<S, O>, watermark: number): void {
  const { retainUntil, mine, nextId } = side;
  if (retainUntil === undefined) return;
  if (mine.mapInUse) {
    forEachKeyOf(backend, side.name, () => {
      const gone: RowKey[] = [];
      let kept = 0;
      for (const [k, entry] of mine.map.entries()) {
        if (typeof k === 'number' && retainUntil(entry[0]) <= watermark) gone.push(k);
        else kept++;
      }
      if (gone.length === 0) return;
      if (kept > 0) {
        for (const k of gone) mine.map.remove(k);
        return;
      }
      // A key with no rows keeps no counter either: its next row starts it again.
      mine.map.clear();
      nextId?.clear();
    });
  }
  if (mine.appendsToList) {
    forEachKeyOf(backend, `${side.name} listed`, () =>
      keepListed(mine, (row) => retainUntil(row) > watermark),
    );
  }
}

/** Runs `fn` with each key that holds state `stateName` as the current key. */
function forEachKeyOf(backend: KeyedStateBackend, stateName: string, fn: () => void): void {
  const keys: Key[] = [];
  backend.forEachKeyAndNamespace(stateName, (key) => keys.push(key));
  const current = backend.currentKey;
  try {
    for (const key of keys) {
      backend.currentKey = key;
      fn();
    }
  } finally {
    backend.currentKey = current;
  }
}

/**
 * Keeps the current key's listed rows for which `keep` holds, with their times; writes only
 * when a row goes (a sweep visits every key, most of which lose nothing).
 */
function keepListed<T>(rows: SideRows<T>, keep: (row: T) => boolean): void {
  const listed = rows.listed.value();
  if (listed === undefined) return;
  const all = listed.rows;
  let first = 0;
  while (first < all.length && keep(all[first]!)) first++;
  if (first === all.length) return;
  const kept = all.slice(0, first);
  const keptTimes = listed.times.slice(0, first);
  for (let i = first + 1; i < all.length; i++) {
    if (!keep(all[i]!)) continue;
    kept.push(all[i]!);
    keptTimes.push(listed.times[i]!);
  }
  if (kept.length === 0) rows.listed.clear();
  else rows.listed.update({ rows: kept, times: keptTimes });
}

/**
 * Moves the listed rows of a side that does not list (restored from a run where it did, before
 * it got a TTL, its input changes, or on another backend) into its map: under the next ids of
 * an insert-only side, under their unique key or JSON text otherwise.
 */
function unlist<S, O>(backend: KeyedStateBackend, side: Side<S, O>): void {
  const { mine, nextId, uniqueKey } = side;
  forEachKeyOf(backend, `${side.name} listed`, () => {
    const listed = mine.listed.value();
    mine.listed.clear();
    if (listed === undefined) return;
    for (let i = 0; i < listed.rows.length; i++) {
      const row = listed.rows[i]!;
      const time = listed.times[i]!;
      if (nextId !== undefined) mine.map.put(appendId(mine.map, nextId), [row, 1, time]);
      else if (uniqueKey !== undefined) mine.map.put(uniqueKeyText(uniqueKey(row)), [row, 1, time]);
      else {
        const text = rowText(row);
        mine.map.put(text, [row, (mine.map.get(text)?.[1] ?? 0) + 1, time]);
      }
    }
  });
}

function asChanges<T>(out: Collector<T>): Collector<Change<JoinedRow<unknown, unknown>>> {
  return out as unknown as Collector<Change<JoinedRow<unknown, unknown>>>;
}

/** How many rows of `rows` match `other` (with multiplicity). */
function matchCount<S, O>(
  rows: SideRows<S>,
  other: O,
  matches: (mine: S, other: O) => boolean,
): number {
  let n = 0;
  if (rows.mapInUse)
    for (const [, [row, count]] of rows.map.entries()) if (matches(row, other)) n += count;
  if (rows.appendsToList) {
    for (const row of rows.listed.value()?.rows ?? []) if (matches(row, other)) n++;
  }
  return n;
}

function emit(
  out: Collector<Change<JoinedRow<unknown, unknown>>>,
  kind: '+I' | '-D',
  value: JoinedRow<unknown, unknown>,
  times: number,
  time: number,
): void {
  setOutputTimestamp(out, time);
  for (let i = 0; i < times; i++) out.collect({ kind, value });
}

function apply<S, O>(
  side: Side<S, O>,
  change: Change<S>,
  time: number,
  out: Collector<Change<JoinedRow<unknown, unknown>>>,
): void {
  if (side.uniqueKey !== undefined) {
    applyByUniqueKey(side, side.uniqueKey, change, time, out);
    return;
  }
  const { mine, nextId } = side;
  const row = change.value;
  const accumulate = change.kind === '+I' || change.kind === '+U';
  let text: string | undefined;
  let entry: Entry<S> | undefined;
  if (!side.insertOnly) {
    text = rowText(row);
    entry = mine.map.get(text);
    if (!accumulate && !removeByText(mine, text)) return;
  } else if (change.kind !== '+I') {
    throw new WeirError(
      'BAD_RECORD',
      `regularJoin() ${side.name} input is insert-only, but a '${change.kind}' change arrived: ${describeRecord(change)}`,
      { record: describeRecord(change) },
    );
  }
  joinWithOther(side, row, accumulate, time, out);
  if (!accumulate) return;
  if (text !== undefined) mine.map.put(text, [row, (entry?.[1] ?? 0) + 1, time]);
  else if (mine.appendsToList) {
    // The stored arrays themselves (see SideRows): appended to without a write.
    const listed = mine.listed.value();
    if (listed === undefined) mine.listed.update({ rows: [row], times: [time] });
    else {
      listed.rows.push(row);
      listed.times.push(time);
    }
  } else mine.map.put(appendId(mine.map, nextId!), [row, 1, time]);
}

/**
 * Removes one copy of the row whose JSON text is `text`; false when none is held (its state
 * expired: nothing joined with it is left to retract).
 */
function removeByText<S>(mine: SideRows<S>, text: string): boolean {
  const { map } = mine;
  let at: RowKey = text;
  let entry = map.get(text);
  // Not under its text: appended while this input was insert-only (restored), or expired.
  if (entry === undefined) [at, entry] = appendedCopy(map, text);
  if (entry === undefined) return false;
  if (entry[1] <= 1) map.remove(at);
  else map.put(at, [entry[0], entry[1] - 1, entry[2]]);
  return true;
}

/** The state key of a row kept by its unique key (apart from row texts, which are JSON). */
function uniqueKeyText(key: Key): string {
  return `${UNIQUE_KEY_MARK}${typeof key}:${String(key)}`;
}

const UNIQUE_KEY_MARK = '\u0002';

/**
 * A change of a side kept by its unique key (Flink's join input keyed by a unique key that
 * contains the join key): a `+I`/`+U` replaces the row held under its key, retracting what the
 * old row joined first, so the input's update-befores are not needed (if they come, the `-U`
 * removes the row and the `+U` finds none to replace). A retraction removes the held row and
 * retracts what it joined, whatever fields the retraction carries besides the key.
 */
function applyByUniqueKey<S, O>(
  side: Side<S, O>,
  uniqueKey: (row: S) => Key,
  change: Change<S>,
  time: number,
  out: Collector<Change<JoinedRow<unknown, unknown>>>,
): void {
  const { map } = side.mine;
  const key = uniqueKey(change.value);
  const at = uniqueKeyText(key);
  let held = map.get(at);
  let heldAt: RowKey = at;
  // Rows of a job restored from before the side was keyed are under their text: a change
  // of a key not held here may replace one of them.
  if (held === undefined) [heldAt, held] = restoredRowOf(map, uniqueKey, key);
  if (held !== undefined) {
    if (held[1] <= 1) map.remove(heldAt);
    else map.put(heldAt, [held[0], held[1] - 1, held[2]]);
    joinWithOther(side, held[0], false, time, out);
  }
  if (change.kind === '+I' || change.kind === '+U') {
    joinWithOther(side, change.value, true, time, out);
    map.put(at, [change.value, 1, time]);
  }
}

/** A row of the current join key kept under its text whose unique key is `key`. */
function restoredRowOf<S>(
  rows: MapState<RowKey, Entry<S>>,
  uniqueKey: (row: S) => Key,
  key: Key,
): [RowKey, Entry<S> | undefined] {
  for (const [k, entry] of rows.entries()) {
    if (typeof k === 'string' && !k.startsWith(UNIQUE_KEY_MARK) && uniqueKey(entry[0]) === key)
      return [k, entry];
  }
  return ['', undefined];
}

/**
 * Emits what `row` of this side adds (`accumulate`) or takes away when joined with the other
 * side's rows of the key, with the padded rows of outer joins that come and go with it. This
 * side's state must not hold the row (it is added after, or was removed before).
 */
function joinWithOther<S, O>(
  side: Side<S, O>,
  row: S,
  accumulate: boolean,
  time: number,
  out: Collector<Change<JoinedRow<unknown, unknown>>>,
): void {
  const { other } = side;
  let matched = false;
  if (other.mapInUse) {
    for (const [, [o, count, oTime]] of other.map.entries()) {
      if (joinOne(side, row, o, count, oTime, accumulate, time, out)) matched = true;
    }
  }
  const listed = other.appendsToList ? other.listed.value() : undefined;
  if (listed !== undefined) {
    const { rows, times } = listed;
    for (let i = 0; i < rows.length; i++) {
      if (joinOne(side, row, rows[i]!, 1, times[i]!, accumulate, time, out)) matched = true;
    }
  }
  if (!matched && side.mineOuter)
    emit(out, accumulate ? '+I' : '-D', side.pair(row, null), 1, time);
}

/**
 * Joins `row` of this side with `o` (held `count` times, of event time `oTime`) of the other:
 * false when they do not match.
 */
function joinOne<S, O>(
  side: Side<S, O>,
  row: S,
  o: O,
  count: number,
  oTime: number,
  accumulate: boolean,
  time: number,
  out: Collector<Change<JoinedRow<unknown, unknown>>>,
): boolean {
  if (!side.matches(row, o)) return false;
  const at = Math.max(time, oTime);
  // An outer row of the other side is padded while no row of this side matches it.
  const padded = side.otherOuter && matchCount(side.mine, o, side.matches) === 0;
  if (padded && accumulate) emit(out, '-D', side.pair(null, o), count, at);
  emit(out, accumulate ? '+I' : '-D', side.pair(row, o), count, at);
  if (padded && !accumulate) emit(out, '+I', side.pair(null, o), count, at);
  return true;
}

/** An appended (number-keyed) row of the current key whose JSON text is `text`. */
function appendedCopy<S>(
  rows: MapState<RowKey, Entry<S>>,
  text: string,
): [RowKey, Entry<S> | undefined] {
  for (const [k, entry] of rows.entries()) {
    if (typeof k === 'number' && rowText(entry[0]) === text) return [k, entry];
  }
  return [text, undefined];
}

/** A fresh number for a row appended to the current key's rows. */
function appendId<S>(rows: MapState<RowKey, Entry<S>>, nextId: ValueState<number>): number {
  let id = nextId.value();
  if (id === undefined) {
    // A new key, or its counter expired: continue after any row still held.
    id = 0;
    for (const [k] of rows.entries()) if (typeof k === 'number' && k >= id) id = k + 1;
  }
  nextId.update(id + 1);
  return id;
}
