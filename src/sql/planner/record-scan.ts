/**
 * A source table read through its connector's own records (connector.ts, RecordScan): each
 * reader gets one generated function of the record that reads the stored columns it names
 * straight from the record, computes the computed columns it names, and applies its filter
 * and projection, so a bid a filter drops never becomes a row and no table row is built
 * between the record and the reader's output. The rowtime and the WATERMARK expression are
 * compiled the same way, for the timestamps of all records (as Flink assigns them on the
 * table scan, before any filter).
 */
import type { DataStream } from '../../api/streams.js';
import type { CatalogTable } from '../catalog/catalog.js';
import type { RecordScan, Row } from '../connectors/connector.js';
import { CodeGen, type WatermarkCell } from '../expressions/code-gen.js';
import { type CompileContext, compile } from '../expressions/compile.js';
import { Scope, type ScopeColumn } from '../expressions/scope.js';
import type { Expr } from '../parser/ast.js';
import { sqlError } from '../sql-error.js';
import { calcBody, collectDefined, watermarkCalc } from './calc.js';
import { type FilterAndProjection, keptValues } from './source-reads.js';

/** Statements of a function over the record, given how to read the table's columns. */
type Body = (ctx: CompileContext) => string;

export class RecordScanPlan {
  private allRows: DataStream<Row> | undefined;

  constructor(
    private readonly table: CatalogTable,
    private readonly scan: RecordScan,
    private readonly columns: readonly ScopeColumn[],
    /** The records with their event times and watermarks. */
    private readonly records: DataStream<unknown>,
  ) {}

  /** Every row of the table, for a reader the planner does not look into (built once). */
  all(): DataStream<Row> {
    if (this.allRows === undefined) {
      const { fn, reads } = recordFunction<(record: unknown) => Row>(
        this.table,
        this.scan,
        this.columns,
        new Map(),
        (ctx) => `return [${this.columns.map((_, i) => ctx.read?.(i, undefined)).join(', ')}];`,
      );
      this.allRows = this.records
        .map(fn)
        .name(`${this.table.name}: rows, ${describe(this.columns, reads, new Map())}`);
    }
    return this.allRows;
  }

  /** The rows of a filter and projection over the table, computed from the records. */
  filterAndProject(calc: FilterAndProjection): DataStream<Row> {
    const filter = keptValues(calc.where, this.columns, this.filterable());
    const { fn, reads, watermark } = recordFunction<(record: unknown) => Row | undefined>(
      this.table,
      this.scan,
      this.columns,
      filter,
      (ctx) => calcBody(calc, ctx),
      true,
    );
    const name = `${this.table.name}: scan, ${describe(this.columns, reads, filter)}, where, select`;
    // CURRENT_WATERMARK: the scan's input watermark, the one assigned to the records before it.
    if (watermark !== undefined)
      return this.records.process(watermarkCalc(fn, watermark)).name(name);
    return this.records.flatMap(collectDefined(fn)).name(name);
  }

  /** Positions of the columns the scan filters on. */
  private filterable(): Set<number> {
    return new Set(
      this.scan.filterColumns
        .map((name) => this.columns.findIndex((c) => c.name === name))
        .filter((i) => i >= 0),
    );
  }
}

/**
 * `record -> value` for the table over `scan`: one branch per variant that declares the
 * stored values the body reads (read from the record once), then the computed columns it
 * reads, then runs the body. A variant `filter` excludes returns undefined at once.
 */
export function recordFunction<F>(
  table: CatalogTable,
  scan: RecordScan,
  columns: readonly ScopeColumn[],
  filter: ReadonlyMap<number, ReadonlySet<number>>,
  body: Body,
  /** Whether the body may read the operator's watermark (CURRENT_WATERMARK of a calc). */
  readsWatermark = false,
): {
  readonly fn: F;
  readonly reads: readonly StoredRead[];
  /** The cell the function reads the watermark from, when it does. */
  readonly watermark?: WatermarkCell | undefined;
} {
  const g = new CodeGen();
  const stored = new Map<string, readonly [number, number | undefined]>();
  const computed: string[] = [];
  const computedNames = new Map<number, string>();
  const readStored = (column: number, field: number | undefined): string => {
    const name = field === undefined ? `in${column}` : `in${column}_${field}`;
    stored.set(name, [column, field]);
    return name;
  };
  // Each computed column the function reads is computed once, before the body (its own
  // scope object keeps its subexpressions apart from the body's shared ones).
  const computedScope = new Scope(columns);
  const read = (column: number, field: number | undefined): string => {
    const expr = table.columns[column]?.computed;
    if (expr === undefined) return readStored(column, field);
    let name = computedNames.get(column);
    if (name === undefined) {
      const value = compile(expr, { scope: computedScope, g, read: storedOnly(table, readStored) });
      name = `cc${column}`;
      computedNames.set(column, name);
      computed.push(`const ${name} = ${value.code};`);
    }
    if (field === undefined) return name;
    // A field of a computed ROW: read from the value like any nested field.
    const t = g.temp();
    return `((${t} = ${name}) === null ? null : ${t}[${field}])`;
  };
  const code = body({ scope: new Scope(columns), g, read });
  const branches = scan.variants.map((v) => {
    if (!v.matches(filter)) return `case ${v.tag}: return undefined;`;
    const values = [...stored].map(([name, [c, f]]) => `const ${name} = ${v.value(c, f)};`);
    return `case ${v.tag}: { ${v.prelude} ${values.join(' ')} ${computed.join(' ')} ${code} }`;
  });
  const watermark = readsWatermark ? g.takeWatermark() : undefined;
  // `r` is the record (CodeGen's functions take one argument, `r`).
  const fn = g.function<F>(`switch (${scan.tag}) { ${branches.join(' ')} } ${scan.unknown}`);
  return { fn, reads: [...stored.values()], watermark };
}

/** A stored column, or one ROW field of it, that a function reads from the record. */
type StoredRead = readonly [column: number, field: number | undefined];

/** `project=[...]` (and `filter=[...]`) as EXPLAIN shows a scan, as Flink prints its table scan. */
function describe(
  columns: readonly ScopeColumn[],
  reads: readonly StoredRead[],
  filter: ReadonlyMap<number, ReadonlySet<number>>,
): string {
  const whole = new Set(reads.flatMap(([c, f]) => (f === undefined ? [c] : [])));
  const names = reads
    .filter(([c, f]) => f === undefined || !whole.has(c))
    .sort(([c1, f1], [c2, f2]) => c1 - c2 || (f1 ?? -1) - (f2 ?? -1))
    .map(([c, f]) => {
      const column = columns[c] as ScopeColumn;
      const type = column.type;
      return f === undefined || type.kind !== 'ROW'
        ? column.name
        : `${column.name}.${type.fields[f]?.name}`;
    });
  const filters = [...filter].map(([column, values]) => {
    const name = (columns[column] as ScopeColumn).name;
    const list = [...values].sort((a, b) => a - b);
    return list.length === 1 ? `=(${name}, ${list[0]})` : `IN(${name}, ${list.join(', ')})`;
  });
  return `project=[${names.join(', ')}]${filters.length === 0 ? '' : `, filter=[${filters.join(', ')}]`}`;
}

/** The read of a computed column's expression: stored columns only, as Flink requires. */
function storedOnly(
  table: CatalogTable,
  readStored: (column: number, field: number | undefined) => string,
): (column: number, field: number | undefined) => string {
  return (column, field) => {
    const c = table.columns[column];
    if (c?.computed !== undefined)
      sqlError(`a computed column cannot read the computed column '${c.name}'`, c.computed.at);
    return readStored(column, field);
  };
}

/** `expr` (over the table's columns) as a function of the record, for every record. */
export function recordExpression(
  table: CatalogTable,
  scan: RecordScan,
  columns: readonly ScopeColumn[],
  expr: Expr,
): (record: unknown) => unknown {
  return recordFunction<(record: unknown) => unknown>(
    table,
    scan,
    columns,
    new Map(),
    (ctx) => `return ${compile(expr, ctx).code};`,
  ).fn;
}
