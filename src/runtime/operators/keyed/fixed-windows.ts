import { invalidArgument } from '../../../core/errors.js';
import {
  type RecordWindows,
  type Window,
  type WindowAssigner,
  windowStart,
} from '../../../core/windows.js';
import { DEFAULT_NAMESPACE, type KeyedStateBackend } from '../../../state/keyed-state-backend.js';

/** Fixed-size event-time windows: tumbling (`slide === size`) or sliding. */
export interface FixedWindows {
  readonly size: number;
  readonly slide: number;
  readonly offset: number;
}

/** The windows of a window Top-N, deduplication or join: fixed, or named by each record. */
export type KeyedWindows = FixedWindows | RecordWindows<never>;

/** The fixed windows of an event-time tumbling or sliding assigner; anything else is refused, naming `what`. */
export function fixedWindowsOf(assigner: WindowAssigner<never>, what: string): FixedWindows {
  if (assigner === undefined || typeof assigner !== 'object' || !('kind' in assigner)) {
    throw invalidArgument(`${what} needs a window assigner, e.g. Windows.tumbling(10_000)`);
  }
  if (assigner.timeDomain !== 'event-time') {
    throw invalidArgument(`${what} runs in event time; use Windows.tumbling or Windows.sliding`);
  }
  switch (assigner.kind) {
    case 'tumbling':
      return { size: assigner.size, slide: assigner.size, offset: assigner.offset };
    case 'sliding':
      return { size: assigner.size, slide: assigner.slide, offset: assigner.offset };
    default:
      throw invalidArgument(
        `${what} supports tumbling and sliding windows, not ${assigner.kind} windows`,
      );
  }
}

/** Record windows as they are, or the fixed windows of an assigner (see {@link fixedWindowsOf}). */
export function keyedWindowsOf(
  windows: WindowAssigner<never> | RecordWindows<never>,
  what: string,
): KeyedWindows {
  if (windows !== null && typeof windows === 'object' && 'windowOf' in windows) {
    if (typeof windows.windowOf !== 'function')
      throw invalidArgument(`${what}: windowOf must be a function (record) => { start, end }`);
    if (windows.endOf !== undefined && typeof windows.endOf !== 'function')
      throw invalidArgument(`${what}: endOf must be a function (record) => windowOf(record).end`);
    return windows;
  }
  return fixedWindowsOf(windows, what);
}

/**
 * Calls `add(record)` in the state namespace of every window of the record that has not fired
 * (its last timestamp is after `watermark`), then registers the window's timer with `timers`
 * in the default namespace (timers live there). Fixed windows come from `timestamp`, record
 * windows from the record. Returns false when every window had fired: the record is late.
 * `add` takes the record so that a caller can pass one function made once, not one per record.
 */
export function addToOpenWindows<T>(
  windows: KeyedWindows,
  record: T,
  timestamp: number,
  watermark: number,
  backend: KeyedStateBackend,
  add: (record: T) => void,
  timers: { registerEventTimeTimer(time: number): void },
): boolean {
  if ('windowOf' in windows) {
    const end =
      windows.endOf !== undefined
        ? windows.endOf(record as never)
        : windows.windowOf(record as never).end;
    const last = end - 1;
    if (last <= watermark) return false;
    addInNamespace(backend, namespaceOfTimer(windows, last), add, record);
    timers.registerEventTimeTimer(last);
    return true;
  }
  const { size, slide, offset } = windows;
  let added = false;
  for (
    let start = windowStart(timestamp, offset, slide);
    start > timestamp - size;
    start -= slide
  ) {
    const last = start + size - 1;
    if (last <= watermark) continue;
    addInNamespace(backend, String(start), add, record);
    timers.registerEventTimeTimer(last);
    added = true;
  }
  return added;
}

function addInNamespace<T>(
  backend: KeyedStateBackend,
  namespace: string,
  add: (record: T) => void,
  record: T,
): void {
  backend.setCurrentNamespace(namespace);
  add(record);
  backend.setCurrentNamespace(DEFAULT_NAMESPACE);
}

/** The last record window's namespace made (records of one window mostly come together). */
let lastEnd = Number.NaN;
let lastEndNamespace = '';

/**
 * The state namespace of the window whose timer fires at `time` (its last timestamp): a
 * fixed window's start, or a record window's end (windows of a key that end together are one).
 */
export function namespaceOfTimer(windows: KeyedWindows, time: number): string {
  if (!('windowOf' in windows)) return String(time + 1 - windows.size);
  if (time + 1 !== lastEnd) {
    lastEnd = time + 1;
    lastEndNamespace = `end ${lastEnd}`;
  }
  return lastEndNamespace;
}

/** The window whose timer fires at `time`; a record window's is read from a record kept in it. */
export function windowOfTimer(windows: KeyedWindows, time: number, kept: unknown): Window {
  if ('windowOf' in windows) return windows.windowOf(kept as never);
  return { start: time + 1 - windows.size, end: time + 1 };
}
