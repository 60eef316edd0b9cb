/**
 * Per-partition offsets given by exact values, a timestamp or an end of the
 * log: how bounded reads find where they end, and replays where they start.
 */
import type { Consumer } from '@platformatic/kafka';
import { EARLIEST, LATEST, listOffsets } from '../client.js';
import type { OffsetBound } from './offset-bound.js';

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
