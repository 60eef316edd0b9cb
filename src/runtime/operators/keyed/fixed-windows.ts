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
    return windows;
  }
  return fixedWindowsOf(windows, what);
}

/**
 * Calls `add` in the state namespace of every window of the record that has
 * not fired (its last timestamp is after `watermark`), then registers the
 * window's timer through `registerTimer` in the default namespace (timers
 * live there). Fixed windows come from `timestamp`, record windows from the
 * record. Returns false when every window had fired: the record is late.
 */
export function addToOpenWindows(
  windows: KeyedWindows,
  record: unknown,
  timestamp: number,
  watermark: number,
  backend: KeyedStateBackend,
  add: () => void,
  registerTimer: (windowLast: number) => void,
): boolean {
  if ('windowOf' in windows) {
    const last = windows.windowOf(record as never).end - 1;
    if (last <= watermark) return false;
    addInNamespace(backend, namespaceOfTimer(windows, last), add);
    registerTimer(last);
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
    addInNamespace(backend, String(start), add);
    registerTimer(last);
    added = true;
  }
  return added;
}

function addInNamespace(backend: KeyedStateBackend, namespace: string, add: () => void): void {
  backend.setCurrentNamespace(namespace);
  add();
  backend.setCurrentNamespace(DEFAULT_NAMESPACE);
}

/**
 * The state namespace of the window whose timer fires at `time` (its last timestamp): a
 * fixed window's start, or a record window's end (windows of a key that end together are one).
 */
export function namespaceOfTimer(windows: KeyedWindows, time: number): string {
  return 'windowOf' in windows ? `end ${time + 1}` : String(time + 1 - windows.size);
}

/** The window whose timer fires at `time`; a record window's is read from a record kept in it. */
export function windowOfTimer(windows: KeyedWindows, time: number, kept: unknown): Window {
  if ('windowOf' in windows) return windows.windowOf(kept as never);
  return { start: time + 1 - windows.size, end: time + 1 };
}
