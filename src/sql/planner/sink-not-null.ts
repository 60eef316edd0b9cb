/**
 * The NOT NULL columns of a table INSERT INTO writes, enforced before its sink as Flink's
 * ConstraintEnforcer does (`table.exec.sink.not-null-enforcer`): a row with NULL in such a
 * column fails the job (`ERROR`, the default) or is dropped (`DROP`). Flink drops such rows
 * silently; Weir counts each in `weir_sql_sink_not_null_dropped_total`.
 */
import type { Change } from '../../core/changelog.js';
import type { Collector, OperatorRuntimeContext, ProcessFunction } from '../../core/functions.js';
import type { Counter } from '../../core/metrics.js';
import type { Row } from '../connectors/connector.js';
import { type SourcePosition, sqlError } from '../sql-error.js';
import type { LogicalType } from '../types/logical-type.js';

/** Flink's option: what a NULL written into a NOT NULL column of a sink does. */
export const NOT_NULL_ENFORCER = 'table.exec.sink.not-null-enforcer';

/** Flink's option trimming and padding CHAR/VARCHAR/BINARY values to the sink's lengths. */
export const TYPE_LENGTH_ENFORCER = 'table.exec.sink.type-length-enforcer';

/** The counter of rows INSERT INTO dropped under `'table.exec.sink.not-null-enforcer' = 'DROP'`. */
export const SINK_NOT_NULL_DROPPED_METRIC = 'weir_sql_sink_not_null_dropped_total';

export type NotNullEnforcer = 'ERROR' | 'DROP';

/** The value of `table.exec.sink.not-null-enforcer` (`ERROR` unset), checked. */
export function notNullEnforcerOf(value: string | undefined, at?: SourcePosition): NotNullEnforcer {
  const text = (value ?? 'ERROR').trim().toUpperCase();
  if (text !== 'ERROR' && text !== 'DROP')
    sqlError(`'${NOT_NULL_ENFORCER}' is '${value}'; allowed values: ERROR, DROP`, at);
  return text;
}

/**
 * Refuses `table.exec.sink.type-length-enforcer`: INSERT INTO casts each value to its column's
 * type, which cuts a VARCHAR(n) value to n characters and pads a CHAR(n) one (Flink's
 * `TRIM_PAD` for strings) and leaves BINARY values whole, whatever the option says.
 */
export function checkTypeLengthEnforcer(value: string, at?: SourcePosition): never {
  return sqlError(
    `SET '${TYPE_LENGTH_ENFORCER}' = '${value}' is not supported by Weir SQL yet: INSERT INTO casts each value to its column's type, which cuts a VARCHAR(n) value to n characters and pads a CHAR(n) one (as TRIM_PAD does) and keeps BINARY and VARBINARY values whole`,
    at,
  );
}

/** The error of a NULL written into NOT NULL column `column`: Flink's message, and the table. */
export function notNullWriteError(table: string, column: string): Error {
  return new Error(
    `INSERT INTO ${table}: Column '${column}' is NOT NULL, however, a null value is being written into it. You can set job configuration '${NOT_NULL_ENFORCER}'='DROP' to suppress this exception and drop such records (counted in ${SINK_NOT_NULL_DROPPED_METRIC}).`,
  );
}

/** Which of a row's positions hold NULL in a NOT NULL column: the first such column's name. */
function nullColumn(
  positions: readonly number[],
  names: readonly string[],
): (row: Row) => string | undefined {
  return (row) => {
    for (let k = 0; k < positions.length; k++) {
      const v = row[positions[k] as number];
      if (v === null || v === undefined) return names[k];
    }
    return undefined;
  };
}

/** Drops (counted) or fails on rows with NULL in a NOT NULL column; `check` finds the column. */
abstract class Enforcer<T> implements ProcessFunction<T, T> {
  private dropped!: Counter;
  constructor(
    private readonly table: string,
    private readonly mode: NotNullEnforcer,
  ) {}
  open(context: OperatorRuntimeContext): void {
    this.dropped = context.metrics.counter(
      SINK_NOT_NULL_DROPPED_METRIC,
      "Rows INSERT INTO dropped for a NULL in a NOT NULL column of its table ('table.exec.sink.not-null-enforcer' = 'DROP')",
    );
  }
  protected abstract check(value: T): string | undefined;
  processElement(value: T, _context: unknown, out: Collector<T>): void {
    const column = this.check(value);
    if (column === undefined) {
      out.collect(value);
      return;
    }
    if (this.mode === 'ERROR') throw notNullWriteError(this.table, column);
    this.dropped.inc();
  }
}

class RowEnforcer extends Enforcer<Row> {
  constructor(
    table: string,
    mode: NotNullEnforcer,
    private readonly find: (row: Row) => string | undefined,
  ) {
    super(table, mode);
  }
  protected check(row: Row): string | undefined {
    return this.find(row);
  }
}

class ChangeEnforcer extends Enforcer<Change<Row>> {
  constructor(
    table: string,
    mode: NotNullEnforcer,
    private readonly find: (row: Row) => string | undefined,
    private readonly findKey: (row: Row) => string | undefined,
  ) {
    super(table, mode);
  }
  protected check(change: Change<Row>): string | undefined {
    // A delete or update-before may hold only its key (an upsert source's tombstone).
    return change.kind === '-D' || change.kind === '-U'
      ? this.findKey(change.value)
      : this.find(change.value);
  }
}

/**
 * The enforcer of the NOT NULL columns among `columns` (the written ones, in row order) for
 * rows and for changes (of which a delete is checked only at `keyPositions`, the sink's
 * PRIMARY KEY, when it has one); undefined when no column is NOT NULL.
 */
export function sinkNotNullEnforcer(
  table: string,
  columns: readonly { readonly name: string; readonly type: LogicalType }[],
  keyPositions: readonly number[] | undefined,
  mode: NotNullEnforcer,
):
  | {
      readonly names: readonly string[];
      rows(): ProcessFunction<Row, Row>;
      changes(): ProcessFunction<Change<Row>, Change<Row>>;
    }
  | undefined {
  const positions = columns.flatMap((c, i) => (c.type.nullable ? [] : [i]));
  if (positions.length === 0) return undefined;
  const names = positions.map((i) => (columns[i] as { name: string }).name);
  const find = nullColumn(positions, names);
  const keys =
    keyPositions === undefined || keyPositions.length === 0
      ? positions
      : positions.filter((i) => keyPositions.includes(i));
  const findKey = nullColumn(
    keys,
    keys.map((i) => (columns[i] as { name: string }).name),
  );
  return {
    names,
    rows: () => new RowEnforcer(table, mode, find),
    changes: () => new ChangeEnforcer(table, mode, find, findKey),
  };
}
