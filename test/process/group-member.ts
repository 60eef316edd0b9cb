import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningCli, startWeir } from '../cli/run-cli.js';
import { groupMemberArgs } from './group-member-args.js';

/** The job module of the process group tests: reads one topic, writes another, names the member. */
export const GROUP_FIXTURE = 'test/cli/fixtures/group-member.ts';

/** The checkpoint location of each group: every member of a group shares it, as it must. */
const locations = new Map<string, string>();

/**
 * Starts `weir run <fixture> --group <app>` on the test Kafka, with the
 * group's shared checkpoint location and a checkpoint every 0.2 s; `flags` go
 * before `--`, `args` to the job. Tests stop their members; the hard limit
 * only ends one left running, and is long since a test file of several
 * members takes minutes on a busy machine.
 */
export function startGroupMember(
  fixture: string,
  app: string,
  name: string,
  args: readonly string[],
  flags: readonly string[] = [],
): RunningCli {
  let dir = locations.get(app);
  if (dir === undefined) {
    dir = join(mkdtempSync(join(tmpdir(), `weir-group-${name}-`)), 'checkpoints');
    locations.set(app, dir);
  }
  return startWeir(groupMemberArgs(fixture, app, dir, args, flags), 400_000);
}

/** Tasks (partitions) a member holds now, per reader (a line of `weir_kafka_source_partitions` on its /metrics). */
export async function heldTasks(port: number): Promise<number[]> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    return text
      .split('\n')
      .filter((l) => l.startsWith('weir_kafka_source_partitions'))
      .map((l) => Number(l.slice(l.lastIndexOf(' ') + 1)));
  } catch {
    return [];
  }
}
