import { invalidArgument } from '../../core/errors.js';
import type { ReplayRange } from '../../core/replay.js';

/** The parts of a {@link ReplayRange} a source gives a meaning to. */
export interface ReplayRangeSupport {
  /** `from`/`to`: the source stamps event time itself, so a time range selects records. */
  readonly eventTime?: boolean;
  /** `files`: the source reads files, so others can be named. */
  readonly files?: boolean;
}

/**
 * Refuses the parts of `range` that `source` cannot honour, rather than
 * silently replaying more (or less) than was asked for.
 */
export function checkReplayRange(
  source: string,
  range: ReplayRange,
  support: ReplayRangeSupport,
): void {
  if (!support.eventTime && (range.from !== undefined || range.to !== undefined)) {
    throw invalidArgument(
      `source '${source}' cannot replay a time range (from/to): its records get their event ` +
        'time downstream, not from the source, so no part of its input belongs to a time range; ' +
        'replay all of it' +
        (support.files ? ', or name the files to read' : ''),
    );
  }
  if (range.positions !== undefined && Object.keys(range.positions).length > 0) {
    throw invalidArgument(
      `source '${source}' has no positions to replay from: positions are for split-based ` +
        'sources such as Kafka',
    );
  }
  if (!support.files && range.files !== undefined) {
    throw invalidArgument(
      `source '${source}' reads no files: the files of a replay range are for file sources`,
    );
  }
}
