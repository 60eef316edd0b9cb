import type { Json } from '../../../core/snapshot.js';
import type { TransactionCommittable } from './sink-protocol.js';

/**
 * The transactional ids of one writer: `<family>-<seq>`, one id per
 * checkpoint interval. A single process's sink subtask `s` is the family
 * `<prefix>-<s>`; in a process group every member run has families of its
 * own (the prefix carries the run), so the committables a task snapshot
 * brings along may name families of other, dead, member runs.
 */
export function familyOf(transactionalId: string): string {
  const dash = transactionalId.lastIndexOf('-');
  return dash < 0 ? transactionalId : transactionalId.slice(0, dash);
}

/** Later transactions of `family` to abort: ids `<family>-<fromSeq>` upwards, until one never used. */
export interface FenceFrom {
  readonly family: string;
  readonly fromSeq: number;
}

/** What a restoring writer does before it writes anything. */
export interface RecoveryPlan {
  /** Pre-committed transactions of the restored checkpoint to commit (again: committing is idempotent). */
  readonly commit: readonly TransactionCommittable[];
  /**
   * Families whose transactions after the restored checkpoint are aborted
   * and fenced; the writer's own numbering goes on after its own family's.
   */
  readonly fence: readonly FenceFrom[];
}

/** The writer that restores: its prefix (without subtask), subtask and parallelism. */
export interface RestoringWriter {
  readonly prefix: string;
  readonly subtask: number;
  readonly parallelism: number;
}

/**
 * Which transactions a restoring writer commits and which families it
 * fences, from the committables of ALL subtasks in the restored checkpoint
 * (Flink's rule: what a completed checkpoint pre-committed must become
 * visible, whatever came after it must not).
 *
 * - It commits the committables of the subtasks it owns (`subtask %
 *   parallelism`), so a rescale neither splits nor repeats a transaction.
 * - For every family those committables name, it aborts the ids after the
 *   newest one named: the transactions the writer opened after that
 *   checkpoint. A family of another member run (a dead process of a group)
 *   is fenced the same way, so its late transactions never become visible.
 * - Its own families (`<prefix>-<s>` for every subtask `s` it owns at the
 *   old or new parallelism) are fenced from after their newest committable,
 *   or from 1 without one: a run that crashed before its first checkpoint
 *   also leaves transactions behind.
 */
export function planRecovery(
  committables: readonly TransactionCommittable[],
  writer: RestoringWriter,
): RecoveryPlan {
  const { prefix, subtask, parallelism } = writer;
  const owned = (s: number): boolean => s % parallelism === subtask;
  const lastSeq = new Map<string, number>();
  let oldParallelism = 0;
  const commit: TransactionCommittable[] = [];
  const seen = new Set<string>();
  for (const c of committables) {
    if (!owned(c.subtask)) continue;
    const family = familyOf(c.transactionalId);
    lastSeq.set(family, Math.max(lastSeq.get(family) ?? 0, c.seq));
    if (family.startsWith(`${prefix}-`)) oldParallelism = Math.max(oldParallelism, c.parallelism);
    // Several task snapshots bring the same member checkpoint's committables.
    const key = `${c.transactionalId}/${c.producerId}/${c.producerEpoch}`;
    if (seen.has(key)) continue;
    seen.add(key);
    commit.push(c);
  }
  const fence = new Map<string, number>();
  for (const [family, seq] of lastSeq) fence.set(family, seq + 1);
  for (let s = subtask; s < Math.max(parallelism, oldParallelism); s += parallelism) {
    const family = `${prefix}-${s}`;
    if (!fence.has(family)) fence.set(family, 1);
  }
  return { commit, fence: [...fence].map(([family, fromSeq]) => ({ family, fromSeq })) };
}

/** A member run of a process group that crashed, and the committables of its last sealed checkpoint. */
export interface CrashedRun {
  readonly run: string;
  readonly committables: readonly TransactionCommittable[];
}

/**
 * What the restoring writer whose restored committables are `restored` must
 * add to fence `crashed` runs too: runs that held one of its tasks and did
 * not end cleanly, whose snapshots it does not restore (a newer run of the
 * task, or a run that died before sealing anything). A run's sealed
 * committables are committed again (a no-op) and its later ids fenced; a run
 * that sealed nothing gets an empty committable at sequence 0 for each of
 * the writer's prefixes, so its ids are fenced from 1. Which prefixes are
 * the writer's is read from `restored`: without any, nothing is added.
 */
export function fenceCrashedRuns(
  restored: readonly TransactionCommittable[],
  crashed: readonly CrashedRun[],
): TransactionCommittable[] {
  const writers = new Map<string, TransactionCommittable>();
  const present = new Set<string>();
  for (const c of restored) {
    if (c.prefix === undefined || c.run === undefined) continue;
    writers.set(`${c.prefix}/${c.subtask}`, c);
    present.add(`${c.prefix}/${c.subtask}/${c.run}`);
  }
  const out: TransactionCommittable[] = [];
  for (const [key, w] of writers) {
    for (const { run, committables } of crashed) {
      if (present.has(`${key}/${run}`)) continue;
      const mine = committables.filter(
        (c) => c.prefix === w.prefix && c.subtask === w.subtask && c.run === run,
      );
      if (mine.length > 0) out.push(...mine);
      else
        out.push({
          kind: 'kafka-txn',
          transactionalId: `${w.prefix}-${run}-${w.subtask}-0`,
          producerId: '-1',
          producerEpoch: -1,
          empty: true,
          subtask: w.subtask,
          parallelism: w.parallelism,
          seq: 0,
          prefix: w.prefix!,
          run,
        });
    }
  }
  return out;
}

/** Whether union state holds a Kafka transaction's committable. */
export function isTransactionCommittable(json: Json): json is Json & TransactionCommittable {
  return (
    json !== null &&
    typeof json === 'object' &&
    !Array.isArray(json) &&
    json.kind === 'kafka-txn' &&
    typeof json.transactionalId === 'string' &&
    typeof json.producerId === 'string' &&
    typeof json.producerEpoch === 'number' &&
    typeof json.subtask === 'number' &&
    typeof json.seq === 'number'
  );
}
