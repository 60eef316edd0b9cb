import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { taskCheckpointDirectory } from '../../src/cli/single-owner-run.js';
import { startWeir } from '../cli/run-cli.js';
import { bundledCli } from '../helpers/bundled-fixture.js';
import { freshS3Location, S3_ENV, useTestS3 } from '../helpers/s3.js';
import { waitFor } from '../kafka/helpers.js';
import { membersOfFile } from './group-member.js';
import { groupMemberArgs } from './group-member-args.js';
import {
  chunks,
  type Ev,
  expectNoWindowLost,
  input,
  type KeyedWindowsMember,
  keyedWindowsTopics,
  PARTITIONS,
  sendAndExchange,
  settled,
  stderrOf,
  stopAll,
  TICK,
} from './keyed-windows-input.js';

/**
 * Standby replicas of a keyed process group whose checkpoints are in object
 * storage: each member keeps local copies of the other's task snapshots, and
 * the survivor of a SIGKILL restores the dead member's tasks from them.
 */
const FIXTURE = 'test/cli/fixtures/group-keyed-windows.ts';
const running = membersOfFile();

interface StandbyMember extends KeyedWindowsMember {
  /** The member's TMPDIR, where its local copies are kept. */
  readonly tmp: string;
}

/** The files a member keeps as local copies of `location`'s state files (see `cacheDirectoryFor`). */
function localCopies(member: StandbyMember, location: string): string[] {
  const id = createHash('sha256').update(location).digest('hex').slice(0, 16);
  try {
    return readdirSync(join(member.tmp, 'weir-checkpoint-cache', id)).filter((f) =>
      /^[0-9a-f]{64}$/.test(f),
    );
  } catch {
    return [];
  }
}

/** A number on a member's /metrics (the first series of `name`), NaN when absent. */
async function metric(port: number, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text)?.[1]);
}

describe('standby replicas of a keyed process group (checkpoints in S3)', () => {
  useTestS3();

  it('a member keeps local copies of the other’s task snapshots and, after a SIGKILL, restores its tasks from them', async () => {
    const t = await keyedWindowsTopics('sb');
    const shared = freshS3Location('standby');
    const start = (name: string, port: number): StandbyMember => {
      const tmp = mkdtempSync(join(tmpdir(), `weir-standby-${name}-`));
      const { cli, job } = bundledCli(FIXTURE);
      const flags = ['--metrics-port', String(port), '--standby-replicas', '1'];
      const run = startWeir(
        groupMemberArgs(job, t.app, shared, [t.inTopic, t.outTopic], flags),
        900_000,
        { cli, env: { ...S3_ENV, TMPDIR: tmp } },
      );
      running.push(run);
      return { cli: run, port, tmp };
    };
    const a = start('a', 61_370);
    const b = start('b', 61_371);
    const members = [a, b];
    const diagnose = stderrOf(members);
    await settled(members, 2 * PARTITIONS, diagnose);
    const { onTime, ticks } = input(31);
    const [first, second] = chunks(onTime, 2) as [Ev[], Ev[]];
    await sendAndExchange(t, [...ticks(0), ...first], diagnose);
    // b follows a's tasks: their snapshots' state files reach b's disk, named by their SHA-256.
    let followed: string[] = [];
    await waitFor(
      'b to copy snapshots of every task of a',
      () => {
        const said = [
          ...b.cli
            .output('stderr')
            .matchAll(/standby: keeping local copies of the newest snapshots of tasks (.*)/g),
        ].at(-1);
        followed = said?.[1]?.split(', ') ?? [];
        return (
          followed.length > 0 &&
          followed.every((task) => localCopies(b, taskCheckpointDirectory(shared, task)).length > 0)
        );
      },
      120_000,
      diagnose,
    );
    for (const task of followed)
      for (const file of localCopies(b, taskCheckpointDirectory(shared, task))) {
        const dir = join(
          b.tmp,
          'weir-checkpoint-cache',
          createHash('sha256')
            .update(taskCheckpointDirectory(shared, task))
            .digest('hex')
            .slice(0, 16),
        );
        const bytes = readFileSync(join(dir, file));
        expect(createHash('sha256').update(bytes).digest('hex')).toBe(file);
      }
    expect(await metric(b.port, 'weir_group_standby_tasks')).toBe(followed.length);
    expect(await metric(b.port, 'weir_group_standby_copies_total')).toBeGreaterThan(0);
    // a dies; b takes its tasks over, their state read from the local copies.
    a.cli.child.kill('SIGKILL');
    await t.send(second);
    await settled([b], 2 * PARTITIONS, diagnose);
    const takeOver =
      /this member holds 8 task\(s\); restored: (?!none).*state files: (\d+) from local copies, (\d+) downloaded/;
    await waitFor(
      'b to restore every task',
      () => takeOver.test(b.cli.output('stderr')),
      60_000,
      diagnose,
    );
    const [, local] = takeOver.exec(b.cli.output('stderr'))!;
    expect(Number(local)).toBeGreaterThan(0);
    await waitFor(
      "the take-over's local reads on b's /metrics",
      async () => (await metric(b.port, 'weir_group_restored_files_local_total')) >= Number(local),
      30_000,
      diagnose,
    );
    await t.send(ticks(TICK));
    await expectNoWindowLost(t, [...ticks(0), ...onTime], diagnose);
    await stopAll([b]);
  }, 420_000);
});
