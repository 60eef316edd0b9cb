/**
 * Per-partition offsets given by exact values, a timestamp or an end of the
 * log, as data. Apart from `offset-bounds.ts`, which resolves them with the
 * client, so that the source's option types (and so the published
 * declarations) never name the client's types.
 */
import type { StoppingOffsets } from '../config.js';

/**
 * Where to be in each partition: `exact` for the partitions it names, else
 * the first offset whose log timestamp is >= `timestamp` (the end of the
 * partition when no record is that late), else `otherwise`.
 */
export interface OffsetBound {
  readonly exact: ReadonlyMap<string, number>;
  readonly timestamp: number | undefined;
  readonly otherwise: 'earliest' | 'latest';
}

/** The bound of a source's `stopAt` option. */
export function stopBound(stopAt: StoppingOffsets): OffsetBound {
  if (stopAt === 'latest') return { exact: new Map(), timestamp: undefined, otherwise: 'latest' };
  if ('timestamp' in stopAt)
    return { exact: new Map(), timestamp: stopAt.timestamp, otherwise: 'latest' };
  const exact = new Map<string, number>();
  for (const [topic, partitions] of Object.entries(stopAt.offsets))
    for (const [partition, offset] of Object.entries(partitions))
      exact.set(`${topic}:${partition}`, offset);
  return { exact, timestamp: undefined, otherwise: 'latest' };
}
