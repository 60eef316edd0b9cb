/**
 * UNION, INTERSECT and EXCEPT (DISTINCT or ALL), as Flink plans them over streams:
 * - UNION [DISTINCT] is UNION ALL then a GROUP BY of every column (an updating aggregation);
 * - INTERSECT and EXCEPT, DISTINCT or ALL, count each row on either side and emit as many
 *   copies of it as the counts call for (Flink's rewrite into an aggregate of counts per row
 *   and, for ALL, a table function replicating the row). Here one keyed operator does both:
 *   keyed by the whole row, it keeps the row's two counts and emits `+I`/`-D` for every copy
 *   that appears or goes. Over changing inputs a retracted row is taken out of its count.
 *
 * Rows compare as SQL's set operations compare them: NULL equals NULL.
 */
import type { DataStream } from '../../api/streams.js';
import type { Change } from '../../core/changelog.js';
import { describeRecord } from '../../core/errors.js';
import type {
  Collector,
  KeyedProcessContext,
  KeyedProcessFunction,
  KeyedRuntimeContext,
} from '../../core/functions.js';
import type { StateTtlConfig, ValueState } from '../../core/state.js';
import { rowText } from '../../runtime/operators/changelog/same-row.js';
import type { Row } from '../connectors/connector.js';
import type { ScopeColumn } from '../expressions/scope.js';
import { type SourcePosition, sqlError } from '../sql-error.js';
import { T } from '../types/logical-type.js';
import { unionAllChanges } from './changelog-calc.js';
import { noteChangelogRole } from './changelog-plan.js';
import { changesOf, retracting, updatingRelation } from './changelog-relation.js';
import type { Relation } from './relation.js';

/** How many copies of a row the result holds, given its count on the left and on the right. */
function copiesOf(op: 'INTERSECT' | 'EXCEPT', all: boolean, left: number, right: number): number {
  if (op === 'INTERSECT') return all ? Math.min(left, right) : left > 0 && right > 0 ? 1 : 0;
  return all ? Math.max(left - right, 0) : left > 0 && right === 0 ? 1 : 0;
}

/** Plans `left INTERSECT|EXCEPT [ALL] right` (UNION is a UNION ALL and a GROUP BY). */
export function planSetOperation(
  op: 'INTERSECT' | 'EXCEPT',
  all: boolean,
  left: Relation,
  right: Relation,
  at: SourcePosition,
  stateTtl?: StateTtlConfig,
): Relation {
  const what = `${op}${all ? ' ALL' : ''}`;
  if (left.columns.length !== right.columns.length)
    sqlError(`${what} of ${left.columns.length} and ${right.columns.length} columns`, at);
  // Both sides as changes of rows of common types (the checks and casts of UNION ALL), each
  // row tagged with its side in a last column.
  const tagged = unionAllChanges(tagSide(left, 0), tagSide(right, 1), at, what);
  const width = left.columns.length;
  const columns = tagged.columns.slice(0, width);
  const counted = changesOf(tagged)
    .keyBy((c: Change<Row>) => rowText(c.value.slice(0, width)), 'row')
    .process(new RowCounts(op, all, width, stateTtl))
    .name(what);
  noteChangelogRole(counted, { kind: 'retracting', updates: false });
  // Each row of a DISTINCT result is there once: its columns identify it.
  const key = all ? undefined : columns.map((_, i) => i);
  return updatingRelation(counted.asChangelog('retract'), columns, what, key);
}

/** The relation's rows with one more column: which side of the set operation they come from. */
function tagSide(relation: Relation, side: 0 | 1): Relation {
  const columns: ScopeColumn[] = [
    ...relation.columns,
    { name: '$side', type: T.int('INTEGER', false), qualifier: undefined, rowtime: false },
  ];
  if (relation.changes !== undefined) {
    const tag = (r: Row): Row => [...r, side];
    return updatingRelation(retracting(relation.changes).mapRows(tag), columns, 'its input');
  }
  const stream: DataStream<Row> = relation.stream.map((r: Row) => [...r, side]);
  return { stream, columns };
}

/**
 * The counts of one row on either side of INTERSECT or EXCEPT, and the copies of it the
 * result holds: an accumulating change (`+I`, `+U`) adds one to its side, a retracting one
 * (`-U`, `-D`) takes one away; the copies that appear are emitted as `+I`, those that go as `-D`.
 */
export class RowCounts implements KeyedProcessFunction<string, Change<Row>, Change<Row>> {
  private counts!: ValueState<[number, number]>;

  constructor(
    private readonly op: 'INTERSECT' | 'EXCEPT',
    private readonly all: boolean,
    private readonly width: number,
    private readonly ttl: StateTtlConfig | undefined,
  ) {}

  open(context: KeyedRuntimeContext): void {
    this.counts = context.state.getValueState<[number, number]>({
      name: 'set-operation.counts',
      ...(this.ttl === undefined ? {} : { ttl: this.ttl }),
    });
  }

  processElement(
    change: Change<Row>,
    _context: KeyedProcessContext<string>,
    out: Collector<Change<Row>>,
  ): void {
    const before = this.counts.value() ?? [0, 0];
    const side = change.value[this.width] === 0 ? 0 : 1;
    const delta = change.kind === '+I' || change.kind === '+U' ? 1 : -1;
    const after: [number, number] = [before[0], before[1]];
    after[side] += delta;
    if (after[side] < 0) {
      // Only expired state explains a retraction of a row not counted (Flink's aggregation
      // ignores it then too); without a TTL the input is inconsistent.
      if (this.ttl !== undefined) return;
      sqlError(
        `${this.op}${this.all ? ' ALL' : ''}: a retraction (${change.kind}) of a row its ${side === 0 ? 'left' : 'right'} input does not hold: ${describeRecord(change.value.slice(0, this.width))}`,
      );
    }
    if (after[0] === 0 && after[1] === 0) this.counts.clear();
    else this.counts.update(after);
    const had = copiesOf(this.op, this.all, before[0], before[1]);
    const has = copiesOf(this.op, this.all, after[0], after[1]);
    if (had === has) return;
    const row = change.value.slice(0, this.width);
    const kind = has > had ? '+I' : '-D';
    for (let i = Math.min(had, has); i < Math.max(had, has); i++) out.collect({ kind, value: row });
  }
}
