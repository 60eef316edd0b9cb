import { invalidArgument } from '../../core/errors.js';
import type { ReplayRange } from '../../core/replay.js';

/**
 * Refuses a time range (`from`/`to`) for a source whose records get their
 * event time downstream: nothing in its input says which records a time
 * range holds, and replaying all of it instead would compare the wrong slice.
 *
 * The other parts of a range name other sources' input, so they are left to
 * those sources rather than refused (a command line applies one range to
 * every source of a job): `positions` name splits such as Kafka partitions,
 * and `files` are read by file sources only.
 */
export function refuseTimeRange(source: string, range: ReplayRange, alternative = ''): void {
  if (range.from === undefined && range.to === undefined) return;
  throw invalidArgument(
    `source '${source}' cannot replay a time range (from/to): its records get their event ` +
      'time downstream, not from the source, so no part of its input belongs to a time range; ' +
      `replay all of it${alternative}, and give sources with event time their range by name ` +
      '(weir replay --source-range)',
  );
}
