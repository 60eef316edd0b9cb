import type { CheckpointData } from '../../src/runtime/checkpoint/checkpoint-data.js';

/**
 * A checkpoint of one operator at parallelism `files` whose state files
 * hold about `fileKb` KB of list state each (entries of about 1 KB).
 */
export function syntheticCheckpoint(id: number, files: number, fileKb: number): CheckpointData {
  const entry = 'x'.repeat(1000);
  const list = Array.from({ length: fileKb }, (_, i) => `${id}-${i}-${entry}`);
  return {
    format: 'weir-checkpoint',
    version: 1,
    kind: 'checkpoint',
    checkpointId: id,
    jobName: 'bench',
    createdAt: new Date().toISOString(),
    maxParallelism: 128,
    final: false,
    operators: [
      {
        uid: 'op',
        name: 'op',
        parallelism: files,
        subtasks: Array.from({ length: files }, () => ({ list })),
      },
    ],
  };
}
