import { WeirError } from '../../core/errors.js';
import type { SkippedCheckpoint } from './checkpoint-storage.js';
import type { CommitRecord } from './commit-record.js';

/** The checkpoint a job is about to restore. */
export interface RestoreCandidate {
  readonly checkpointId: number;
  readonly path: string;
}

/**
 * Refuses a restore that would write committed output a second time: sinks
 * have committed up to `commit`, and the checkpoint to restore is older, so
 * everything between the two would be produced and committed again.
 * `candidate` undefined means starting from scratch (no intact checkpoint).
 * `skipped` are the newer checkpoints passed over as damaged, named in the
 * message. `allowDuplicateOutput` accepts the duplicates on purpose.
 */
export function refuseRestoreBehindCommit(
  candidate: RestoreCandidate | undefined,
  commit: CommitRecord | undefined,
  skipped: readonly SkippedCheckpoint[],
  allowDuplicateOutput: boolean,
): void {
  if (allowDuplicateOutput) return;
  if (candidate === undefined && skipped.length > 0) {
    throw new WeirError(
      'CHECKPOINT_DAMAGED',
      `no checkpoint can be restored: ${skipped.map((s) => s.reason).join('; ')}. Starting from scratch instead would lose all state${commit === undefined ? '' : ` and produce the output sinks have committed up to checkpoint ${commit.checkpointId} again`}; to start from scratch anyway, pass allowDuplicateOutput or move the damaged checkpoints away.`,
      { domain: 'external' },
    );
  }
  if (commit === undefined) return;
  if (candidate !== undefined && candidate.checkpointId >= commit.checkpointId) return;
  const damaged =
    skipped.length === 0
      ? ''
      : `${skipped.map((s) => s.reason).join('; ')}. The newest intact checkpoint is ${candidate === undefined ? 'none: all are damaged or incomplete' : `checkpoint ${candidate.checkpointId}`}. `;
  const restoring =
    candidate === undefined
      ? 'starting from scratch'
      : `restoring checkpoint ${candidate.checkpointId} ('${candidate.path}')`;
  const after =
    candidate === undefined ? 'from the start' : `after checkpoint ${candidate.checkpointId}`;
  throw new WeirError(
    'INVALID_JOB',
    `${damaged}Sinks have already committed output up to checkpoint ${commit.checkpointId} ('${commit.path}'); ${restoring} would produce and commit the output ${after} up to checkpoint ${commit.checkpointId} again (duplicates). Restore checkpoint ${commit.checkpointId} or a newer one, or accept the duplicates with allowDuplicateOutput.`,
  );
}
