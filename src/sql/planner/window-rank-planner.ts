/**
 * Window Top-N and window deduplication: a ROW_NUMBER() partitioned by `window_start` and
 * `window_end` over rows that carry them (a window TVF, a window aggregation). As Flink's
 * window rank operators, each partition's rows of a window are kept until the watermark
 * passes the window's end, then the ranked rows are emitted once (insert-only) and the
 * window's state is dropped; a row whose window has already fired is late: dropped and
 * counted (`weir_window_late_records_total`).
 */
import type { DataStream, KeyedStream } from '../../api/streams.js';
import type { Key } from '../../core/key-groups.js';
import type { RecordWindows } from '../../core/windows.js';
import type { Row } from '../connectors/connector.js';
import type { Expr, OverWindow } from '../parser/ast.js';
import { prefixAndValue } from './row-builders.js';

/** The positions of a row's window columns. */
export interface WindowColumns {
  readonly startAt: number;
  readonly endAt: number;
}

function columnNamed(e: Expr, name: string): boolean {
  return e.kind === 'column' && e.path[e.path.length - 1]?.toLowerCase() === name;
}

/**
 * Where `window_start` and `window_end` are among the partition values (which start at
 * `partitionAt` in a row); undefined unless the ranking is partitioned by both.
 */
export function windowOfPartition(
  window: OverWindow,
  partitionAt: number,
): WindowColumns | undefined {
  const start = window.partitionBy.findIndex((e) => columnNamed(e, 'window_start'));
  const end = window.partitionBy.findIndex((e) => columnNamed(e, 'window_end'));
  if (start < 0 || end < 0) return undefined;
  return { startAt: partitionAt + start, endAt: partitionAt + end };
}

/** The windows rows name by their window columns. */
export function recordWindows(at: WindowColumns): RecordWindows<Row> {
  const { startAt, endAt } = at;
  return {
    windowOf: (row) => ({ start: row[startAt] as number, end: row[endAt] as number }),
    endOf: (row) => row[endAt] as number,
  };
}

export interface WindowRankSpec {
  readonly limit: number;
  /** The row's own columns (before the partition and order values). */
  readonly width: number;
  readonly compare: (a: Row, b: Row) => number;
  /** For a deduplication, where the ordering time column is; undefined for a Top-N. */
  readonly dedupTime: number | undefined;
  /** Keep the last row (ORDER BY time DESC) rather than the first. */
  readonly descending: boolean;
}

/** The ranked rows (the row's own columns and the row number) of each partition and window. */
export function planWindowRank(
  keyed: KeyedStream<Row, Key>,
  at: WindowColumns,
  spec: WindowRankSpec,
): DataStream<Row> {
  const windows = recordWindows(at);
  const { width, dedupTime } = spec;
  const ranked = prefixAndValue(width);
  if (dedupTime !== undefined) {
    return keyed
      .windowDeduplicate(windows, {
        keep: spec.descending ? 'last' : 'first',
        timeOf: (row) => row[dedupTime] as number,
      })
      .map((r) => ranked(r.value, 1))
      .name('window deduplicate rows');
  }
  return keyed
    .windowTopN(windows, { n: spec.limit, compare: spec.compare })
    .map((r) => ranked(r.row, r.rank))
    .name('window top-n rows');
}
