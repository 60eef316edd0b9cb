import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTopic, json, produce, readAll, uniqueTopic, waitFor } from './helpers.js';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'group-job.ts');
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

describe('Kafka source in a consumer group', () => {
  it('two processes share a topic through the group and together cover every partition', async () => {
    const input = uniqueTopic('group-in');
    const output = uniqueTopic('group-out');
    const groupId = uniqueTopic('group');
    await createTopic(input, 4);
    await createTopic(output, 1);
    const assigned = new Map<string, number>();
    let stderr = '';
    for (const name of ['a', 'b']) {
      const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
        env: {
          ...process.env,
          GROUP_INPUT: input,
          GROUP_OUTPUT: output,
          GROUP_ID: groupId,
          WORKER_NAME: name,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      child.stdout!.on('data', (d: Buffer) => {
        const m = /assigned (\d+)\s*$/.exec(d.toString());
        if (m !== null) assigned.set(name, Number(m[1]));
      });
      child.stderr!.on('data', (d: Buffer) => {
        stderr += d.toString();
      });
    }
    await waitFor(
      'both members to hold partitions',
      () =>
        (assigned.get('a') ?? 0) > 0 &&
        (assigned.get('b') ?? 0) > 0 &&
        (assigned.get('a') ?? 0) + (assigned.get('b') ?? 0) === 4,
      40_000,
    );
    const n = 400;
    await produce(
      input,
      Array.from({ length: n }, (_, id) => ({ value: JSON.stringify({ id }), partition: id % 4 })),
    );
    let out: { id: number; worker: string }[] = [];
    await waitFor(
      'every record to come out',
      async () => {
        out = await readAll(output, json<{ id: number; worker: string }>());
        return new Set(out.map((r) => r.id)).size === n;
      },
      30_000,
    );
    expect(stderr).not.toContain('job failed');
    // Every partition was read by exactly one member; both members took part.
    const workerOf = new Map<number, Set<string>>();
    for (const r of out) {
      const p = r.id % 4;
      const set = workerOf.get(p) ?? new Set<string>();
      set.add(r.worker);
      workerOf.set(p, set);
    }
    expect([...workerOf.keys()].sort()).toEqual([0, 1, 2, 3]);
    for (const set of workerOf.values()) expect(set.size).toBe(1);
    expect(new Set(out.map((r) => r.worker))).toEqual(new Set(['a', 'b']));
  }, 90_000);
});
