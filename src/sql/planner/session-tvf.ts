/**
 * A SESSION window TVF read without an aggregation directly over it (a plain SELECT from it, or
 * a WHERE between it and its GROUP BY), as Flink runs it: each row is held until its session
 * closes (the watermark passes the merged session's end), then emitted once with the
 * `window_start`, `window_end` and `window_time` of that session. Sessions form per PARTITION BY
 * value, or over all rows without it (then in one subtask). Rows whose session has already
 * closed are late: the window operator drops them.
 */
import type { DataStream } from '../../api/streams.js';
import type { Collector } from '../../core/functions.js';
import type { Key } from '../../core/key-groups.js';
import type { WindowContext } from '../../core/window-result.js';
import { Windows } from '../../core/windows.js';
import type { Row } from '../connectors/connector.js';
import { compileScalar } from '../expressions/compile.js';
import { Scope } from '../expressions/scope.js';
import { sqlError } from '../sql-error.js';
import { groupKey } from './grouping.js';
import { localWindowTime, onWindowClock } from './local-time-windows.js';
import type { WindowTvf } from './relation.js';

/** The rows of a SESSION TVF with their sessions' window columns, each when its session closes. */
export function sessionTvfRows(w: WindowTvf): DataStream<Row> {
  if (w.kind !== 'SESSION') throw new Error(`not a SESSION window: ${w.kind}`);
  if (w.processingTime === true)
    sqlError(
      'a SESSION window of processing time needs an aggregation grouped by window_start and window_end',
    );
  const scope = new Scope(w.input.columns);
  const partition = w.partitionBy ?? [];
  const keyOf = groupKey(
    partition.map((name) => compileScalar({ kind: 'column', path: [name], at: NOWHERE }, scope).fn),
  );
  const n = w.input.columns.length;
  const zone = w.localTimeZone;
  const windowTime =
    zone === undefined ? (end: number) => end - 1 : (end: number) => localWindowTime(zone, end);
  const emit = {
    process(_key: Key, context: WindowContext, rows: readonly Row[], out: Collector<Row>): void {
      const { start, end } = context.window;
      for (const row of rows) {
        const withWindow = row.slice(0, n);
        withWindow.push(start, end, windowTime(end));
        out.collect(withWindow);
      }
    },
  };
  // On a session zone's wall clock the sessions' bounds are local times, as Flink shows them.
  return onWindowClock(zone, [w.input.stream], (rows) =>
    rows
      .keyBy(keyOf, partition.length === 0 ? 'window (global)' : 'partition key')
      .window(Windows.session(w.size))
      .process(emit)
      .name('SESSION rows'),
  );
}

const NOWHERE = { line: 0, column: 0 };
