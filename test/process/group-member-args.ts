/**
 * The `weir run` arguments of one member of a process group in the tests (the shared broker,
 * checkpoints every 0.5 s). Not shorter: each checkpoint writes and syncs a snapshot file per
 * task, and at 0.2 s an idle member spent a quarter of a core on it, which slowed the
 * group tests that share CI's two cores until they timed out.
 */
export function groupMemberArgs(
  fixture: string,
  group: string,
  checkpointDir: string,
  jobArgs: readonly string[],
  flags: readonly string[] = [],
): string[] {
  return [
    'run',
    fixture,
    '--group',
    group,
    '--bootstrap',
    '127.0.0.1:9092',
    '--checkpoint-dir',
    checkpointDir,
    '--checkpoint-interval',
    '0.5',
    ...flags,
    '--',
    ...jobArgs,
  ];
}
