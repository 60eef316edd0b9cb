import type { Change } from '../../../core/changelog.js';
import { describeRecord, userFunctionFailed, WeirError } from '../../../core/errors.js';
import type { Key } from '../../../core/key-groups.js';
import { MIN_WATERMARK } from '../../../core/messages.js';
import { Operator } from '../../../core/operator.js';
import type { RecordBatch } from '../../../core/record-batch.js';
import {
  decodeKey,
  encodeKey,
  type Json,
  type OperatorSnapshot,
  type RestoredState,
} from '../../../core/snapshot.js';
import { Emitter } from '../basic/emitter.js';

/**
 * The record a side subtask sends, after its last record, to every join
 * subtask: once a join subtask has one from each side subtask, the side
 * table is complete. Plain data, so it survives any transport.
 */
export interface SideEndMarker {
  readonly __weirSideEnd: 1;
  readonly subtask: number;
  readonly of: number;
}

function isSideEndMarker(value: unknown): value is SideEndMarker {
  return typeof value === 'object' && value !== null && '__weirSideEnd' in value;
}

/** Passes the side stream through and appends its end marker when the side input ends. */
export class SideEndMarkerOperator<S> extends Operator<S, S | SideEndMarker> {
  processBatch(batch: RecordBatch<S>): void {
    this.output.emit(batch);
  }

  override endInput(): void {
    const marker: SideEndMarker = {
      __weirSideEnd: 1,
      subtask: this.context.subtaskIndex,
      of: this.context.parallelism,
    };
    this.output.emit({ values: [marker], timestamps: [Number.POSITIVE_INFINITY], keys: undefined });
  }
}

export interface BroadcastJoinSpec<T, S, BK extends Key, OUT> {
  readonly mainKey: (main: T) => BK;
  readonly sideKey: (side: S) => BK;
  readonly join: (main: T, side: S | undefined) => OUT;
  readonly kind: 'inner' | 'left';
  /** Side records are `Change<S>` (applied to the table) rather than rows (upserted by key). */
  readonly sideChanges: boolean;
  /** Hold main records (and the watermark) until every side subtask has ended. */
  readonly waitForSide: boolean;
}

const UNION_ENTRY = 'broadcastJoin';

/**
 * Joins the main stream against a table built from a small side stream that
 * is broadcast to every subtask. Side rows upsert the table by their key (or
 * side changes insert, update and delete rows). A main record joins the row
 * of its key in the table as it is when the record arrives (inner: no row,
 * no output; left: joined with `undefined`). While the side is incomplete
 * and `waitForSide` is set, main records are buffered and the watermark held
 * back, so nothing becomes late downstream. Checkpoints hold the table (union
 * state; every subtask has the same copy), the completion, and the buffer
 * (list state, redistributed on rescale).
 */
export class BroadcastJoinOperator<T, S, BK extends Key, OUT> extends Operator<T, OUT> {
  private readonly table = new Map<BK, S>();
  private readonly seen = new Set<number>();
  private sideParallelism = 0;
  private complete: boolean;
  private buffered: { v: T; t: number }[] = [];
  private heldWatermark = MIN_WATERMARK;
  private emitter!: Emitter<OUT>;

  constructor(private readonly spec: BroadcastJoinSpec<T, S, BK, OUT>) {
    super();
    this.complete = !spec.waitForSide;
  }

  override open(): void {
    this.emitter = new Emitter(this.output);
    this.context.metrics.gauge(
      'weir_broadcast_table_rows',
      'Rows in the broadcast side table',
      () => this.table.size,
    );
    this.context.metrics.gauge(
      'weir_broadcast_join_buffered',
      'Main records waiting for the side input to complete',
      () => this.buffered.length,
    );
  }

  processBatch(batch: RecordBatch<T>): void {
    const { values, timestamps } = batch;
    if (this.complete && this.buffered.length > 0) this.drainBuffer();
    if (!this.complete) {
      for (let i = 0; i < values.length; i++)
        this.buffered.push({ v: values[i] as T, t: timestamps[i]! });
      return;
    }
    for (let i = 0; i < values.length; i++) this.joinOne(values[i] as T, timestamps[i]!);
    this.emitter.flush();
  }

  private joinOne(main: T, timestamp: number): void {
    const { spec, emitter } = this;
    let key: BK;
    try {
      key = spec.mainKey(main);
    } catch (cause) {
      throw userFunctionFailed(this.context.operatorId, 'main key selector', main, cause);
    }
    const side = this.table.get(key);
    if (side === undefined && spec.kind === 'inner') return;
    emitter.timestamp = timestamp;
    try {
      emitter.collect(spec.join(main, side));
    } catch (cause) {
      throw userFunctionFailed(this.context.operatorId, 'broadcast join function', main, cause);
    }
  }

  override processSecondBatch(batch: RecordBatch<unknown>): void {
    for (const value of batch.values) {
      if (isSideEndMarker(value)) this.sideEnded(value);
      else if (this.spec.sideChanges) this.applyChange(value as Change<S>);
      else this.table.set(this.sideKeyOf(value as S), value as S);
    }
  }

  private sideKeyOf(side: S): BK {
    try {
      return this.spec.sideKey(side);
    } catch (cause) {
      throw userFunctionFailed(this.context.operatorId, 'side key selector', side, cause);
    }
  }

  private applyChange(change: Change<S>): void {
    const kind = (change as { kind?: unknown })?.kind;
    if (kind === '+I' || kind === '+U') this.table.set(this.sideKeyOf(change.value), change.value);
    else if (kind === '-U' || kind === '-D') this.table.delete(this.sideKeyOf(change.value));
    else {
      throw new WeirError(
        'BAD_RECORD',
        `broadcast join '${this.context.operatorId}': side changelog record must be { kind: '+I' | '-U' | '+U' | '-D', value }, got ${describeRecord(change)}`,
        { operatorId: this.context.operatorId, record: describeRecord(change) },
      );
    }
  }

  private sideEnded(marker: SideEndMarker): void {
    if (this.complete) return;
    if (marker.of !== this.sideParallelism) {
      // First marker, or the side runs at another parallelism than before a restore.
      this.sideParallelism = marker.of;
      this.seen.clear();
    }
    this.seen.add(marker.subtask);
    if (this.seen.size < marker.of) return;
    this.complete = true;
    this.drainBuffer();
    if (this.heldWatermark > MIN_WATERMARK) this.output.emitWatermark(this.heldWatermark);
  }

  /** Joins the main records that waited for the side table (also those restored from a checkpoint). */
  private drainBuffer(): void {
    const waiting = this.buffered;
    this.buffered = [];
    for (const { v, t } of waiting) this.joinOne(v, t);
    this.emitter.flush();
  }

  override processWatermark(time: number): void {
    if (!this.complete) {
      if (time > this.heldWatermark) this.heldWatermark = time;
      return;
    }
    if (this.buffered.length > 0) this.drainBuffer();
    this.output.emitWatermark(time);
  }

  override snapshotState(): OperatorSnapshot {
    const table: Json[] = [];
    for (const [k, v] of this.table) table.push([encodeKey(k), v as Json]);
    return {
      list: this.buffered.map(({ v, t }) => [v as Json, Number.isFinite(t) ? t : null]),
      union: [
        {
          [UNION_ENTRY]: {
            subtask: this.context.subtaskIndex,
            table,
            complete: this.complete,
            seen: [...this.seen],
            of: this.sideParallelism,
          },
        },
      ],
    };
  }

  override initializeState(state: RestoredState): void {
    type Entry = { subtask: number; table: Json[]; complete: boolean; seen: number[]; of: number };
    const entries = state.union
      .filter(
        (e): e is Record<string, Json> => typeof e === 'object' && e !== null && UNION_ENTRY in e,
      )
      .map((e) => e[UNION_ENTRY] as unknown as Entry);
    // Every old subtask held the same table; take the copy of our index, or the first.
    const pick = entries.find((e) => e.subtask === this.context.subtaskIndex) ?? entries[0];
    if (pick !== undefined) {
      for (const entry of pick.table) {
        const [k, v] = entry as [Json, Json];
        this.table.set(decodeKey(k) as BK, v as S);
      }
      this.complete = this.complete || pick.complete;
      this.sideParallelism = pick.of;
      for (const s of pick.seen) this.seen.add(s);
    }
    for (const entry of state.list) {
      const [v, t] = entry as [Json, number | null];
      this.buffered.push({ v: v as T, t: t ?? Number.NEGATIVE_INFINITY });
    }
  }
}
