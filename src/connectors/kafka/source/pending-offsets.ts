import type { Consumer } from '@platformatic/kafka';
import type { Counter, MetricGroup } from '../../../core/metrics.js';

/**
 * Source positions by checkpoint id, kept until the checkpoint
 * completes: then exactly that checkpoint's offsets are committed to the
 * group, never offsets newer than a durable checkpoint.
 */
export class PendingOffsets {
  private readonly byCheckpoint = new Map<number, Map<string, number>>();

  /** Records the positions of `checkpointId` (at most `limit` checkpoints are kept). */
  add(checkpointId: number, positions: Map<string, number>, limit = 32): void {
    this.byCheckpoint.set(checkpointId, positions);
    if (this.byCheckpoint.size > limit) {
      const oldest = this.byCheckpoint.keys().next().value;
      if (oldest !== undefined) this.byCheckpoint.delete(oldest);
    }
  }

  /** The positions of a completed checkpoint; forgets it and every older one. */
  complete(checkpointId: number): Map<string, number> | undefined {
    const positions = this.byCheckpoint.get(checkpointId);
    for (const id of [...this.byCheckpoint.keys()])
      if (id <= checkpointId) this.byCheckpoint.delete(id);
    return positions;
  }
}

/** The counter of offset commits to the group that failed; both readers commit the same way. */
export function offsetCommitFailures(metrics: MetricGroup): Counter {
  return metrics.counter(
    'weir_kafka_offset_commit_failures_total',
    'Offset commits to the consumer group that failed (retried at the next checkpoint)',
  );
}

/**
 * Commits `positions` (`topic:partition` to the next offset) of the tasks
 * still assigned to the group; a failure is counted and retried with the
 * next checkpoint's offsets.
 */
export async function commitPositions(
  consumer: Consumer,
  positions: ReadonlyMap<string, number>,
  assigned: ReadonlySet<string>,
  failures: Counter,
): Promise<void> {
  const offsets = [...positions]
    .filter(([key]) => assigned.has(key))
    .map(([key, offset]) => {
      const i = key.lastIndexOf(':');
      return {
        topic: key.slice(0, i),
        partition: Number(key.slice(i + 1)),
        offset: BigInt(offset),
        leaderEpoch: -1,
      };
    });
  if (offsets.length === 0) return;
  try {
    await consumer.commit({ offsets });
  } catch {
    failures.inc();
  }
}
