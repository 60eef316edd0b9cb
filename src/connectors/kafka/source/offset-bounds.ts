/**
 * Per-partition offsets given by exact values, a timestamp or an end of the
 * log: how bounded reads find where they end, and replays where they start.
 */
import type { Consumer } from '@platformatic/kafka';
import { EARLIEST, LATEST, listOffsets } from '../client.js';
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

/**
 * Resolves a bound for the given partitions (keys `topic:partition`). With
 * `isolationLevel` 1 (read_committed) the end of a partition is its last
 * stable offset, and a timestamp lookup finds nothing at or past it.
 */
export async function resolveBound(
  fetcher: Consumer,
  partitions: readonly { topic: string; partition: number }[],
  bound: OffsetBound,
  isolationLevel: 0 | 1,
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  let rest = partitions.filter((p) => {
    const o = bound.exact.get(`${p.topic}:${p.partition}`);
    if (o !== undefined) out.set(`${p.topic}:${p.partition}`, o);
    return o === undefined;
  });
  let otherwise = bound.otherwise;
  if (bound.timestamp !== undefined && rest.length > 0) {
    const found = await listOffsets(fetcher, rest, BigInt(bound.timestamp), isolationLevel);
    rest = rest.filter((p) => {
      const o = found.get(`${p.topic}:${p.partition}`);
      if (o !== undefined && o >= 0n) out.set(`${p.topic}:${p.partition}`, Number(o));
      return o === undefined || o < 0n;
    });
    // No record is that late: the position is the end of the partition.
    otherwise = 'latest';
  }
  if (rest.length > 0) {
    const ends = await listOffsets(
      fetcher,
      rest,
      otherwise === 'earliest' ? EARLIEST : LATEST,
      isolationLevel,
    );
    for (const p of rest)
      out.set(`${p.topic}:${p.partition}`, Number(ends.get(`${p.topic}:${p.partition}`) ?? 0n));
  }
  return out;
}
