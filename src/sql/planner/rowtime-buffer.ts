/**
 * Rows of a keyed process function waiting for the watermark: kept in map state by rowtime
 * (arrival order within one rowtime) with an event-time timer at each rowtime, so they can be
 * taken in rowtime order as the watermark passes (OVER aggregations, ORDER BY the rowtime).
 *
 * A row that cannot take its place in that order is late: dropped and counted in
 * `weir_sql_late_records_total`. What counts as late is Flink's, per operator: a row at or
 * behind the watermark (`'watermark'`: sorts, unbounded OVER frames), or a row at or behind
 * the last rowtime its key has already processed (`'key'`: bounded OVER frames, which Flink
 * runs with the key's last fired timer as the bound, so a row the watermark has passed is
 * still taken if nothing after it was processed for its key).
 */
import type { KeyedProcessContext, KeyedRuntimeContext } from '../../core/functions.js';
import type { Key } from '../../core/key-groups.js';
import type { Counter } from '../../core/metrics.js';
import type { MapState, ValueState } from '../../core/state.js';
import type { Row } from '../connectors/connector.js';
import { ROWS_SERIALIZER } from './row-serializer.js';

/** The counter of rows a SQL operator dropped because they came too late to be ordered. */
export const SQL_LATE_METRIC = 'weir_sql_late_records_total';

/** What a row must be later than to be kept: the watermark, or its key's last processed rowtime. */
export type LateBound = 'watermark' | 'key';

export class RowtimeBuffer {
  private pending!: MapState<number, Row[]>;
  private lastTaken: ValueState<number> | undefined;
  private late!: Counter;

  /** `stateName` names the state in checkpoints and savepoints: keep it when editing. */
  constructor(
    private readonly stateName: string,
    private readonly timeIndex: number,
    private readonly bound: LateBound = 'watermark',
  ) {}

  open(context: KeyedRuntimeContext): void {
    this.pending = context.state.getMapState<number, Row[]>({
      name: this.stateName,
      serializer: ROWS_SERIALIZER,
    });
    if (this.bound === 'key')
      this.lastTaken = context.state.getValueState<number>(`${this.stateName}.last-taken`);
    this.late = context.metrics.counter(
      SQL_LATE_METRIC,
      'Rows a SQL operator dropped because they arrived after rows it had already ordered past them',
    );
  }

  /** Keeps `row` until the watermark passes its rowtime; drops it (counted) if it is late. */
  add(row: Row, context: KeyedProcessContext<Key>): void {
    const ts = row[this.timeIndex] as number;
    // Late: the rows after it have left already, so it cannot take its place among them.
    const bound =
      this.lastTaken === undefined
        ? context.timerService.currentWatermark()
        : (this.lastTaken.value() ?? Number.NEGATIVE_INFINITY);
    if (ts <= bound) {
      this.late.inc();
      return;
    }
    const waiting = this.pending.get(ts);
    if (waiting === undefined) {
      this.pending.put(ts, [row]);
      // Behind the watermark (a 'key' bound), the timer fires at the watermark's next advance.
      context.timerService.registerEventTimeTimer(ts);
    } else {
      waiting.push(row);
      this.pending.put(ts, waiting);
    }
  }

  /** Removes and returns the rows of rowtime `time` (at its timer). */
  take(time: number): Row[] | undefined {
    const rows = this.pending.get(time);
    if (rows === undefined) return undefined;
    this.pending.remove(time);
    this.lastTaken?.update(time);
    return rows;
  }
}
