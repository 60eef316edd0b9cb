import type { SnapshotContext } from '../../core/operator.js';
import type { Json, OperatorSnapshot, RestoredState } from '../../core/snapshot.js';
import { decodeTime, encodeTime } from '../../core/snapshot.js';
import type { KeyedStateBackend } from '../../state/keyed-state-backend.js';

/**
 * Event-time progress of a window operator subtask, kept as union state so a
 * restored operator classifies late records and fires windows exactly as the
 * uninterrupted one would have.
 */
export interface TimeProgress {
  readonly watermark: number;
  /** Operator-specific second mark (the slice operator's fired-up-to bound). */
  readonly mark: number;
}

export function timeProgressEntry(subtask: number, progress: TimeProgress): Json {
  return { subtask, watermark: encodeTime(progress.watermark), mark: encodeTime(progress.mark) };
}

/**
 * The snapshot of an operator whose state is all in its keyed backend, with
 * its watermark as union state (keyed process functions, CEP).
 */
export function keyedSnapshotWithWatermark(
  state: KeyedStateBackend,
  context: SnapshotContext,
  subtask: number,
  watermark: number,
): OperatorSnapshot {
  const keyed = state.snapshot({
    checkpointId: context.checkpointId,
    keyGroupOf: context.keyGroupOf,
    kind: context.kind,
  });
  return { ...keyed, union: [timeProgressEntry(subtask, { watermark, mark: 0 })] };
}

/**
 * The progress to resume with: this subtask's own when the parallelism did
 * not change, otherwise the lowest of all (so no window fires twice it could
 * have fired once; late-classification is then conservative).
 */
export function restoredTimeProgress(
  state: RestoredState,
  subtask: number,
  parallelism: number,
): TimeProgress | undefined {
  const entries = state.union as { subtask: number; watermark: Json; mark: Json }[];
  if (entries.length === 0) return undefined;
  const own =
    entries.length === parallelism ? entries.find((e) => e.subtask === subtask) : undefined;
  const pick = own === undefined ? entries : [own];
  let watermark = Number.POSITIVE_INFINITY;
  let mark = Number.POSITIVE_INFINITY;
  for (const e of pick) {
    watermark = Math.min(watermark, decodeTime(e.watermark));
    mark = Math.min(mark, decodeTime(e.mark));
  }
  return { watermark, mark };
}
