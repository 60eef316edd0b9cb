/** What planning a FROM item or a query gives: a stream of rows and the columns of its rows. */
import type { ChangelogStream, DataStream } from '../../api/streams.js';
import type { Row } from '../connectors/connector.js';
import type { ScopeColumn } from '../expressions/scope.js';
import type { TimeZone } from '../types/time-zone.js';

/** A window table function (TUMBLE, HOP, CUMULATE, SESSION) not yet applied to its input. */
export interface WindowTvf {
  readonly kind: 'TUMBLE' | 'HOP' | 'CUMULATE' | 'SESSION';
  /** The size, CUMULATE's max size, SESSION's gap. */
  readonly size: number;
  /** HOP's slide, CUMULATE's step. */
  readonly slide: number;
  readonly offset: number;
  /** SESSION's `PARTITION BY` columns of the table argument, if any. */
  readonly partitionBy?: readonly string[];
  /**
   * A legacy `GROUP BY key, SESSION(...)` group window: sessions per group key. A SESSION TVF
   * forms them per PARTITION BY value, or over all rows without it.
   */
  readonly sessionsPerGroup?: boolean;
  /**
   * A legacy `GROUP BY ..., TUMBLE/HOP/SESSION(...)` group window: Flink's emit strategies
   * (`table.exec.emit.*`) apply to it, not to a window TVF's aggregation.
   */
  readonly legacy?: boolean;
  /** The input relation (its rows lack the three window columns). */
  readonly input: Relation;
  /**
   * The input's rows carry their windows already (see {@link WindowProperties}): this TVF is a
   * tumbling window of the spacing of their ends, so that each of those windows fires alone at
   * its own end, and the GROUP BY names the input's window columns as keys.
   */
  readonly attached?: boolean;
  /**
   * Windows of processing time (the DESCRIPTOR names a `PROCTIME()` column): rows are
   * assigned by the wall clock when they reach the window operator, as in Flink.
   */
  readonly processingTime?: boolean;
  /**
   * Windows of a TIMESTAMP_LTZ time attribute (a rowtime, or PROCTIME()) in a session time zone
   * other than UTC: aligned on that zone's wall clock, as Flink's (see local-time-windows.ts).
   */
  readonly localTimeZone?: TimeZone;
}

/**
 * Window properties propagated through a window aggregation, as Flink's planner keeps them:
 * the rows are window results that carry `window_start` and `window_end`, and each row's
 * timestamp is its window's last millisecond (`window_end - 1`), at which the window fired.
 * A GROUP BY or a join on both columns can then run per window, insert-only, instead of
 * as an updating aggregation or a regular join.
 */
export interface WindowProperties {
  /** The positions of `window_start` and `window_end` in the rows. */
  readonly startAt: number;
  readonly endAt: number;
  /**
   * Windows end every `spacing` ms (from `offset`): a tumbling window's size, a hopping
   * window's slide, a cumulating window's step. Sessions end anywhere and have none.
   */
  readonly spacing: number;
  readonly offset: number;
}

export interface Relation {
  readonly stream: DataStream<Row>;
  readonly columns: readonly ScopeColumn[];
  /**
   * Set when the relation is a window TVF: `columns` are the input's plus `window_start`,
   * `window_end` and `window_time`, which an aggregation grouping by the window computes;
   * anything else materializes them first.
   */
  readonly window?: WindowTvf;
  /** Set when the rows are a window aggregation's results, with their window columns. */
  readonly windowed?: WindowProperties;
  /**
   * Set when the query's rows change (an updating aggregation, an outer join): its changes,
   * whose `mode` is the changelog mode Flink would infer. `stream` is then not usable.
   */
  readonly changes?: ChangelogStream<Row>;
  /**
   * With `changes`: the positions of columns that identify a row among the current rows
   * (Flink's upsert key), when the planner can tell: an update of a row keeps these values.
   * `[]` means at most one row (a global aggregation).
   */
  readonly upsertKey?: readonly number[];
  /**
   * Positions of columns holding the end (or `window_time`) of the event-time window whose
   * result the row is: each row was emitted when the watermark passed its window's last
   * millisecond, so a row that comes after the watermark reached W holds more than W here. A
   * regular join uses it to drop rows of its other input that no later row can match.
   */
  readonly windowEndsAt?: readonly number[];
}
