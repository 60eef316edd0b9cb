/**
 * The event time rows carry, when a relation has several time attributes. An interval join
 * keeps both inputs' rowtimes as time attributes (as Flink does) but its rows carry one of them
 * as their event time; the other is marked `restamp`. The window, deduplication, temporal-join
 * and MATCH_RECOGNIZE operators read the event time the rows carry, so before one of them
 * takes such a column as its time, the rows are given that column's values (the watermark
 * passes unchanged: the interval join holds it back far enough for either rowtime).
 */
import type { DataStream } from '../../api/streams.js';
import {
  type WatermarkGenerator,
  type WatermarkOutput,
  WatermarkStrategy,
} from '../../core/watermarks.js';
import type { Row } from '../connectors/connector.js';
import type { ScopeColumn } from '../expressions/scope.js';
import type { Relation } from './relation.js';

/** Passes each upstream watermark on as it is. */
class UpstreamWatermarks implements WatermarkGenerator<Row> {
  onEvent(): void {}
  onUpstreamWatermark(watermark: number, output: WatermarkOutput): void {
    output.emitWatermark(watermark);
  }
}

/**
 * `relation` with the column at `index` (a rowtime) as its only event-time attribute, its rows
 * carrying that column's values as their event time. The relation itself when it is already
 * so (any relation with one rowtime); otherwise rows are re-stamped if the column is marked
 * `restamp` (a row whose time is NULL is dropped, as Flink's window operators drop it), and
 * the other rowtime columns stop being time attributes.
 */
export function withEventTime(relation: Relation, index: number): Relation {
  const column = relation.columns[index];
  if (column === undefined || !column.rowtime) return relation;
  const others = relation.columns.some((c, i) => i !== index && c.rowtime);
  if (column.restamp !== true && !others) return relation;
  const columns = relation.columns.map(
    (c, i): ScopeColumn =>
      i === index ? { ...c, restamp: false } : { ...c, rowtime: false, restamp: false },
  );
  if (column.restamp !== true) return { stream: relation.stream, columns };
  return { stream: stampedWith(relation.stream, index, column.name), columns };
}

/**
 * The rows carrying the values of the column at `index` as their event time (a row whose time
 * is NULL is dropped, as Flink's window operators drop it); the watermark passes unchanged.
 */
export function stampedWith(stream: DataStream<Row>, index: number, name: string): DataStream<Row> {
  return stream
    .filter((row: Row) => row[index] !== null)
    .name(`rows with a ${name}`)
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forGenerator<Row>(() => new UpstreamWatermarks()).withTimestampAssigner(
        (row) => row[index] as number,
      ),
    )
    .name(`event time of ${name}`);
}
