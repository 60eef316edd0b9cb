import { invalidArgument } from '../../../core/errors.js';
import { type WindowAssigner, windowStart } from '../../../core/windows.js';
import { DEFAULT_NAMESPACE, type KeyedStateBackend } from '../../../state/keyed-state-backend.js';

/** Fixed-size event-time windows: tumbling (`slide === size`) or sliding. */
export interface FixedWindows {
  readonly size: number;
  readonly slide: number;
  readonly offset: number;
}

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

/**
 * Calls `add` in the state namespace of every window of `timestamp` that has
 * not fired (its last timestamp is after `watermark`), then registers the
 * window's timer through `registerTimer` in the default namespace (timers
 * live there). Returns false when every window had fired: the record is late.
 */
export function addToOpenWindows(
  windows: FixedWindows,
  timestamp: number,
  watermark: number,
  backend: KeyedStateBackend,
  add: () => void,
  registerTimer: (windowLast: number) => void,
): boolean {
  const { size, slide, offset } = windows;
  let added = false;
  for (
    let start = windowStart(timestamp, offset, slide);
    start > timestamp - size;
    start -= slide
  ) {
    const last = start + size - 1;
    if (last <= watermark) continue;
    backend.setCurrentNamespace(String(start));
    add();
    backend.setCurrentNamespace(DEFAULT_NAMESPACE);
    registerTimer(last);
    added = true;
  }
  return added;
}

/** The start of the window whose timer fires at `time` (its last timestamp). */
export function windowOfTimer(windows: FixedWindows, time: number): { start: number; end: number } {
  return { start: time + 1 - windows.size, end: time + 1 };
}
