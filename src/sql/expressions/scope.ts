/** The columns an expression can name: a row of fixed shape, each column at its index. */
import type { SourcePosition } from '../sql-error.js';
import { sqlError } from '../sql-error.js';
import type { LogicalType } from '../types/logical-type.js';
import type { TimeZone } from '../types/time-zone.js';

export interface ScopeColumn {
  readonly name: string;
  readonly type: LogicalType;
  /** The table or alias the column comes from (`b` in `b.price`), if any. */
  readonly qualifier: string | undefined;
  /** An event-time attribute (the rowtime column, window_start/window_end/window_time). */
  readonly rowtime: boolean;
  /**
   * On a rowtime column whose values are not the event time its rows carry: an interval join
   * keeps both inputs' rowtimes as time attributes, and its rows carry one. An operator that
   * windows or orders rows by this column first gives them its values (`planner/event-time.ts`).
   */
  readonly restamp?: boolean;
  /** A processing-time attribute (`PROCTIME()`): what lookup joins and processing-time windows take. */
  readonly proctime?: boolean;
  /**
   * On `window_start` and `window_end` of windows aligned on a session zone's wall clock (a
   * TIMESTAMP_LTZ time attribute outside UTC): the zone, which a window Top-N, deduplication or
   * join over them needs to fire each window when Flink does.
   */
  readonly windowZone?: TimeZone;
}

/** A column found for a name, and the ROW fields below it (`person.id`: field `id` of `person`). */
export interface ResolvedColumn {
  readonly index: number;
  readonly column: ScopeColumn;
  readonly fields: readonly { readonly index: number; readonly type: LogicalType }[];
  readonly type: LogicalType;
}

export class Scope {
  constructor(readonly columns: readonly ScopeColumn[]) {}

  /** Resolves `a`, `t.a`, `a.f`, `t.a.f` (a qualifier first when one matches). */
  resolve(path: readonly string[], at: SourcePosition): ResolvedColumn {
    const [first, second] = path;
    if (first === undefined) return sqlError('empty column name', at);
    // `#3`: the column at position 3 (the planner's references; no name starts with #).
    if (first.startsWith('#') && /^#\d+$/.test(first)) {
      const index = Number(first.slice(1));
      if (index >= this.columns.length) return sqlError(`no column at position ${index}`, at);
      return this.fieldsOf(index, path.slice(1), at);
    }
    if (second !== undefined && this.columns.some((c) => c.qualifier === first)) {
      const index = this.find(second, first, at);
      if (index >= 0) return this.fieldsOf(index, path.slice(2), at);
    }
    const index = this.find(first, undefined, at);
    if (index < 0) {
      const known = this.columns.map((c) => c.name).join(', ');
      return sqlError(
        known === ''
          ? `column '${path.join('.')}' not found; there are no columns in scope`
          : `column '${path.join('.')}' not found; the columns are: ${known}`,
        at,
      );
    }
    return this.fieldsOf(index, path.slice(1), at);
  }

  private find(name: string, qualifier: string | undefined, at: SourcePosition): number {
    let found = -1;
    this.columns.forEach((c, i) => {
      if (c.name !== name || (qualifier !== undefined && c.qualifier !== qualifier)) return;
      if (found >= 0) sqlError(`column '${name}' is ambiguous`, at);
      found = i;
    });
    return found;
  }

  private fieldsOf(index: number, rest: readonly string[], at: SourcePosition): ResolvedColumn {
    const column = this.columns[index] as ScopeColumn;
    let type = column.type;
    const fields: { index: number; type: LogicalType }[] = [];
    for (const name of rest) {
      if (type.kind !== 'ROW')
        return sqlError(`'${name}' is not a field: the column is ${type.kind}`, at);
      const fieldIndex = type.fields.findIndex((f) => f.name === name);
      if (fieldIndex < 0) {
        return sqlError(
          `field '${name}' not found; the fields are: ${type.fields.map((f) => f.name).join(', ')}`,
          at,
        );
      }
      // A field of a nullable row is nullable.
      const field = type.fields[fieldIndex] as { type: LogicalType };
      type =
        type.nullable && !field.type.nullable
          ? ({ ...field.type, nullable: true } as LogicalType)
          : field.type;
      fields.push({ index: fieldIndex, type });
    }
    return { index, column, fields, type };
  }
}
