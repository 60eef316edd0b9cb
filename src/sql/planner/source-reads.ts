/**
 * Filter pushdown into a source table's scan (Flink's `SupportsFilterPushDown`): the values a
 * reader keeps of the columns the connector can filter on, from the `column = integer`
 * conjuncts of its WHERE, so the scan skips a record of a variant the reader never keeps
 * before reading anything else (planner/record-scan.ts).
 */
import type { DataStream } from '../../api/streams.js';
import type { Row } from '../connectors/connector.js';
import { Scope, type ScopeColumn } from '../expressions/scope.js';
import type { Expr } from '../parser/ast.js';
import type { Relation } from './relation.js';

/**
 * Per filterable column (by position) that an equality in `where` restricts, the values a row
 * must have there to be kept (empty when two equalities contradict each other).
 */
export function keptValues(
  where: readonly Expr[],
  columns: readonly ScopeColumn[],
  filterable: ReadonlySet<number>,
): Map<number, Set<number>> {
  const scope = new Scope(columns);
  const kept = new Map<number, Set<number>>();
  for (const condition of where.flatMap(conjuncts)) {
    const eq = equality(condition, scope, filterable);
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
  return kept;
}

/** `#k = 2` or `2 = #k` on a filterable column with an integer literal. */
function equality(
  e: Expr,
  scope: Scope,
  filterable: ReadonlySet<number>,
): { column: number; value: number } | undefined {
  if (e.kind !== 'binary' || e.op !== '=') return undefined;
  const [ref, literal] = e.left.kind === 'column' ? [e.left, e.right] : [e.right, e.left];
  if (ref.kind !== 'column' || literal.kind !== 'number' || !/^-?\d+$/.test(literal.text))
    return undefined;
  const r = scope.resolve(ref.path, ref.at);
  if (r.fields.length > 0 || !filterable.has(r.index)) return undefined;
  return { column: r.index, value: Number(literal.text) };
}

function conjuncts(e: Expr): Expr[] {
  return e.kind === 'binary' && e.op === 'AND'
    ? [...conjuncts(e.left), ...conjuncts(e.right)]
    : [e];
}

/** A filter and projection over a table's columns (a Calc's conditions and output). */
export interface FilterAndProjection {
  readonly where: readonly Expr[];
  readonly project: readonly Expr[];
}

/** How a source table's readers get their rows (planner/record-scan.ts builds them). */
export interface TableReaders {
  /** Every row, for a reader the planner does not look into. */
  all(): DataStream<Row>;
  /** The rows of a filter and projection over the table, filtered and projected. */
  filterAndProject(calc: FilterAndProjection): DataStream<Row>;
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
  filterAndProject(calc: FilterAndProjection): DataStream<Row> {
    return this.readers.filterAndProject(calc);
  }
}
