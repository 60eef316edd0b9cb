/** `weir run --group` of the process group fixture, as the process group tests start its members. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningCli, startWeir } from '../cli/run-cli.js';

export const GROUP_FIXTURE = 'test/cli/fixtures/group-member.ts';

/** Starts member `name` of group `app` (its own checkpoint directory), with `flags` before the job's args. */
export function startGroupMember(
  app: string,
  input: string,
  output: string,
  name: string,
  options: { readonly flags?: readonly string[]; readonly hardTimeoutMs?: number } = {},
): RunningCli {
  const dir = mkdtempSync(join(tmpdir(), `weir-group-${name}-`));
  return startWeir(
    [
      'run',
      GROUP_FIXTURE,
      '--group',
      app,
      '--bootstrap',
      '127.0.0.1:9092',
      '--checkpoint-dir',
      join(dir, 'checkpoints'),
      '--checkpoint-interval',
      '0.2',
      ...(options.flags ?? []),
      '--',
      input,
      output,
      name,
    ],
    options.hardTimeoutMs ?? 170_000,
  );
}
