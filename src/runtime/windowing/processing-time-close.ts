import type { ProcessingTimeService } from '../../core/operator.js';

/**
 * Closes event-time windows by the wall clock when a stream goes quiet: when
 * no newer events arrive, event time stops and windows would stay open
 * forever. Every check, if the watermark trails the wall clock by more than
 * `graceMs`, the operator advances its event time to `now - graceMs` (and
 * forwards that watermark), which fires every window that ended before it.
 * Records arriving later for those windows are late. Only sensible when
 * event time tracks wall-clock time (live streams, not replays).
 */
export function scheduleProcessingTimeClose(
  service: ProcessingTimeService,
  graceMs: number,
  currentWatermark: () => number,
  advanceTo: (time: number) => void,
  isDone: () => boolean,
): void {
  const period = Math.max(1, Math.min(graceMs, 1000) / 2);
  const check = (now: number) => {
    if (isDone()) return;
    const target = Math.floor(now - graceMs);
    if (target > currentWatermark()) advanceTo(target);
    service.schedule(now + period, check);
  };
  service.schedule(service.clock.now() + period, check);
}
