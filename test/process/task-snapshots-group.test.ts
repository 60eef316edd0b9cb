import { mkdtempSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mergeTaskSnapshots, taskOfKeyGroup } from '../../src/api/task-snapshots.js';
import { taskCheckpointDirectory } from '../../src/cli/single-owner-run.js';
import { repartitionTopicName } from '../../src/connectors/kafka/group/repartition-topic.js';
import { DEFAULT_MAX_PARALLELISM, keyGroupOf } from '../../src/core/key-groups.js';
import type { CheckpointData } from '../../src/runtime/checkpoint/checkpoint-data.js';
import { checkpointStorageAt } from '../../src/runtime/checkpoint/checkpoint-storage.js';
import { sourcePositionFor } from '../../src/runtime/checkpoint/restore.js';
import { openStore } from '../../src/runtime/checkpoint/store/open-store.js';
import type { Out } from '../cli/fixtures/group-keyed-windows.js';
import { type RunningCli, startWeir } from '../cli/run-cli.js';
import { freshS3Location, S3_ENV, useTestS3 } from '../helpers/s3.js';
import { createTopic, json, produce, readAll, uniqueTopic, waitFor } from '../kafka/helpers.js';
import { heldTasks } from './group-member.js';
import { groupMemberArgs } from './group-member-args.js';

const FIXTURE = 'test/cli/fixtures/group-keyed-windows.ts';
const PARTITIONS = 3;
/** The repartition topic's partitions (the keyed operator sets no parallelism). */
const STAGE_TASKS = 4;
const KEYS = Array.from({ length: 8 }, (_, i) => `k${i}`);
const running: RunningCli[] = [];
afterAll(() => {
  for (const r of running) r.child.kill('SIGKILL');
});

interface Ev {
  readonly k: string;
  readonly t: number;
  readonly v: number;
}

/**
 * The latest snapshot of every task under `location`/tasks, by task directory.
 * Each is the one `findLatest` read and verified: the running member prunes
 * all but the newest two, so reading the path it names a second time may
 * find it gone.
 */
async function latestTaskSnapshots(location: string): Promise<Map<string, CheckpointData>> {
  const out = new Map<string, CheckpointData>();
  const root = `${location}/tasks`;
  for (const name of await openStore(root)
    .list()
    .catch(() => [])) {
    const { intact } = await checkpointStorageAt(`${root}/${name}`).findLatest();
    if (intact !== undefined) out.set(name, intact.checkpoint);
  }
  return out;
}

/** A number on the member's /metrics (the first line of `name`), NaN when absent. */
async function metric(port: number, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return Number(new RegExp(`^${name}\\S* (\\d+)`, 'm').exec(text)?.[1]);
}

function offsets(checkpoint: CheckpointData, uid: string): Record<string, number> {
  const position = sourcePositionFor(checkpoint, uid, 0) as
    | { offsets?: Record<string, number> }
    | undefined;
  return position?.offsets ?? {};
}

/** The window contents of operator 'counts' for windows ending at `end`: `key@group n= sum=`. */
function windowsAt(checkpoint: CheckpointData, end: number): string[] {
  const op = checkpoint.operators.find((o) => o.uid === 'counts');
  const out: string[] = [];
  for (const s of op?.subtasks ?? [])
    for (const [g, entries] of Object.entries(s.keyed ?? {}))
      for (const e of entries as [string, number, { n: number; sum: number }][])
        if (e[1] === end) out.push(`${e[0]}@${g} n=${e[2].n} sum=${e[2].sum}`);
  return out;
}

describe('per-task snapshots of a process group', () => {
  useTestS3();
  it.each([
    {
      storage: 'a directory',
      location: () => join(mkdtempSync(join(tmpdir(), 'weir-task-snapshots-')), 'checkpoints'),
      env: {},
      port: 61_190,
    },
    {
      storage: 's3://',
      location: () => freshS3Location('task-snapshots'),
      env: S3_ENV,
      port: 62_300,
    },
  ])(
    'a member writes each task’s key groups and input offset under the shared checkpoint location ($storage)',
    async ({ location, env, port }) => {
      const inTopic = uniqueTopic('ts-in');
      const outTopic = uniqueTopic('ts-out');
      const app = uniqueTopic('ts-app');
      await createTopic(inTopic, PARTITIONS);
      await createTopic(outTopic, 1);
      const shared = location();
      // One member: keyed state does not move between members yet, so a task that moves after
      // data (the group may still shuffle) stops the job; this test is about what is written.
      const members = ['a'].map((_name, i) => {
        const cli = startWeir(
          groupMemberArgs(
            FIXTURE,
            app,
            shared,
            [inTopic, outTopic],
            ['--metrics-port', String(port + i)],
          ),
          400_000,
          { env },
        );
        running.push(cli);
        return cli;
      });
      const diagnose = () => members.map((m) => m.output('stderr').slice(-3000)).join(' | ');
      await waitFor(
        'the member to hold every task of both stages',
        async () => {
          const held = await heldTasks(port);
          return held.length === 2 && held.reduce((a, b) => a + b, 0) === PARTITIONS + STAGE_TASKS;
        },
        90_000,
        diagnose,
      );
      // Per key: events in windows [0,10) and [80,90) (kept: within the allowed lateness after the ticks).
      const events: Ev[] = KEYS.flatMap((k, i) => [
        { k, t: 1_000 + i, v: i },
        { k, t: 81_000, v: 10 * i },
        { k, t: 85_000, v: 1 },
      ]);
      const ticks = (t: number): Ev[] => [0, 1, 2].map((p) => ({ k: 'tick', t: t + p, v: 0 }));
      const partitionOf = (e: Ev) => (e.k === 'tick' ? e.t % 3 : Number(e.k.slice(1)) % 3);
      await produce(
        inTopic,
        [...ticks(0), ...events, ...ticks(201_000)].map((e) => ({
          value: JSON.stringify(e),
          partition: partitionOf(e),
        })),
      );
      const perPartition = [0, 1, 2].map(
        (p) =>
          [...ticks(0), ...events, ...ticks(201_000)].filter((e) => partitionOf(e) === p).length,
      );
      await waitFor(
        'the windows before the ticks to fire',
        async () =>
          (await readAll(outTopic, json<Out>())).filter((o) => o.kind === 'window').length >=
          2 * KEYS.length + 1,
        120_000,
        diagnose,
      );
      // Snapshots of a checkpoint taken after the windows fired, so after every record was
      // counted (one that was being written then may be older: it runs behind its barrier).
      const written = await metric(port, 'weir_group_last_task_snapshot_checkpoint');
      await waitFor(
        'a checkpoint taken after the windows fired',
        async () => (await metric(port, 'weir_group_last_task_snapshot_checkpoint')) >= written + 2,
        60_000,
        diagnose,
      );
      let merged: CheckpointData | undefined;
      const repartition = repartitionTopicName(app, 'counts');
      await waitFor(
        'task snapshots with every input record read',
        async () => {
          const tasks = await latestTaskSnapshots(shared);
          if (tasks.size === 0) return false;
          merged = mergeTaskSnapshots(tasks, {
            checkpointId: 1,
            jobName: 'j',
            maxParallelism: DEFAULT_MAX_PARALLELISM,
            createdAt: 'now',
          });
          const read = merged.operators.flatMap((op) => Object.entries(offsets(merged!, op.uid)));
          return (
            [0, 1, 2].every((p) =>
              read.some(([task, o]) => task === `${inTopic}:${p}` && o === perPartition[p]),
            ) && windowsAt(merged, 90_000).length === KEYS.length
          );
        },
        120_000,
        diagnose,
      );
      // The windows [80 s, 90 s) are kept for late data: their contents, each in its key's group.
      expect(windowsAt(merged!, 90_000).sort()).toEqual(
        KEYS.map((k, i) => `${k}@${keyGroupOf(k, DEFAULT_MAX_PARALLELISM)} n=2 sum=${10 * i + 1}`),
      );
      // Each task directory holds only its own key groups.
      for (const [dir, data] of await latestTaskSnapshots(shared)) {
        for (const op of data.operators)
          for (const s of op.subtasks)
            for (const g of Object.keys(s.keyed ?? {}))
              expect(
                taskCheckpointDirectory(
                  shared,
                  taskOfKeyGroup(
                    Number(g),
                    { topic: repartition, partitions: STAGE_TASKS },
                    DEFAULT_MAX_PARALLELISM,
                  ),
                ),
              ).toBe(`${shared}/tasks/${dir}`);
      }
      // The member's own checkpoints are under members/, beside the tasks': its directory, and
      // the handover savepoint and merged restore point of its own it writes when the group
      // moved tasks while it started (`<member>-handover`, `<member>-restore`).
      const member = `${hostname()}-${members[0]!.child.pid}`.replace(/[^a-zA-Z0-9._-]/g, '_');
      const memberEntries = await openStore(`${shared}/members`).list();
      expect(memberEntries).toContain(member);
      for (const entry of memberEntries)
        expect(['', '-handover', '-restore'].map((suffix) => member + suffix)).toContain(entry);
      expect(await openStore(`${shared}/tasks`).list()).toEqual(
        expect.arrayContaining([0, 1, 2].map((p) => `${inTopic}_${p}`)),
      );
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(await metric(port, 'weir_group_task_snapshots_total')).toBeGreaterThan(0);
      expect(metrics).toMatch(/^weir_group_task_snapshot_failures_total\S* 0$/m);
      for (const m of members) m.child.kill('SIGTERM');
      await Promise.all(members.map((m) => m.done));
    },
    300_000,
  );
});
