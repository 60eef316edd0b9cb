/**
 * `ORDER BY` columns that are not time attributes, without LIMIT: Flink refuses it in streaming
 * unless its testing option `table.exec.non-temporal-sort.enabled` is set, and then sorts the
 * whole input at its end (StreamSortOperator). So does Weir: every current row (changes
 * applied, so an updating input sorts its final rows) waits in state with how many times it
 * is held, and at the end of the bounded input the rows leave as inserts, sorted. An unbounded
 * input never ends, so nothing comes out, as in Flink.
 */
import type { Change } from '../../core/changelog.js';
import { describeRecord } from '../../core/errors.js';
import type {
  Collector,
  KeyedProcessContext,
  KeyedProcessFunction,
  KeyedRuntimeContext,
  OnTimerContext,
} from '../../core/functions.js';
import type { Key } from '../../core/key-groups.js';
import type { MapState, StateSerializer } from '../../core/state.js';
import { rowText } from '../../runtime/operators/changelog/same-row.js';
import type { Row } from '../connectors/connector.js';
import type { ScopeColumn } from '../expressions/scope.js';
import { type SourcePosition, sqlError } from '../sql-error.js';
import { changesOf, retracting } from './changelog-relation.js';
import type { Relation } from './relation.js';
import { SQL_VALUE_SERIALIZER } from './row-serializer.js';

export const NON_TEMPORAL_SORT_ENABLED = 'table.exec.non-temporal-sort.enabled';

/** Whether the option (default off) enables the sort; a value other than true/false is refused. */
export function nonTemporalSortOf(value: string | undefined, at?: SourcePosition): boolean {
  const text = (value ?? 'false').trim().toLowerCase();
  if (text !== 'true' && text !== 'false')
    sqlError(`'${NON_TEMPORAL_SORT_ENABLED}' is '${value}'; it must be 'true' or 'false'`, at);
  return text === 'true';
}

/**
 * The end of input fires every event-time timer (the watermark jumps to +Infinity); no
 * watermark of a running input reaches this one.
 */
const END_OF_INPUT = Number.MAX_VALUE;

/** A row held and how many times (Flink's StreamSortOperator keeps the same counts). */
type Held = [Row, number];

const HELD_SERIALIZER = SQL_VALUE_SERIALIZER as StateSerializer<Held>;

/** Every current row of the input, emitted sorted at the end of the input. */
class SortAtEnd implements KeyedProcessFunction<Key, Change<Row>, Row> {
  private rows!: MapState<string, Held>;

  constructor(private readonly compare: (a: Row, b: Row) => number) {}

  open(context: KeyedRuntimeContext): void {
    this.rows = context.state.getMapState<string, Held>({
      name: 'sort.rows',
      serializer: HELD_SERIALIZER,
    });
  }

  processElement(change: Change<Row>, context: KeyedProcessContext<Key>): void {
    const text = rowText(change.value);
    const count = this.rows.get(text)?.[1] ?? 0;
    if (change.kind === '+I' || change.kind === '+U') {
      this.rows.put(text, [change.value, count + 1]);
      context.timerService.registerEventTimeTimer(END_OF_INPUT);
    } else if (count === 0) {
      sqlError(
        `ORDER BY: a retraction (${change.kind}) of a row it does not hold: ${describeRecord(change.value)}`,
      );
    } else if (count === 1) {
      this.rows.remove(text);
    } else {
      this.rows.put(text, [change.value, count - 1]);
    }
  }

  onTimer(_time: number, _context: OnTimerContext<Key>, out: Collector<Row>): void {
    const held = [...this.rows.entries()].map(([, h]) => h);
    // Rows of equal keys come out in no particular order, as from Flink's hash map.
    held.sort(([a], [b]) => this.compare(a, b));
    for (const [row, count] of held) for (let i = 0; i < count; i++) out.collect(row);
    this.rows.clear();
  }
}

/** The input's rows sorted by `compare` at its end, insert-only, in one partition. */
export function sortAtEnd(
  input: Relation,
  compare: (a: Row, b: Row) => number,
  columns: readonly ScopeColumn[],
): Relation {
  const stream = retracting(changesOf(input))
    .keyBy((): Key => 0, 'sort (global)')
    .process(new SortAtEnd(compare))
    .name('ORDER BY (at the end of input)');
  return { stream, columns };
}
