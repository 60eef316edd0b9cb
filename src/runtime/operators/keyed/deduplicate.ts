import type { DeduplicateOrder, KeepRow } from '../../../core/ranking.js';

export type { DeduplicateOrder, KeepRow };

import type { Change } from '../../../core/changelog.js';
import type {
  Collector,
  KeyedProcessContext,
  KeyedProcessFunction,
  KeyedRuntimeContext,
  OnTimerContext,
} from '../../../core/functions.js';
import type { Key } from '../../../core/key-groups.js';
import type { OutputTag } from '../../../core/output-tag.js';
import { decodeTime, encodeTime, type Json } from '../../../core/snapshot.js';
import type { StateSerializer, StateTtlConfig, ValueState } from '../../../core/state.js';
import type { WindowResult } from '../../../core/window-result.js';
import type { Counter } from '../../../metrics/registry.js';
import { DEFAULT_NAMESPACE, type KeyedStateBackend } from '../../../state/keyed-state-backend.js';
import {
  addToOpenWindows,
  type KeyedWindows,
  namespaceOfTimer,
  windowOfTimer,
} from './fixed-windows.js';
import { backendOf, type CountsLateRecords, setOutputTimestamp } from './keyed-co-process.js';

/** The row kept for a key, with its event time. */
interface Kept<T> {
  readonly v: T;
  readonly t: number;
}

export interface DeduplicateSpec {
  readonly keep: KeepRow;
  readonly order: DeduplicateOrder;
  /** `retract`: an update is `-U old`, `+U new`; `upsert`: only `+U new`. */
  readonly mode: 'retract' | 'upsert';
  /** Emit plain records (keep-first by arrival never updates). */
  readonly insertOnly: boolean;
  /** What is kept and emitted for a record that becomes its key's row; default the record. */
  readonly row?: (record: unknown) => unknown;
  readonly ttl: StateTtlConfig | undefined;
  /** How kept rows are written to snapshots; default `Serializers.json()`. */
  readonly serializer?: StateSerializer<unknown>;
}

/**
 * Deduplication per key (Flink's ROW_NUMBER() = 1 pattern): one state entry
 * per key holds the surviving row. The first row of a key is emitted as an
 * insert; a row that replaces it (keep-last: newer or equal event time, or any
 * later arrival; keep-first by event time: an older event time) is emitted
 * as an update. Everything else is dropped. With a TTL the key's entry
 * expires (processing time) and the next row of the key counts as new.
 */
export class DeduplicateFunction<K extends Key, T>
  implements KeyedProcessFunction<K, T, T | Change<T>>
{
  private kept!: ValueState<Kept<T>>;

  /** The row kept for a record (`spec.row`, else the record itself). */
  private readonly rowOf: (record: T) => T;

  constructor(private readonly spec: DeduplicateSpec) {
    this.rowOf = (spec.row ?? ((record: unknown) => record)) as (record: T) => T;
  }

  open(context: KeyedRuntimeContext): void {
    const rows = this.spec.serializer as StateSerializer<T> | undefined;
    this.kept = context.state.getValueState<Kept<T>>({
      name: 'dedup.kept',
      ...(this.spec.ttl === undefined ? {} : { ttl: this.spec.ttl }),
      ...(rows === undefined ? {} : { serializer: keptSerializer(rows) }),
    });
  }

  processElement(value: T, ctx: KeyedProcessContext<K>, out: Collector<T | Change<T>>): void {
    const { keep, order, insertOnly, mode } = this.spec;
    const t = ctx.timestamp;
    const prev = this.kept.value();
    if (prev === undefined) {
      // Keep-first by arrival never looks at the row again: store only that the key was seen.
      if (insertOnly) {
        this.kept.update({ t } as Kept<T>);
        out.collect(value);
        return;
      }
      const row = this.rowOf(value);
      this.kept.update({ v: row, t });
      out.collect({ kind: '+I', value: row });
      return;
    }
    const replaces =
      order === 'arrival' ? keep === 'last' : keep === 'last' ? t >= prev.t : t < prev.t;
    if (!replaces) return;
    const row = this.rowOf(value);
    this.kept.update({ v: row, t });
    if (mode === 'retract') out.collect({ kind: '-U', value: prev.v });
    out.collect({ kind: '+U', value: row });
  }
}

export const WINDOW_LATE_METRIC = 'weir_window_late_records_total';

/**
 * A kept row written with `rows` (none keeps the JSON default, and its snapshots). A row's
 * time may be an infinity (no event time), which JSON cannot hold; keep-first by arrival
 * keeps no row.
 */
function keptSerializer<T>(rows: StateSerializer<T>): StateSerializer<Kept<T>> {
  return {
    id: `dedup-kept(${rows.id})`,
    version: rows.version,
    toJson: (kept) => ({
      ...(kept.v === undefined ? {} : { v: rows.toJson(kept.v) }),
      ...(typeof kept.t === 'number' ? { t: encodeTime(kept.t) } : {}),
    }),
    fromJson: (json, version) => {
      const o = json as { v?: Json; t?: Json };
      return {
        ...(o.v === undefined ? {} : { v: rows.fromJson(o.v, version) }),
        ...(o.t === undefined ? {} : { t: decodeTime(o.t) }),
      } as Kept<T>;
    },
  };
}

/**
 * Deduplication per key and fixed event-time window (Flink's window
 * deduplication): the kept row of each window is emitted once, insert-only,
 * when the window fires, and its state is dropped. Late records (all their
 * windows fired) are counted and sent to `lateTag` if set.
 */
export class WindowDeduplicateFunction<K extends Key, T>
  implements KeyedProcessFunction<K, T, WindowResult<K, T>>, CountsLateRecords
{
  lateRecords?: Counter;
  private backend!: KeyedStateBackend;
  private kept!: ValueState<Kept<T>>;

  constructor(
    private readonly windows: KeyedWindows,
    private readonly keep: KeepRow,
    private readonly lateTag: OutputTag<T> | undefined,
    /** The event time that orders a window's records; default their timestamps. */
    private readonly timeOf?: (record: T) => number,
  ) {}

  open(context: KeyedRuntimeContext): void {
    this.backend = backendOf(context);
    this.kept = context.state.getValueState<Kept<T>>('window-dedup.kept');
  }

  processElement(value: T, ctx: KeyedProcessContext<K>): void {
    const t = this.timeOf === undefined ? ctx.timestamp : this.timeOf(value);
    const added = addToOpenWindows(
      this.windows,
      value,
      ctx.timestamp,
      ctx.timerService.currentWatermark(),
      this.backend,
      () => {
        const prev = this.kept.value();
        if (prev === undefined || (this.keep === 'last' ? t >= prev.t : t < prev.t)) {
          this.kept.update({ v: value, t });
        }
      },
      ctx.timerService,
    );
    if (!added) {
      this.lateRecords?.inc();
      if (this.lateTag !== undefined) ctx.output(this.lateTag, value);
    }
  }

  onTimer(time: number, ctx: OnTimerContext<K>, out: Collector<WindowResult<K, T>>): void {
    this.backend.setCurrentNamespace(namespaceOfTimer(this.windows, time));
    const kept = this.kept.value();
    this.kept.clear();
    this.backend.setCurrentNamespace(DEFAULT_NAMESPACE);
    if (kept === undefined) return;
    const window = windowOfTimer(this.windows, time, kept.v);
    setOutputTimestamp(out, time);
    out.collect({ key: ctx.key, window, value: kept.v, timing: 'on-time', isUpdate: false });
  }
}
