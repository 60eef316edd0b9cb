/** What planning a FROM item or a query gives: a stream of rows and the columns of its rows. */
import type { ChangelogStream, DataStream } from '../../api/streams.js';
import type { Row } from '../connectors/connector.js';
import type { ScopeColumn } from '../expressions/scope.js';

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
  /** The input relation (its rows lack the three window columns). */
  readonly input: Relation;
  /**
   * Windows of processing time (the DESCRIPTOR names a `PROCTIME()` column): rows are
   * assigned by the wall clock when they reach the window operator, as in Flink.
   */
  readonly processingTime?: boolean;
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
}
