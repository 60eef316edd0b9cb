import type { ProcessingTimeService } from '../../core/operator.js';
import type { WindowAssigner } from '../../core/windows.js';

/**
 * The processing time a window operator runs on: the service's, or the readings of the
 * assigner's clock (see `WindowClock`). Timers are registered at readings and scheduled at the
 * instant each is due; when one fires, the operator's time is that reading, so exactly the
 * windows due by then fire (in a repeated hour of a wall clock, not before its second pass).
 */
export function processingTimeOf<T>(
  service: ProcessingTimeService,
  assigner: WindowAssigner<T>,
): ProcessingTimeService {
  const clock = 'clock' in assigner ? assigner.clock : undefined;
  if (clock === undefined || assigner.timeDomain !== 'processing-time') return service;
  return {
    clock: { now: () => clock.readingAt(service.clock.now()) },
    schedule: (time, callback) => service.schedule(clock.dueAt(time), () => callback(time)),
  };
}
