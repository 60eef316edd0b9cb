/**
 * Interval joins, INNER, LEFT, RIGHT and FULL, as Flink SQL runs them (its
 * `StreamExecIntervalJoin`, `RowTimeIntervalJoin` and `ProcTimeIntervalJoin`): a join of two
 * insert-only inputs whose condition bounds the difference of a time attribute of each side
 * from both sides (`interval-bounds.ts`), two rowtimes or two PROCTIME() columns. Matched pairs leave at once; a row of an outer side that met nothing
 * leaves padded with NULLs when the watermark passes its interval (when it leaves the state).
 * The output is insert-only and keeps both inputs' rowtimes as time attributes: the join holds
 * the watermark back by the interval's span, so that neither is late downstream. Its rows
 * carry the left rowtime as their event time (the right one in a RIGHT join); the other rowtime
 * columns are marked `restamp` for the operators that window or order by them (`event-time.ts`).
 * An empty interval (its lower bound past its upper one) joins nothing: as in Flink, the rows
 * of an outer side are padded at once and those of an inner side dropped. By processing time
 * each row's time is the join's clock when it arrives, rows expire by that clock, and the
 * output keeps the PROCTIME() columns as time attributes but no rowtime: nothing holds the
 * watermark back for them.
 */
import type { DataStream } from '../../api/streams.js';
import { timeIntervalJoin } from '../../api/time-interval-join.js';
import type { JoinType } from '../../core/joins.js';
import type { Key } from '../../core/key-groups.js';
import type { TimeDomain } from '../../core/windows.js';
import type { Row } from '../connectors/connector.js';
import type { ScopeColumn } from '../expressions/scope.js';
import { withNullability } from '../types/logical-type.js';
import type { IntervalBounds } from './interval-bounds.js';
import type { Relation } from './relation.js';
import { ROW_SERIALIZER } from './row-serializer.js';

export interface IntervalJoinPlan {
  readonly type: JoinType;
  readonly left: Relation;
  readonly right: Relation;
  readonly leftKey: (row: Row) => Key;
  readonly rightKey: (row: Row) => Key;
  /** `right rowtime - left rowtime` lies within these. */
  readonly bounds: IntervalBounds;
  /** The positions of the two time attributes the bounds relate (the right one among the right's columns). */
  readonly leftTime: number;
  readonly rightTime: number;
  /** Rowtimes (event time) or PROCTIME() columns (processing time). */
  readonly timeDomain: TimeDomain;
  /** The rest of the condition, on the joined row; undefined: none. */
  readonly test: ((row: Row) => boolean) | undefined;
}

/** Plans the interval join of `plan.left` and `plan.right`. */
export function planIntervalJoin(plan: IntervalJoinPlan): Relation {
  const { type, left, right, leftTime, rightTime, test, timeDomain } = plan;
  const proctime = timeDomain === 'processing-time';
  const leftWidth = left.columns.length;
  const nullsLeft: Row = new Array<unknown>(leftWidth).fill(null);
  const nullsRight: Row = new Array<unknown>(right.columns.length).fill(null);
  const combine = (l: Row | null, r: Row | null): Row => [
    ...(l ?? nullsLeft),
    ...(r ?? nullsRight),
  ];
  // Exclusive bounds on whole milliseconds, as Flink takes them.
  const lower = plan.bounds.lowerExclusive ? plan.bounds.lower + 1 : plan.bounds.lower;
  const upper = plan.bounds.upperExclusive ? plan.bounds.upper - 1 : plan.bounds.upper;
  const leftOuter = type === 'left' || type === 'full';
  const rightOuter = type === 'right' || type === 'full';
  const columns = [
    ...left.columns.map((c) => padded(c, rightOuter, proctime)),
    ...right.columns.map((c) => padded(c, leftOuter, proctime)),
  ];
  if (lower > upper) {
    // An inner side's rows are all dropped, through a filter that passes its watermarks on.
    const padLeft = left.stream.filter(() => leftOuter).map((row: Row) => combine(row, null));
    const padRight = right.stream.filter(() => rightOuter).map((row: Row) => combine(null, row));
    const rows: DataStream<Row> = padLeft
      .name('interval join (empty interval): left rows')
      .union(padRight.name('interval join (empty interval): right rows'));
    // The rows keep the event time they came with: a side's own, unless both sides' rows come.
    const kept = type === 'left' ? 'left' : type === 'right' ? 'right' : undefined;
    return {
      stream: rows,
      columns: columns.map((c, i) =>
        kept === (i < leftWidth ? 'left' : 'right') || !c.rowtime ? c : { ...c, restamp: true },
      ),
    };
  }
  const stamp = type === 'right' ? 'right' : 'left';
  // The one column whose values the rows carry as their event time (none in a FULL join,
  // whose rows carry the right time where the left is NULL).
  const stamped = type === 'full' ? -1 : stamp === 'left' ? leftTime : leftWidth + rightTime;
  const joined = timeIntervalJoin(
    left.stream.keyBy(plan.leftKey, 'leftKey'),
    right.stream.keyBy(plan.rightKey, 'rightKey'),
    {
      type,
      timeDomain,
      lower,
      upper,
      leftTime: (row: Row) => row[leftTime] as number | null,
      rightTime: (row: Row) => row[rightTime] as number | null,
      test: test === undefined ? undefined : (l: Row, r: Row) => test([...l, ...r]),
      combine,
      stamp,
      serializers: { left: ROW_SERIALIZER, right: ROW_SERIALIZER },
    },
    'interval join',
  );
  return {
    stream: joined,
    columns: columns.map((c, i) => (!c.rowtime ? c : { ...c, restamp: i !== stamped })),
  };
}

/**
 * A column of the output: nullable where its side may be padded; time attributes stay, but for
 * rowtimes in a join by processing time (`noRowtime`), which keeps no watermark in step with them.
 */
function padded(c: ScopeColumn, nullable: boolean, noRowtime: boolean): ScopeColumn {
  const out = nullable ? { ...c, type: withNullability(c.type, true) } : c;
  return noRowtime && out.rowtime ? { ...out, rowtime: false, restamp: false } : out;
}
