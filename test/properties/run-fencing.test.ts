import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type RunRecord, RunSeals } from '../../src/cli/run-seals.js';
import { abortAfterFinal } from '../../src/connectors/kafka/group/fenced-run.js';
import type { TransactionCommittable } from '../../src/connectors/kafka/sink/sink-protocol.js';
import type { CheckpointStore } from '../../src/runtime/checkpoint/store/checkpoint-store.js';

/**
 * The fencing of a process group member's run, under every interleaving
 * fast-check's scheduler finds: a zombie run that seals checkpoints and
 * commits each one only if no fence exists after sealing it, against
 * several members that fence it concurrently. Every fencer must come out
 * with the same final seal, and it must cover every checkpoint the zombie
 * committed (nothing the zombie made visible is left out of the state the
 * fencers restore).
 */

/** A checkpoint store in memory whose every operation waits for the scheduler, then runs atomically. */
function scheduledStore(s: fc.Scheduler): CheckpointStore {
  const files = new Map<string, string>();
  const step = <T>(label: string, op: () => T): Promise<T> =>
    s.schedule(Promise.resolve(label)).then(op);
  const unused = (): never => {
    throw new Error('not used by RunSeals');
  };
  return {
    location: 'memory',
    atomicDirectories: true,
    locate: (name) => name,
    read: (name) =>
      step(`read ${name}`, () => {
        const text = files.get(name);
        return text === undefined ? undefined : Buffer.from(text);
      }),
    list: () => step('list', () => [...files.keys()]),
    replace: (name, text) => step(`replace ${name}`, () => void files.set(name, text)),
    createExclusive: (name, text) =>
      step(`create ${name}`, () => {
        if (files.has(name)) return false;
        files.set(name, text);
        return true;
      }),
    writeDirectory: unused,
    removeDirectory: unused,
    removeLeftovers: unused,
    leaseFile: unused,
  };
}

const record = (sealed: number): RunRecord => ({
  tasks: ['in:0'],
  sealed,
  committables: [],
  ended: false,
});

describe('fencing a member run (fast-check scheduler)', () => {
  it('every fencer gets the same final seal, and it covers every checkpoint the run committed', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 3 }),
        async (s, checkpoints, fencers) => {
          const seals = new RunSeals(scheduledStore(s));
          const run = 'm-1-r1';
          const committed: number[] = [];
          const started = seals.write(run, record(0));
          const zombie = (async () => {
            await started;
            for (let n = 1; n <= checkpoints; n++) {
              if (!(await seals.sealAndCheck(run, record(n)))) return;
              committed.push(n);
            }
          })();
          // The fencers start once the run has said it started (its record exists).
          const finals = (async () => {
            await started;
            return Promise.all(
              Array.from({ length: fencers }, (_, i) => seals.fence(run, `m-${i + 2}-r1`)),
            );
          })();
          await s.waitFor(Promise.all([zombie, finals]));
          const got = (await finals).map((f) => f.sealed);
          expect(new Set(got).size).toBe(1);
          expect(got[0]!).toBeGreaterThanOrEqual(Math.max(0, ...committed));
          // Once fenced, the run seals nothing it may commit.
          expect(await s.waitFor(seals.sealed(run))).toBe(got[0]);
          expect(await s.waitFor(seals.isFenced(run))).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});

const committable = (family: string, seq: number): TransactionCommittable => ({
  kind: 'kafka-txn',
  transactionalId: `${family}-${seq}`,
  producerId: '7',
  producerEpoch: 0,
  empty: false,
  subtask: 0,
  parallelism: 1,
  seq,
});

describe('what a fenced run aborts of its own transactions', () => {
  const family = fc.constantFrom('weir-g-counts-m-1-r1-0', 'sink-m-1-r1-0');
  const txns = fc.array(fc.tuple(family, fc.integer({ min: 1, max: 20 })), { maxLength: 8 });
  it('never an id its final seal names (the fencers commit those), and every later pending one', () => {
    fc.assert(
      fc.property(txns, txns, (finalTxns, pendingTxns) => {
        const final = finalTxns.map(([f, n]) => committable(f, n));
        const pending = pendingTxns.map(([f, n]) => committable(f, n));
        const from = new Map(abortAfterFinal(pending, final).map((x) => [x.family, x.fromSeq]));
        for (const [f, n] of finalTxns) expect(from.get(f)!).toBeGreaterThan(n);
        for (const [f, n] of pendingTxns) {
          const lastFinal = Math.max(0, ...finalTxns.filter(([g]) => g === f).map(([, m]) => m));
          expect(from.has(f)).toBe(true);
          if (n > lastFinal) expect(from.get(f)!).toBeLessThanOrEqual(n);
        }
        // Nothing before the final's newest id of a family is aborted, nor a family neither names.
        for (const [f, start] of from) {
          const lastFinal = Math.max(0, ...finalTxns.filter(([g]) => g === f).map(([, m]) => m));
          expect(start).toBe(lastFinal + 1);
        }
      }),
    );
  });
});
