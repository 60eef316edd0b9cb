/**
 * Rows of a keyed process function waiting for the watermark: kept in map state by rowtime
 * (arrival order within one rowtime) with an event-time timer at each rowtime, so they can be
 * taken in rowtime order as the watermark passes (OVER aggregations, ORDER BY the rowtime).
 */
import type { KeyedProcessContext, KeyedRuntimeContext } from '../../core/functions.js';
import type { Key } from '../../core/key-groups.js';
import type { MapState } from '../../core/state.js';
import type { Row } from '../connectors/connector.js';
import { ROWS_SERIALIZER } from './row-serializer.js';

export class RowtimeBuffer {
  private pending!: MapState<number, Row[]>;

  /** `stateName` names the state in checkpoints and savepoints: keep it when editing. */
  constructor(
    private readonly stateName: string,
    private readonly timeIndex: number,
  ) {}

  open(context: KeyedRuntimeContext): void {
    this.pending = context.state.getMapState<number, Row[]>({
      name: this.stateName,
      serializer: ROWS_SERIALIZER,
    });
  }

  /** Keeps `row` until the watermark passes its rowtime; drops it if it is late already. */
  add(row: Row, context: KeyedProcessContext<Key>): void {
    const ts = row[this.timeIndex] as number;
    // Late: the rows after it have left already, so it cannot take its place among them.
    if (ts <= context.timerService.currentWatermark()) return;
    const waiting = this.pending.get(ts);
    if (waiting === undefined) {
      this.pending.put(ts, [row]);
      context.timerService.registerEventTimeTimer(ts);
    } else {
      waiting.push(row);
      this.pending.put(ts, waiting);
    }
  }

  /** Removes and returns the rows of rowtime `time` (at its timer). */
  take(time: number): Row[] | undefined {
    const rows = this.pending.get(time);
    if (rows !== undefined) this.pending.remove(time);
    return rows;
  }
}
