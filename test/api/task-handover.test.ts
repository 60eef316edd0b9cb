import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AssignmentDebounce,
  type DebounceClock,
  planRestore,
  taskChange,
} from '../../src/api/task-handover.js';
import {
  type KeyedStage,
  splitIntoTasks,
  type TaskLayout,
  taskOfKeyGroup,
} from '../../src/api/task-snapshots.js';
import type { Json } from '../../src/core/snapshot.js';
import type { CheckpointData } from '../../src/runtime/checkpoint/checkpoint-data.js';

const MAX = 32;
const STAGE: KeyedStage = { topic: 'weir-g-sum-repartition', partitions: 4 };
const LAYOUT: TaskLayout = { keyedOperators: new Map([['sum', STAGE]]) };
const HEADER = { checkpointId: 12, jobName: 'job', maxParallelism: MAX, createdAt: 'now' };

/** A member checkpoint holding every key group (one entry each) and the offsets given. */
function memberCheckpoint(inputOffsets: Record<string, number>): CheckpointData {
  const keyed: Record<string, Json[]> = {};
  const repartition: Record<string, number> = {};
  for (let g = 0; g < MAX; g++) {
    keyed[String(g)] = [[`k${g}`, g]];
    repartition[taskOfKeyGroup(g, STAGE, MAX)] = 1000 + g;
  }
  return {
    format: 'weir-checkpoint',
    version: 1,
    kind: 'checkpoint',
    checkpointId: 3,
    jobName: 'job',
    createdAt: 'then',
    maxParallelism: MAX,
    final: false,
    operators: [
      {
        uid: 'orders',
        name: 'orders',
        parallelism: 1,
        subtasks: [{}],
        sourcePositions: [{ kafka: 1, offsets: inputOffsets }],
      },
      {
        uid: 'sum-exchange-in',
        name: 'sum-exchange-in',
        parallelism: 1,
        subtasks: [{}],
        sourcePositions: [{ kafka: 1, offsets: repartition }],
      },
      { uid: 'sum', name: 'sum', parallelism: 1, subtasks: [{ keyed }] },
    ],
  };
}

const INPUT = { 'orders:0': 40, 'orders:1': 41, 'orders:2': 42 };
const ALL_TASKS = [...Object.keys(INPUT), ...[0, 1, 2, 3].map((p) => `${STAGE.topic}:${p}`)];

describe('planRestore: which tasks a member restores, and from which offset', () => {
  it('restores the tasks with a snapshot from its offset and key groups, and starts the others empty', () => {
    fc.assert(
      fc.property(fc.subarray(ALL_TASKS), fc.subarray(ALL_TASKS), (held, withSnapshot) => {
        const all = splitIntoTasks(memberCheckpoint(INPUT), LAYOUT);
        const snapshots = new Map([...all].filter(([t]) => withSnapshot.includes(t)));
        const plan = planRestore(held, snapshots, HEADER);
        const restored = held.filter((t) => withSnapshot.includes(t)).sort();
        expect([...plan.restored.keys()]).toEqual(restored);
        expect(plan.fresh).toEqual(held.filter((t) => !withSnapshot.includes(t)).sort());
        for (const t of restored) {
          const expected = t.startsWith('orders')
            ? INPUT[t as keyof typeof INPUT]
            : // The repartition offset of a task: that of its last key group.
              Math.max(
                ...Array.from({ length: MAX }, (_, g) => g)
                  .filter((g) => taskOfKeyGroup(g, STAGE, MAX) === t)
                  .map((g) => 1000 + g),
              );
          expect(plan.offsets.get(t), t).toBe(expected);
        }
        if (restored.length === 0) {
          expect(plan.checkpoint).toBeUndefined();
          return;
        }
        // The merged checkpoint holds exactly the key groups of the restored tasks of the stage.
        const groups = plan
          .checkpoint!.operators.filter((o) => o.uid === 'sum')
          .flatMap((o) => o.subtasks.flatMap((s) => Object.keys(s.keyed ?? {}).map(Number)));
        const wanted = Array.from({ length: MAX }, (_, g) => g).filter((g) =>
          restored.includes(taskOfKeyGroup(g, STAGE, MAX)),
        );
        expect(groups.sort((a, b) => a - b)).toEqual(wanted);
        expect(plan.checkpoint!.checkpointId).toBe(HEADER.checkpointId);
      }),
    );
  });
});

describe('taskChange', () => {
  it('names the tasks given up and the tasks given', () => {
    expect(taskChange(new Set(['a:0', 'a:1']), new Set(['a:1', 'b:0']))).toEqual({
      revoked: ['a:0'],
      assigned: ['b:0'],
    });
  });
});

/** A clock the test moves by hand. */
function manualClock(): DebounceClock & { advance(ms: number): void } {
  let now = 0;
  let timers: { at: number; fn: () => void; id: number }[] = [];
  let nextId = 0;
  return {
    now: () => now,
    setTimeout: (fn, ms) => {
      const id = nextId++;
      timers.push({ at: now + ms, fn, id });
      return id;
    },
    clearTimeout: (handle) => {
      timers = timers.filter((t) => t.id !== handle);
    },
    advance(ms: number) {
      const until = now + ms;
      for (;;) {
        const due = timers.filter((t) => t.at <= until).sort((a, b) => a.at - b.at)[0];
        if (due === undefined) break;
        timers = timers.filter((t) => t !== due);
        now = due.at;
        due.fn();
      }
      now = until;
    },
  };
}

describe('AssignmentDebounce', () => {
  it('acts once on a burst of changes, with the newest task set, after a quiet period', () => {
    const clock = manualClock();
    const settled: string[][] = [];
    const d = new AssignmentDebounce(
      new Set(['a:0']),
      (t) => settled.push([...t].sort()),
      1000,
      5000,
      clock,
    );
    d.update(new Set([]));
    clock.advance(400);
    d.update(new Set(['a:1']));
    clock.advance(400);
    d.update(new Set(['a:1', 'a:2']));
    clock.advance(999);
    expect(settled).toEqual([]);
    clock.advance(1);
    expect(settled).toEqual([['a:1', 'a:2']]);
  });

  it('acts at once when tasks are only added to a member that holds some (a failover)', () => {
    const clock = manualClock();
    const settled: string[][] = [];
    const d = new AssignmentDebounce(
      new Set(['a:0']),
      (t) => settled.push([...t].sort()),
      1000,
      5000,
      clock,
    );
    d.update(new Set(['a:0', 'a:1', 'a:2']));
    clock.advance(0);
    expect(settled).toEqual([['a:0', 'a:1', 'a:2']]);
    // A change that takes a task away waits for the quiet period again.
    d.update(new Set(['a:1', 'a:2']));
    clock.advance(999);
    expect(settled).toHaveLength(1);
    clock.advance(1);
    expect(settled).toEqual([
      ['a:0', 'a:1', 'a:2'],
      ['a:1', 'a:2'],
    ]);
    // A member's first tasks wait too: more may come in the next heartbeats.
    const first: string[][] = [];
    const e = new AssignmentDebounce(new Set(), (t) => first.push([...t]), 1000, 5000, clock);
    e.update(new Set(['a:3']));
    clock.advance(999);
    expect(first).toEqual([]);
    clock.advance(1);
    expect(first).toEqual([['a:3']]);
  });

  it('acts at the latest maxWait after the first change, however long the burst', () => {
    const clock = manualClock();
    const settled: number[] = [];
    const d = new AssignmentDebounce(new Set(), () => settled.push(clock.now()), 1000, 3000, clock);
    for (let i = 0; i < 10; i++) {
      d.update(new Set([`a:${i}`]));
      clock.advance(500);
    }
    expect(settled).toEqual([3000]);
  });

  it('does nothing when the burst ends where it began', () => {
    const clock = manualClock();
    const settled: string[][] = [];
    const d = new AssignmentDebounce(
      new Set(['a:0']),
      (t) => settled.push([...t]),
      1000,
      5000,
      clock,
    );
    d.update(new Set());
    clock.advance(300);
    d.update(new Set(['a:0']));
    clock.advance(5000);
    expect(settled).toEqual([]);
    d.close();
    d.update(new Set(['a:9']));
    clock.advance(5000);
    expect(settled).toEqual([]);
  });
});
