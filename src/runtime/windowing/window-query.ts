import type { Key } from '../../core/key-groups.js';
import { type StateQueryAnswer, stateAnswer } from '../../core/queryable-state.js';

/** One window of a key as a query answers it. */
export interface QueriedWindow {
  readonly start: number;
  readonly end: number;
  /** The window's current result: what it would emit if it fired now. */
  readonly value: unknown;
  /** A result of the window was emitted; a later record (within the allowed lateness) updates it. */
  readonly fired: boolean;
}

/**
 * The answer to a query of a key's windows (`WindowedStream.queryable()`):
 * its windows in order of start, then end, as JSON data. The global window's
 * unbounded start and end read as null. No window at all is `absent`.
 */
export function windowsAnswer(
  windows: QueriedWindow[],
  operatorId: string,
  key: Key,
): StateQueryAnswer {
  if (windows.length === 0) return { kind: 'absent' };
  windows.sort((a, b) => a.start - b.start || a.end - b.end);
  const bound = (t: number) => (Number.isFinite(t) ? t : null);
  return stateAnswer(
    windows.map((w) => ({
      start: bound(w.start),
      end: bound(w.end),
      value: w.value,
      fired: w.fired,
    })),
    operatorId,
    key,
  );
}
