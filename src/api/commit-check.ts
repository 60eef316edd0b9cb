import { WeirError } from '../core/errors.js';
import type { LogicalGraph } from '../plan/logical/logical-graph.js';

/**
 * The rule for sinks that make output visible only when a checkpoint
 * completes (`Sink.commitsOnCheckpoint`: exactly-once Kafka, ExactlyOnceFileSink,
 * PostgresTransactionalSink): a job without checkpointing commits once, at the
 * end of its input. If a source never ends, that moment never comes and the
 * sink would write nothing, ever, without a word; such a job is refused.
 */
export function refuseSinksThatWouldNeverCommit(graph: LogicalGraph): void {
  const unbounded = graph.nodes.find((n) => n.kind === 'source' && !n.source.bounded);
  if (unbounded === undefined) return;
  const sink = graph.nodes.find((n) => n.kind === 'sink' && n.sink.commitsOnCheckpoint === true);
  if (sink === undefined) return;
  throw new WeirError(
    'INVALID_JOB',
    `sink '${sink.name}' commits its output when a checkpoint completes, but this job takes no ` +
      `checkpoints and source '${unbounded.name}' never ends, so nothing would ever be committed: ` +
      'enable checkpointing (`checkpointing: { directory }` on the environment, or ' +
      '`weir run --checkpoint-dir DIR`), or use an at-least-once sink',
  );
}
