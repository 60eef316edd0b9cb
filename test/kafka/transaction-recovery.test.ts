import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TransactionCommittable } from '../../src/connectors/kafka/sink/sink-protocol.js';
import {
  familyOf,
  fenceCrashedRuns,
  planRecovery,
} from '../../src/connectors/kafka/sink/transaction-recovery.js';

function committable(
  prefix: string,
  subtask: number,
  parallelism: number,
  seq: number,
  epoch = 0,
): TransactionCommittable {
  return {
    kind: 'kafka-txn',
    transactionalId: `${prefix}-${subtask}-${seq}`,
    producerId: String(1000 * subtask + seq),
    producerEpoch: epoch,
    empty: false,
    subtask,
    parallelism,
    seq,
  };
}

const ids = (cs: readonly TransactionCommittable[]) => cs.map((c) => c.transactionalId).sort();

describe('planRecovery: which transactions a restoring writer commits and which it fences', () => {
  it('names a family by the id without its sequence number', () => {
    expect(familyOf('orders-0-12')).toBe('orders-0');
    expect(familyOf('orders-m1-r3-0-7')).toBe('orders-m1-r3-0');
  });

  it('over a rescale, every pending transaction is committed by exactly one new subtask and every old family is fenced', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 6 }),
        (oldP, newP, lastSeqs) => {
          // Each old subtask left its two newest pre-committed transactions.
          const all: TransactionCommittable[] = [];
          const last = new Map<number, number>();
          for (let s = 0; s < oldP; s++) {
            const seq = lastSeqs[s % lastSeqs.length]!;
            last.set(s, seq);
            all.push(committable('job', s, oldP, seq));
            if (seq > 1) all.push(committable('job', s, oldP, seq - 1));
          }
          const committed: string[] = [];
          const fenced = new Map<string, number>();
          for (let s = 0; s < newP; s++) {
            const plan = planRecovery(all, { prefix: 'job', subtask: s, parallelism: newP });
            committed.push(...ids(plan.commit));
            for (const f of plan.fence) {
              expect(fenced.has(f.family)).toBe(false);
              fenced.set(f.family, f.fromSeq);
            }
          }
          expect(committed.sort()).toEqual(ids(all));
          for (let s = 0; s < Math.max(oldP, newP); s++)
            expect(fenced.get(`job-${s}`)).toBe((last.get(s) ?? 0) + 1);
          expect(fenced.size).toBe(Math.max(oldP, newP));
        },
      ),
    );
  });

  it('in a process group, a new owner commits each dead run transaction once and fences every dead run after its checkpoint', () => {
    fc.assert(
      fc.property(
        // Dead member runs, each with the sequence number of its restored checkpoint.
        fc.uniqueArray(fc.tuple(fc.constantFrom('m1-r1', 'm2-r4', 'm3-r2', 'm1-r2'), fc.nat(30)), {
          minLength: 1,
          maxLength: 4,
          selector: ([run]) => run,
        }),
        fc.integer({ min: 1, max: 4 }),
        (runs, copies) => {
          const pending = runs.flatMap(([run, seq]) => [
            committable(`weir-g-sum-${run}`, 0, 1, seq + 1, 3),
            committable(`sink-${run}`, 0, 1, seq + 1),
          ]);
          // Every task snapshot of a member checkpoint carries its committables.
          const restored = Array.from({ length: copies }, () => pending).flat();
          const plan = planRecovery(restored, {
            prefix: 'sink-m9-r1',
            subtask: 0,
            parallelism: 1,
          });
          expect(ids(plan.commit)).toEqual(ids(pending));
          const fence = new Map(plan.fence.map((f) => [f.family, f.fromSeq]));
          for (const [run, seq] of runs) {
            expect(fence.get(`weir-g-sum-${run}-0`)).toBe(seq + 2);
            expect(fence.get(`sink-${run}-0`)).toBe(seq + 2);
          }
          // Its own run is new: its ids start at 1 (fenced first, in case one was used).
          expect(fence.get('sink-m9-r1-0')).toBe(1);
          expect(fence.size).toBe(2 * runs.length + 1);
        },
      ),
    );
  });

  it('an empty committable (no transaction started yet) commits nothing but still marks where fencing starts', () => {
    const empty: TransactionCommittable = {
      ...committable('job', 0, 1, 4),
      producerId: '-1',
      producerEpoch: -1,
      empty: true,
    };
    const plan = planRecovery([empty], { prefix: 'job', subtask: 0, parallelism: 1 });
    expect(plan.fence).toEqual([{ family: 'job-0', fromSeq: 5 }]);
    expect(plan.commit).toEqual([empty]);
  });

  it('fences crashed runs whose snapshots a new owner does not restore: from their last seal, or from 1 if they sealed nothing', () => {
    const ofRun = (prefix: string, run: string, seq: number): TransactionCommittable => ({
      ...committable(`${prefix}-${run}`, 0, 1, seq),
      prefix,
      run,
    });
    const restored = [ofRun('weir-g-w', 'm1-r1', 7), ofRun('out', 'm1-r1', 7)];
    const crashed = [
      { run: 'm1-r1', committables: [] },
      { run: 'm2-r3', committables: [ofRun('weir-g-w', 'm2-r3', 4), ofRun('out', 'm2-r3', 4)] },
      { run: 'm3-r1', committables: [] },
    ];
    const added = fenceCrashedRuns(restored, crashed);
    // m1-r1 is restored already; m2-r3's seal is committed again and fenced after; m3-r1 from 1.
    expect(ids(added)).toEqual(
      ['out-m2-r3-0-4', 'out-m3-r1-0-0', 'weir-g-w-m2-r3-0-4', 'weir-g-w-m3-r1-0-0'].sort(),
    );
    const plan = planRecovery([...restored, ...added], {
      prefix: 'out-m4-r1',
      subtask: 0,
      parallelism: 1,
    });
    const fence = new Map(plan.fence.map((f) => [f.family, f.fromSeq]));
    expect(fence.get('out-m1-r1-0')).toBe(8);
    expect(fence.get('out-m2-r3-0')).toBe(5);
    expect(fence.get('out-m3-r1-0')).toBe(1);
    expect(fence.get('out-m4-r1-0')).toBe(1);
    expect(
      plan.commit
        .filter((c) => !c.empty)
        .map((c) => c.transactionalId)
        .sort(),
    ).toEqual(
      ['out-m1-r1-0-7', 'out-m2-r3-0-4', 'weir-g-w-m1-r1-0-7', 'weir-g-w-m2-r3-0-4'].sort(),
    );
  });
});
