/**
 * A Top-N over changing rows (Flink's retract strategy, RetractableTopNFunction's semantics):
 * per partition it keeps every current row sorted by the ORDER BY (ties in arrival order), so
 * that a row leaving the top can be replaced by the next one. Each change (`+I`/`+U` adds the
 * row, `-U`/`-D` takes an equal row out) is followed by the changes of the ranks
 * `start..end`: with the row number, `-U`/`+U` per rank whose row changed (`+I`, `-D` where a
 * rank fills or empties); without it, `-D` for each row that left the range and `+I` for each
 * that entered. Also the Top-N with a rank range starting above 1 over insert-only rows, which
 * keeps only the rows up to the last rank.
 */
import type { ChangelogStream } from '../../api/streams.js';
import type { Change } from '../../core/changelog.js';
import { describeRecord } from '../../core/errors.js';
import type {
  Collector,
  KeyedProcessContext,
  KeyedProcessFunction,
  KeyedRuntimeContext,
} from '../../core/functions.js';
import type { Key } from '../../core/key-groups.js';
import type { StateTtlConfig, ValueState } from '../../core/state.js';
import { sameRow } from '../../runtime/operators/changelog/same-row.js';
import type { Row } from '../connectors/connector.js';
import { sqlError } from '../sql-error.js';
import { noteChangelogRole } from './changelog-plan.js';
import { ROWS_SERIALIZER } from './row-serializer.js';

export interface RetractRankSpec {
  /** The ORDER BY, over the rows as they come in. */
  readonly compare: (a: Row, b: Row) => number;
  /** The first and last rank kept, from 1. */
  readonly start: number;
  readonly end: number;
  /**
   * Where a row holds the last rank instead of `end` (`rn <= col`): as Flink's
   * VariableRankRange, a partition's first row sets it for good (a NULL there keeps no rank).
   */
  readonly endAt?: number;
  /** How many leading columns of a row the output has (the rest are the ranking's own). */
  readonly width: number;
  /** Whether the output rows end with their row number. */
  readonly rankNumber: boolean;
  /**
   * The output row's cells: these positions of the leading `width` columns followed by the
   * row number (at `width`); by default all of them.
   */
  readonly positions?: readonly number[];
  /**
   * The input only inserts: a row ranked past `end` can never move up again, so only the
   * first `end` rows are kept (Flink's append-only Top-N keeps as many).
   */
  readonly insertOnly: boolean;
  readonly ttl: StateTtlConfig | undefined;
}

/** The first position in sorted `rows` whose row ranks after `row` (after its equals too). */
function upperBound(rows: readonly Row[], row: Row, compare: (a: Row, b: Row) => number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(row, rows[mid] as Row) < 0) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The position of a row equal to `row` among its sort-key equals in `rows`, or -1. */
function positionOf(rows: readonly Row[], row: Row, compare: (a: Row, b: Row) => number): number {
  for (let i = upperBound(rows, row, compare) - 1; i >= 0; i--) {
    const other = rows[i] as Row;
    if (compare(row, other) !== 0) return -1;
    if (sameRow(row, other)) return i;
  }
  return -1;
}

export class RetractRankFunction implements KeyedProcessFunction<Key, Change<Row>, Change<Row>> {
  private rows!: ValueState<Row[]>;
  private rankEnd: ValueState<number> | undefined;

  constructor(private readonly spec: RetractRankSpec) {}

  open(context: KeyedRuntimeContext): void {
    this.rows = context.state.getValueState<Row[]>({
      name: 'rank.rows',
      serializer: ROWS_SERIALIZER,
      ...(this.spec.ttl === undefined ? {} : { ttl: this.spec.ttl }),
    });
    if (this.spec.endAt !== undefined)
      this.rankEnd = context.state.getValueState<number>({
        name: 'rank.end',
        ...(this.spec.ttl === undefined ? {} : { ttl: this.spec.ttl }),
      });
  }

  /** The partition's last rank: the spec's, or the one its first row set. */
  private endOf(row: Row): number {
    const { endAt } = this.spec;
    if (endAt === undefined || this.rankEnd === undefined) return this.spec.end;
    const kept = this.rankEnd.value();
    if (kept !== undefined && kept !== null) return kept;
    const cell = row[endAt];
    const end = cell === null || cell === undefined ? 0 : Number(cell);
    this.rankEnd.update(end);
    return end;
  }

  processElement(
    change: Change<Row>,
    _context: KeyedProcessContext<Key>,
    out: Collector<Change<Row>>,
  ): void {
    const { compare, start } = this.spec;
    const end = this.endOf(change.value);
    const rows = this.rows.value() ?? [];
    let before: Row[];
    if (change.kind === '+I' || change.kind === '+U') {
      const at = upperBound(rows, change.value, compare);
      // Ranked past the end of an insert-only input's Top-N: nothing changes, now or later.
      if (this.spec.insertOnly && at >= end) return;
      before = rows.slice(start - 1, end);
      rows.splice(at, 0, change.value);
      if (this.spec.insertOnly && rows.length > end) rows.length = end;
    } else {
      before = rows.slice(start - 1, end);
      const at = positionOf(rows, change.value, compare);
      if (at < 0) {
        // Only expired state explains a retraction of a row never added (Flink does the same).
        if (this.spec.ttl !== undefined) return;
        sqlError(
          `Top-N: a retraction (${change.kind}) of a row that is not in its partition: ${describeRecord(change.value)}`,
        );
      }
      rows.splice(at, 1);
    }
    if (rows.length === 0) this.rows.clear();
    else this.rows.update(rows);
    const after = rows.slice(start - 1, end);
    if (this.spec.rankNumber) this.emitRanks(before, after, out);
    else this.emitRows(before, after, out);
  }

  private output(row: Row, rank: number | undefined): Row {
    const { positions, width } = this.spec;
    if (positions !== undefined) return positions.map((i) => (i === width ? rank : row[i]));
    const visible = row.slice(0, width);
    if (rank !== undefined) visible.push(rank);
    return visible;
  }

  private emitRanks(before: readonly Row[], after: readonly Row[], out: Collector<Change<Row>>) {
    const n = Math.max(before.length, after.length);
    for (let i = 0; i < n; i++) {
      const old = before[i];
      const now = after[i];
      const rank = this.spec.start + i;
      if (old !== undefined && now !== undefined) {
        if (sameRow(old, now)) continue;
        out.collect({ kind: '-U', value: this.output(old, rank) });
        out.collect({ kind: '+U', value: this.output(now, rank) });
      } else if (old !== undefined) {
        out.collect({ kind: '-D', value: this.output(old, rank) });
      } else if (now !== undefined) {
        out.collect({ kind: '+I', value: this.output(now, rank) });
      }
    }
  }

  private emitRows(before: readonly Row[], after: readonly Row[], out: Collector<Change<Row>>) {
    // The two ranges differ by a row or two, and a row that stayed is the same object in both
    // (slices of one sorted array): match those by identity, then what is left by value (an
    // equal row that replaced its twin changes nothing), without building any row's text.
    const counts = new Map<Row, number>();
    for (const row of after) counts.set(row, (counts.get(row) ?? 0) + 1);
    const removed: Row[] = [];
    for (const row of before) {
      const left = counts.get(row) ?? 0;
      if (left > 0) counts.set(row, left - 1);
      else removed.push(row);
    }
    const added: (Row | undefined)[] = [];
    for (const row of after) {
      const left = counts.get(row) ?? 0;
      if (left === 0) continue;
      counts.set(row, left - 1);
      added.push(row);
    }
    for (const row of removed) {
      const twin = added.findIndex((a) => a !== undefined && sameRow(a, row));
      if (twin >= 0) added[twin] = undefined;
      else out.collect({ kind: '-D', value: this.output(row, undefined) });
    }
    for (const row of added) {
      if (row !== undefined) out.collect({ kind: '+I', value: this.output(row, undefined) });
    }
  }
}

/**
 * A Top-N of changing rows per partition (`keyOf` of a row), as a retract changelog of the
 * rows of `spec`'s ranks.
 */
export function retractRank(
  changes: ChangelogStream<Row>,
  keyOf: (row: Row) => Key,
  spec: RetractRankSpec,
  name = 'top-n (retract)',
): ChangelogStream<Row> {
  const ranked = changes
    .keyBy((c: Change<Row>) => keyOf(c.value), 'partition key')
    .process(new RetractRankFunction(spec))
    .name(name);
  noteChangelogRole(ranked, { kind: 'retracting', updates: spec.rankNumber });
  return ranked.asChangelog('retract');
}
