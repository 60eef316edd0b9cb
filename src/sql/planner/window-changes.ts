/**
 * A window aggregation over a changelog (Flink's window aggregate over a CDC source): each
 * change goes to the windows of its row's rowtime, an insert or update-after adding the row to
 * their accumulators and an update-before or delete taking it back out, and each window still
 * fires once, insert-only, when the watermark passes its end. A change late for a window is
 * dropped as a late insert is. As Flink, a window whose rows were all retracted (a row count of
 * 0) emits nothing, while one that holds only retractions (their inserts went to no window of
 * this run) emits what its accumulators say: a count of -1, a negative SUM.
 */
import type { ChangelogStream, DataStream } from '../../api/streams.js';
import type { AggregateFunction } from '../../core/functions.js';
import type { Row } from '../connectors/connector.js';
import type { Scope } from '../expressions/scope.js';
import { sqlError } from '../sql-error.js';
import type { AggregateCallAst } from './aggregate-spec.js';
import { rowAggregate } from './aggregates.js';
import { retracting } from './changelog-relation.js';
import { stampedWith } from './event-time.js';

/** The result of a window whose rows were all retracted: nothing is emitted for it. */
export const NO_ROWS: Row = [];

/** An aggregate's accumulator with the window's net number of rows (inserts less retractions). */
export interface SignedAccumulator<A> {
  a: A;
  n: number;
}

/**
 * The changes as rows with a sign appended at `signAt` (1: add the row, -1: take it out). An
 * upsert changelog is first given the update-befores it lacks. With `timeAt` (event time), each
 * row carries its rowtime column as its event time, as Flink's window operators read the time
 * from the row: an update-before made from an upsert arrives with the time of the row that
 * replaced it, but belongs to the windows of its own rowtime.
 */
export function signedRows(
  changes: ChangelogStream<Row>,
  signAt: number,
  timeAt: number | undefined,
  timeName: string,
): DataStream<Row> {
  const rows = retracting(changes)
    .map((c): Row => {
      const row = c.value.slice(0, signAt);
      row.push(c.kind === '+I' || c.kind === '+U' ? 1 : -1);
      return row;
    })
    .name('signed rows');
  return timeAt === undefined ? rows : stampedWith(rows, timeAt, timeName);
}

/**
 * `fn` over signed rows (see {@link signedRows}): a row signed -1 is retracted. The result is
 * {@link NO_ROWS} when the window's rows cancel out.
 */
export function signedAggregate<A>(
  fn: AggregateFunction<Row, A, Row> & { retract?: (row: Row, acc: A) => A },
  signAt: number,
): AggregateFunction<Row, SignedAccumulator<A>, Row> {
  const retract = fn.retract;
  if (retract === undefined) throw new Error('signedAggregate needs an aggregate that retracts');
  const merge = fn.merge;
  return {
    ...('explain' in fn ? { explain: fn.explain } : {}),
    createAccumulator: () => ({ a: fn.createAccumulator(), n: 0 }),
    add(row, acc) {
      if (row[signAt] === -1) {
        acc.a = retract.call(fn, row, acc.a);
        acc.n--;
      } else {
        acc.a = fn.add(row, acc.a);
        acc.n++;
      }
      return acc;
    },
    getResult: (acc) => (acc.n === 0 ? NO_ROWS : fn.getResult(acc.a)),
    ...(merge === undefined
      ? {}
      : {
          merge: (x: SignedAccumulator<A>, y: SignedAccumulator<A>): SignedAccumulator<A> => ({
            a: merge.call(fn, x.a, y.a),
            n: x.n + y.n,
          }),
        }),
  };
}

/**
 * Refuses, at plan time, a window aggregation over a changelog with an aggregate that cannot
 * take a row back out (FIRST_VALUE, LISTAGG, a TypeScript aggregate without `retract`), as
 * Flink refuses it.
 */
export function refuseUnretractable(calls: readonly AggregateCallAst[], scope: Scope): void {
  for (const call of calls) {
    if (rowAggregate([], [], [call], scope, true).fn.retract === undefined)
      sqlError(
        `${call.name} cannot retract a row, which a window aggregation over an updating input (a changelog) needs`,
        call.at,
      );
  }
}
