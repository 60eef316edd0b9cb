import { afterAll, describe, expect, it } from 'vitest';
import { type GroupTask, TaskGroup, taskKey } from '../../src/connectors/kafka/group/task-group.js';
import { BROKERS, createTopic, uniqueTopic, waitFor } from './helpers.js';

const open: TaskGroup[] = [];
afterAll(async () => {
  await Promise.all(open.map((g) => g.close()));
});

async function member(applicationId: string, topics: string[], name: string): Promise<TaskGroup> {
  const g = await TaskGroup.join({ brokers: BROKERS, applicationId, topics, memberName: name });
  open.push(g);
  return g;
}

/** Owner of each task, `topic:partition` -> member name; fails on a task owned twice. */
function owners(members: ReadonlyMap<string, TaskGroup>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, g] of members) {
    for (const t of g.tasks()) {
      const key = taskKey(t.topic, t.partition);
      const before = out.get(key);
      if (before !== undefined) throw new Error(`${key} owned by ${before} and ${name}`);
      out.set(key, name);
    }
  }
  return out;
}

/** Every task owned by exactly one member, and each member within one of the others' counts. */
function balancedAndComplete(members: ReadonlyMap<string, TaskGroup>, all: string[]): boolean {
  const o = owners(members);
  if (o.size !== all.length || !all.every((k) => o.has(k))) return false;
  const counts = [...members.values()].map((g) => g.tasks().length);
  return Math.max(...counts) - Math.min(...counts) <= 1;
}

function keysOf(topic: string, partitions: number): string[] {
  return Array.from({ length: partitions }, (_, p) => taskKey(topic, p));
}

describe('process group membership (KIP-848 consumer protocol)', () => {
  it('spreads the tasks of two stages over the members, and moves only what scaling needs (1 -> 3 -> 2)', async () => {
    const stage1 = uniqueTopic('tg-in');
    const stage2 = uniqueTopic('tg-repartition');
    await createTopic(stage1, 6);
    await createTopic(stage2, 6);
    const all = [...keysOf(stage1, 6), ...keysOf(stage2, 6)];
    const app = uniqueTopic('tg-app');
    const members = new Map<string, TaskGroup>();
    const changes: { name: string; assigned: GroupTask[]; revoked: GroupTask[] }[] = [];
    const add = async (name: string): Promise<void> => {
      const g = await member(app, [stage1, stage2], name);
      g.onChange((c) => changes.push({ name, assigned: [...c.assigned], revoked: [...c.revoked] }));
      members.set(name, g);
    };
    const settle = (what: string) =>
      waitFor(
        what,
        () => balancedAndComplete(members, all),
        60_000,
        () => JSON.stringify([...owners(members)]),
      );

    await add('a');
    await settle('one member to own all 12 tasks');
    expect(members.get('a')!.tasks()).toHaveLength(12);

    const beforeGrow = owners(members);
    await add('b');
    await add('c');
    await settle('three members to own 4 tasks each');
    const afterGrow = owners(members);
    // Sticky: the 8 tasks b and c need come from a; none moves twice.
    const movedOnGrow = all.filter((k) => beforeGrow.get(k) !== afterGrow.get(k));
    expect(movedOnGrow).toHaveLength(8);
    for (const name of ['a', 'b', 'c']) expect(members.get(name)!.tasks()).toHaveLength(4);

    await members.get('b')!.close();
    members.delete('b');
    await settle('two members to take over the leaver’s tasks');
    const afterShrink = owners(members);
    // Only b's 4 tasks move; a and c keep every task they had.
    const movedOnShrink = all.filter((k) => afterGrow.get(k) !== afterShrink.get(k));
    expect(movedOnShrink.sort()).toEqual(all.filter((k) => afterGrow.get(k) === 'b').sort());
    for (const name of ['a', 'c']) expect(members.get(name)!.tasks()).toHaveLength(6);

    // The change events add up to what each member holds.
    for (const [name, g] of members) {
      const held = new Set<string>();
      for (const c of changes.filter((x) => x.name === name)) {
        for (const t of c.revoked) held.delete(taskKey(t.topic, t.partition));
        for (const t of c.assigned) held.add(taskKey(t.topic, t.partition));
      }
      expect([...held].sort()).toEqual(
        g
          .tasks()
          .map((t) => taskKey(t.topic, t.partition))
          .sort(),
      );
    }
  }, 120_000);
});
