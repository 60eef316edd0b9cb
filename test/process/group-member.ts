import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
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

/** A member started with `--ui-port`: its REST API's address. */
export interface UiMember {
  readonly name: string;
  readonly cli: RunningCli;
  readonly url: string;
}

/**
 * The members a test file starts (push each one): any still running after
 * the file, a failed test's, are killed with SIGKILL.
 */
export function membersOfFile(): RunningCli[] {
  const running: RunningCli[] = [];
  afterAll(() => {
    for (const r of running) r.child.kill('SIGKILL');
  });
  return running;
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
