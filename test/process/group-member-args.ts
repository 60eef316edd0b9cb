/** The `weir run` arguments of one member of a process group in the tests (the shared broker, checkpoints every 0.2 s). */
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
    '0.2',
    ...flags,
    '--',
    ...jobArgs,
  ];
}
