/**
 * Which member keeps standby copies of which tasks: a ring of the members in
 * order of their ids, each member's tasks copied by the next `replicas`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { standbyTasksOf } from '../../src/cli/standby-replicas.js';

const member = (id: string, tasks: string[], updatedAt = 0) => ({ member: id, tasks, updatedAt });

describe('standbyTasksOf', () => {
  it('gives each member the tasks of the members before it in the ring', () => {
    const group = [member('c', ['t4']), member('a', ['t0', 't1']), member('b', ['t2', 't3'])];
    expect(standbyTasksOf(group, 'b', 1)).toEqual(['t0', 't1']);
    expect(standbyTasksOf(group, 'c', 1)).toEqual(['t2', 't3']);
    expect(standbyTasksOf(group, 'a', 1)).toEqual(['t4']);
    expect(standbyTasksOf(group, 'a', 2)).toEqual(['t2', 't3', 't4']);
    // More replicas than other members: every other member's tasks, never one's own.
    expect(standbyTasksOf(group, 'a', 5)).toEqual(['t2', 't3', 't4']);
    expect(standbyTasksOf(group, 'a', 0)).toEqual([]);
    expect(standbyTasksOf(group, 'z', 1)).toEqual([]);
  });

  it('counts a task two members claim as the newer claimant’s', () => {
    const group = [member('a', ['t0'], 5), member('b', ['t0', 't1'], 9), member('c', [])];
    expect(standbyTasksOf(group, 'c', 1)).toEqual(['t0', 't1']);
    expect(standbyTasksOf(group, 'b', 1)).toEqual([]);
  });

  it('keeps exactly min(replicas, members - 1) copies of every task, none by its owner', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 6 }),
        fc.nat(40),
        fc.nat(6),
        (ids, taskCount, replicas) => {
          const group = ids.map((id) => member(id, [] as string[]));
          for (let t = 0; t < taskCount; t++) group[t % group.length]!.tasks.push(`t${t}`);
          const copies = new Map<string, string[]>();
          for (const { member: id } of group)
            for (const t of standbyTasksOf(group, id, replicas))
              copies.set(t, [...(copies.get(t) ?? []), id]);
          for (const { member: owner, tasks } of group)
            for (const t of tasks) {
              const holders = copies.get(t) ?? [];
              expect(holders).not.toContain(owner);
              expect(holders.length).toBe(Math.min(replicas, group.length - 1));
            }
        },
      ),
    );
  });
});
