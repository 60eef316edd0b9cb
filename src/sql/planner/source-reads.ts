/**
 * Projection and filter pushdown into a source (Flink's `SupportsProjectionPushDown` and
 * `SupportsFilterPushDown`): each operator that reads a source table reports which stored
 * columns and ROW fields it uses and which `column = value` conditions it keeps rows by. The
 * connector asks for the union once the job starts, when every reader has been planned, and
 * builds rows with only what is read (the table's shape, null elsewhere), skipping rows no
 * reader keeps. A reader the planner cannot see into reads everything.
 */
import type { DataStream } from '../../api/streams.js';
import { WeirError } from '../../core/errors.js';
import type { Row, SourceReads } from '../connectors/connector.js';
import { Scope, type ScopeColumn } from '../expressions/scope.js';
import type { Expr } from '../parser/ast.js';
import type { Calc } from './calc.js';
import { mapChildren } from './expr-tools.js';
import type { Relation } from './relation.js';

type ColumnRead = 'whole' | Set<number>;

export class SourceReadTracker {
  private everything = false;
  private readonly columns = new Map<number, ColumnRead>();
  /** The filters of the readers seen: one map (column -> values kept) per reader. */
  private readonly readerFilters: Map<number, Set<number>>[] = [];
  private unfilteredReader = false;
  private resolved: SourceReads | undefined;

  /** Told the pushed projection and filter whenever they change (EXPLAIN shows them). */
  describe: (pushed: string) => void = () => {};

  /** `filterable`: positions of the columns the connector filters on. */
  constructor(
    private readonly scopeColumns: readonly ScopeColumn[],
    private readonly stored: number,
    private readonly filterable: ReadonlySet<number>,
  ) {}

  /** A reader of every column and row (an operator the planner does not look into). */
  readAll(): void {
    this.assertOpen();
    this.everything = true;
    this.unfilteredReader = true;
    this.changed();
  }

  /**
   * Expressions evaluated for every row the source emits (computed columns, the WATERMARK):
   * their columns are read, and they keep no row out.
   */
  readAlways(exprs: readonly Expr[]): void {
    this.assertOpen();
    for (const e of exprs) this.collect(e);
    this.changed();
  }

  /**
   * A filter and projection over the source's rows: it reads the columns its expressions name,
   * and keeps only rows where each `column = integer` conjunct of `where` holds.
   */
  readByCalc(where: readonly Expr[], project: readonly Expr[]): void {
    this.assertOpen();
    for (const e of [...where, ...project]) this.collect(e);
    const kept = new Map<number, Set<number>>();
    for (const condition of where.flatMap(conjuncts)) {
      const eq = this.equality(condition);
      if (eq === undefined) continue;
      const previous = kept.get(eq.column);
      // Two equalities on one column keep the rows where both hold.
      kept.set(
        eq.column,
        previous === undefined
          ? new Set([eq.value])
          : new Set([...previous].filter((v) => v === eq.value)),
      );
    }
    if (kept.size === 0) this.unfilteredReader = true;
    else this.readerFilters.push(kept);
    this.changed();
  }

  /** The union of all reads; called when the job starts, after which nothing may be added. */
  resolve(): SourceReads {
    this.resolved ??= this.union();
    return this.resolved;
  }

  private union(): SourceReads {
    const columns = Array.from({ length: this.stored }, (_, i) =>
      this.everything ? ('whole' as const) : this.columns.get(i),
    );
    return { columns, filter: this.filter() };
  }

  /** `project=[...]`, `filter=[...]` as EXPLAIN shows them. */
  text(): string {
    const reads = this.union();
    const names: string[] = [];
    reads.columns.forEach((read, i) => {
      const column = this.scopeColumns[i] as ScopeColumn;
      if (read === 'whole') names.push(column.name);
      else if (read !== undefined && column.type.kind === 'ROW') {
        const { fields } = column.type;
        for (const f of [...read].sort((a, b) => a - b))
          names.push(`${column.name}.${fields[f]?.name}`);
      }
    });
    const filters = [...reads.filter].map(([column, values]) => {
      const name = (this.scopeColumns[column] as ScopeColumn).name;
      const list = [...values].sort((a, b) => a - b);
      return list.length === 1 ? `=(${name}, ${list[0]})` : `IN(${name}, ${list.join(', ')})`;
    });
    const filter = filters.length === 0 ? '' : `, filter=[${filters.join(', ')}]`;
    return `project=[${names.join(', ')}]${filter}`;
  }

  /** Columns whose values every reader restricts: the union of the values they keep. */
  private filter(): Map<number, Set<number>> {
    const filter = new Map<number, Set<number>>();
    if (this.unfilteredReader || this.readerFilters.length === 0) return filter;
    for (const column of this.filterable) {
      if (!this.readerFilters.every((f) => f.has(column))) continue;
      filter.set(column, new Set(this.readerFilters.flatMap((f) => [...(f.get(column) ?? [])])));
    }
    return filter;
  }

  private changed(): void {
    this.describe(this.text());
  }

  private assertOpen(): void {
    if (this.resolved !== undefined)
      throw new WeirError(
        'INTERNAL',
        'a source table was read by an operator planned after its job started',
      );
  }

  /** Records the columns and fields `e` names (over the source's columns). */
  private collect(e: Expr): void {
    if (e.kind === 'column') {
      const r = new Scope(this.scopeColumns).resolve(e.path, e.at);
      this.read(r.index, r.fields[0]?.index);
      return;
    }
    // Names inside an OVER window or a table argument are not walked: read everything.
    if (e.kind === 'descriptor' || e.kind === 'table-arg' || (e.kind === 'call' && e.over)) {
      this.everything = true;
      return;
    }
    mapChildren(e, (child) => {
      this.collect(child);
      return child;
    });
  }

  private read(column: number, field: number | undefined): void {
    // A computed column is computed from stored ones, whose reads its expression records.
    if (column >= this.stored) return;
    const previous = this.columns.get(column);
    if (previous === 'whole') return;
    if (field === undefined) {
      this.columns.set(column, 'whole');
      return;
    }
    const fields = previous ?? new Set<number>();
    fields.add(field);
    this.columns.set(column, fields);
  }

  /** `#k = 2` or `2 = #k` on a filterable column with an integer literal. */
  private equality(e: Expr): { column: number; value: number } | undefined {
    if (e.kind !== 'binary' || e.op !== '=') return undefined;
    const [ref, literal] = e.left.kind === 'column' ? [e.left, e.right] : [e.right, e.left];
    if (ref.kind !== 'column' || literal.kind !== 'number' || !/^-?\d+$/.test(literal.text))
      return undefined;
    const r = new Scope(this.scopeColumns).resolve(ref.path, ref.at);
    if (r.fields.length > 0 || !this.filterable.has(r.index)) return undefined;
    return { column: r.index, value: Number(literal.text) };
  }
}

function conjuncts(e: Expr): Expr[] {
  return e.kind === 'binary' && e.op === 'AND'
    ? [...conjuncts(e.left), ...conjuncts(e.right)]
    : [e];
}

/** How a source table's readers get their rows (planner/record-scan.ts builds them). */
export interface TableReaders {
  /** Every row, for a reader the planner does not look into. */
  all(): DataStream<Row>;
  /** The rows of a filter and projection over the table, filtered and projected. */
  filterAndProject(calc: Pick<Calc, 'where' | 'project'>): DataStream<Row>;
}

/**
 * A source table as a relation. Its `stream` is for readers the planner does not look into
 * (they read every row); a filter and projection over it reads through {@link filterAndProject}.
 */
export class SourceRelation implements Relation {
  declare readonly stream: DataStream<Row>;

  constructor(
    private readonly readers: TableReaders,
    readonly columns: readonly ScopeColumn[],
  ) {
    // An own, enumerable accessor: a copy of the relation (`{ ...relation }`) reads it too.
    Object.defineProperty(this, 'stream', {
      enumerable: true,
      get: (): DataStream<Row> => readers.all(),
    });
  }

  withColumns(columns: readonly ScopeColumn[]): SourceRelation {
    return new SourceRelation(this.readers, columns);
  }

  /** The rows of a filter and projection over the table. */
  filterAndProject(calc: Pick<Calc, 'where' | 'project'>): DataStream<Row> {
    return this.readers.filterAndProject(calc);
  }
}
