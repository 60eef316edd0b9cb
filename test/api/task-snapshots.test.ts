import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type KeyedStage,
  mergeTaskSnapshots,
  splitIntoTasks,
  type TaskLayout,
  taskOfKeyGroup,
} from '../../src/api/task-snapshots.js';
import type { Json, RestoredState } from '../../src/core/snapshot.js';
import type { CheckpointData } from '../../src/runtime/checkpoint/checkpoint-data.js';
import { restoredStateFor, sourcePositionFor } from '../../src/runtime/checkpoint/restore.js';

const MAX = 32;
const STAGE: KeyedStage = { topic: 'weir-g-sum-repartition', partitions: 4 };
const LAYOUT: TaskLayout = { keyedOperators: new Map([['sum', STAGE]]) };
const STATES = { count: { kind: 'value', serializer: { id: 'json', version: 1 } } } as const;

/** A member's checkpoint: keyed state of `groups` for 'sum' and 'window', offsets of its tasks. */
function memberCheckpoint(
  groups: ReadonlyMap<number, number>,
  inputOffsets: Record<string, number>,
): CheckpointData {
  const keyed: Record<string, Json[]> = {};
  for (const [g, n] of groups)
    keyed[String(g)] = Array.from({ length: n }, (_, i) => [`k${g}-${i}`, i]);
  const repartitionOffsets: Record<string, number> = {};
  for (const g of groups.keys()) repartitionOffsets[taskOfKeyGroup(g, STAGE, MAX)] = 100 + g;
  return {
    format: 'weir-checkpoint',
    version: 1,
    kind: 'checkpoint',
    checkpointId: 7,
    jobName: 'job',
    createdAt: '2026-01-01T00:00:00.000Z',
    maxParallelism: MAX,
    final: false,
    operators: [
      {
        uid: 'orders',
        name: 'orders',
        parallelism: 1,
        subtasks: [{}],
        sourcePositions: [{ kafkaGroup: 1, offsets: inputOffsets }],
      },
      {
        uid: 'sum-exchange-in',
        name: 'sum-exchange-in',
        parallelism: 1,
        subtasks: [{}],
        sourcePositions: [{ kafkaGroup: 1, offsets: repartitionOffsets }],
      },
      { uid: 'sum', name: 'sum', parallelism: 1, subtasks: [{ keyed, states: STATES }] },
      // Named by no stage: takes the only stage there is (a window's parts).
      { uid: 'sum-part', name: 'sum-part', parallelism: 1, subtasks: [{ keyed }] },
      { uid: 'out', name: 'out', parallelism: 1, subtasks: [{ list: ['pending-txn'] }] },
    ],
  };
}

function sorted(state: RestoredState | undefined): [number, Json[]][] {
  return [...(state?.keyed ?? new Map<number, readonly Json[]>())]
    .map(
      ([g, e]) =>
        [g, [...e].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1))] as [
          number,
          Json[],
        ],
    )
    .sort((a, b) => a[0] - b[0]);
}

/** The offsets by task of a source in a checkpoint, none when it has no position. */
function offsetsAt(checkpoint: CheckpointData, uid: string): Json {
  const position = sourcePositionFor(checkpoint, uid, 0) as { offsets?: Json } | undefined;
  return position?.offsets ?? {};
}

const header = { checkpointId: 1, jobName: 'job', maxParallelism: MAX, createdAt: 'now' };
const groupsArb = fc
  .uniqueArray(fc.integer({ min: 0, max: MAX - 1 }), { maxLength: MAX })
  .chain((gs) =>
    fc.tuple(
      fc.constant(gs),
      fc.array(fc.integer({ min: 0, max: 3 }), { minLength: gs.length, maxLength: gs.length }),
    ),
  )
  .map(([gs, ns]) => new Map(gs.map((g, i) => [g, ns[i]!])));
const offsetsArb = fc.dictionary(
  fc.integer({ min: 0, max: 5 }).map((p) => `orders:${p}`),
  fc.nat(1000),
);

describe('per-task snapshots of a process group member', () => {
  it('merging every task of a split restores exactly what the whole checkpoint restores', () => {
    fc.assert(
      fc.property(groupsArb, offsetsArb, fc.integer({ min: 1, max: 5 }), (groups, offsets, p) => {
        const whole = memberCheckpoint(groups, offsets);
        const merged = mergeTaskSnapshots(splitIntoTasks(whole, LAYOUT), header);
        for (const uid of ['sum', 'sum-part'])
          for (let s = 0; s < p; s++)
            expect(sorted(restoredStateFor(merged, uid, s, p))).toEqual(
              sorted(restoredStateFor(whole, uid, s, p)),
            );
        for (const uid of ['orders', 'sum-exchange-in'])
          expect(offsetsAt(merged, uid)).toEqual(offsetsAt(whole, uid));
      }),
    );
  });

  it('a task holds only its own key groups and input position; a subset merges to just those tasks', () => {
    fc.assert(
      fc.property(groupsArb, offsetsArb, fc.uniqueArray(fc.nat(3)), (groups, offsets, picked) => {
        const tasks = splitIntoTasks(memberCheckpoint(groups, offsets), LAYOUT);
        for (const [task, data] of tasks) {
          for (const op of data.operators) {
            for (const s of op.subtasks)
              for (const g of Object.keys(s.keyed ?? {}))
                expect(taskOfKeyGroup(Number(g), STAGE, MAX)).toBe(task);
            for (const pos of op.sourcePositions ?? [])
              expect(Object.keys((pos as { offsets: object }).offsets)).toEqual([task]);
            // State of no task (a sink's pending transactions) stays in the member's checkpoint.
            expect(op.uid).not.toBe('out');
          }
        }
        const chosen = new Map(
          [...tasks].filter(([t]) => picked.some((p) => t === `${STAGE.topic}:${p}`)),
        );
        const merged = mergeTaskSnapshots(chosen, header);
        const expected = [...groups.keys()]
          .filter((g) =>
            picked.some((p) => taskOfKeyGroup(g, STAGE, MAX) === `${STAGE.topic}:${p}`),
          )
          .sort((a, b) => a - b);
        expect(sorted(restoredStateFor(merged, 'sum', 0, 1)).map(([g]) => g)).toEqual(expected);
      }),
    );
  });

  it("a transactional writer's committables go with every task and merge back once; other union state stays", () => {
    const isTxn = (e: Json): boolean =>
      typeof e === 'object' && e !== null && !Array.isArray(e) && e.kind === 'txn';
    fc.assert(
      fc.property(
        groupsArb.filter((g) => g.size > 0),
        offsetsArb,
        fc.uniqueArray(fc.nat(50), { minLength: 1, maxLength: 4 }),
        (groups, offsets, seqs) => {
          const pending: Json[] = seqs.map((seq) => ({ kind: 'txn', id: `w-run1-0-${seq}` }));
          const base = memberCheckpoint(groups, offsets);
          const whole: CheckpointData = {
            ...base,
            operators: [
              ...base.operators,
              {
                uid: 'writer',
                name: 'writer',
                parallelism: 1,
                subtasks: [{ union: [...pending, { watermark: 3 }] }],
              },
            ],
          };
          const tasks = splitIntoTasks(whole, LAYOUT, isTxn);
          for (const [, data] of tasks) {
            const writer = data.operators.find((op) => op.uid === 'writer');
            expect(writer?.subtasks.flatMap((s) => s.union ?? [])).toEqual(pending);
          }
          // Any subset of the tasks (a new owner's share) brings every committable, once.
          const some = new Map([...tasks].filter((_, i) => i % 2 === 0));
          const merged = mergeTaskSnapshots(some, header);
          expect(restoredStateFor(merged, 'writer', 0, 1)?.union).toEqual(pending);
        },
      ),
    );
  });

  it('refuses to merge two tasks that hold the same state, naming both', () => {
    const a = splitIntoTasks(memberCheckpoint(new Map([[0, 1]]), {}), LAYOUT);
    const [task, data] = [...a][0]!;
    const twice = new Map([
      [task, data],
      [`${STAGE.topic}:3`, data],
    ]);
    expect(() => mergeTaskSnapshots(twice, header)).toThrow(
      `the checkpoints of tasks ${task} and ${STAGE.topic}:3 both hold`,
    );
  });

  it('refuses keyed state of an operator no stage names when there are several stages', () => {
    const layout: TaskLayout = {
      keyedOperators: new Map([
        ['a', STAGE],
        ['b', { topic: 'other', partitions: 2 }],
      ]),
    };
    expect(() => splitIntoTasks(memberCheckpoint(new Map([[1, 1]]), {}), layout)).toThrow(
      "operator 'sum' keeps keyed state, but no keyed stage of the process group names it",
    );
  });
});
