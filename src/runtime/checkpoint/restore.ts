import { WeirError } from '../../core/errors.js';
import { keyGroupRange } from '../../core/key-groups.js';
import type { Json, OperatorSnapshot, RestoredState, StateMeta } from '../../core/snapshot.js';
import type { CheckpointData, OperatorCheckpoint } from './checkpoint-data.js';

/** An operator of the job being restored. */
export interface RestoringOperator {
  readonly uid: string;
  readonly name: string;
  readonly parallelism: number;
  readonly isSource: boolean;
  /** A source whose positions can be restored at another parallelism (`Source.rescalable`). */
  readonly rescalable?: boolean;
}

/**
 * Checks, before anything runs, that a checkpoint fits the job: same number
 * of key groups, every piece of state has an operator to go to, and sources
 * that cannot be split keep their parallelism. Explains any mismatch.
 */
export function checkCompatibility(
  checkpoint: CheckpointData,
  operators: readonly RestoringOperator[],
  maxParallelism: number,
  allowNonRestoredState: boolean,
): void {
  if (checkpoint.maxParallelism !== maxParallelism) {
    throw new WeirError(
      'INVALID_JOB',
      `the checkpoint was taken with maxParallelism ${checkpoint.maxParallelism} but the job has ${maxParallelism}; keyed state is sharded by it, so it must stay the same`,
    );
  }
  const byUid = new Map(operators.map((o) => [o.uid, o]));
  const orphans = checkpoint.operators.filter((op) => !byUid.has(op.uid) && hasState(op));
  if (orphans.length > 0 && !allowNonRestoredState) {
    const list = orphans.map((o) => `'${o.uid}' (${o.name})`).join(', ');
    const known = operators.map((o) => `'${o.uid}'`).join(', ');
    throw new WeirError(
      'INVALID_JOB',
      `the checkpoint holds state for operator ids the job does not have: ${list}. The job's operator ids are ${known}. If an operator was renamed, give it its old id with .uid(); to drop that state on purpose, restore with allowNonRestoredState.`,
    );
  }
  for (const op of checkpoint.operators) {
    const now = byUid.get(op.uid);
    if (now === undefined || !now.isSource || now.rescalable === true) continue;
    const positions = op.sourcePositions ?? [];
    if (positions.length > 0 && positions.length !== now.parallelism) {
      throw new WeirError(
        'INVALID_JOB',
        `source '${op.uid}' ran with parallelism ${positions.length} in the checkpoint and has ${now.parallelism} now; this source's positions cannot be redistributed, keep the source's parallelism`,
      );
    }
  }
}

function hasState(op: OperatorCheckpoint): boolean {
  if ((op.sourcePositions ?? []).length > 0) return true;
  return op.subtasks.some(
    (s) =>
      (s.keyed !== undefined && Object.keys(s.keyed).length > 0) ||
      s.keyedDelta !== undefined ||
      (s.list !== undefined && s.list.length > 0) ||
      (s.union !== undefined && s.union.length > 0),
  );
}

/**
 * The state subtask `subtask` of `parallelism` gets: the key groups of its
 * range from every old subtask, list state entries dealt round-robin, and all
 * union state. Works for any old and new parallelism.
 */
export function restoredStateFor(
  checkpoint: CheckpointData,
  uid: string,
  subtask: number,
  parallelism: number,
): RestoredState | undefined {
  const op = checkpoint.operators.find((o) => o.uid === uid);
  if (op === undefined) return undefined;
  const { first, last } = keyGroupRange(subtask, checkpoint.maxParallelism, parallelism);
  const keyed = new Map<number, Json[]>();
  const states = new Map<string, StateMeta>();
  const list: Json[] = [];
  const union: Json[] = [];
  // Dealt per named list state (Flink splits each state evenly): one count over all states
  // would deal a state by where the others' entries fall, e.g. a state with one entry per
  // old subtask all onto one new subtask.
  const dealt = new Map<string | undefined, number>();
  for (const s of op.subtasks as OperatorSnapshot[]) {
    if (s.keyedDelta !== undefined) {
      throw new WeirError(
        'INTERNAL',
        `operator '${uid}' has incremental state that was not resolved; read checkpoints with readCheckpoint`,
        { domain: 'internal', operatorId: uid },
      );
    }
    for (const [name, meta] of Object.entries(s.states ?? {})) {
      const known = states.get(name);
      if (known === undefined) states.set(name, meta);
      else if (JSON.stringify(known) !== JSON.stringify(meta)) {
        throw new WeirError(
          'INVALID_JOB',
          `state '${name}' of operator '${uid}' is described differently by different subtasks of the checkpoint`,
          { operatorId: uid },
        );
      }
    }
    for (const [g, entries] of Object.entries(s.keyed ?? {})) {
      const group = Number(g);
      if (group < first || group > last) continue;
      const existing = keyed.get(group);
      if (existing === undefined) keyed.set(group, [...entries]);
      else existing.push(...entries);
    }
    for (const entry of s.list ?? []) {
      const name = listStateName(entry);
      const index = dealt.get(name) ?? 0;
      dealt.set(name, index + 1);
      if (index % parallelism === subtask) list.push(entry);
    }
    union.push(...(s.union ?? []));
  }
  return { keyed, list, union, ...(states.size > 0 ? { states } : {}) };
}

/** The state an operator list state entry belongs to: operator state stores write `{ n, v }`. */
function listStateName(entry: Json): string | undefined {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return undefined;
  return typeof entry.n === 'string' ? entry.n : undefined;
}

/** The positions of every subtask of source `uid` in the checkpoint, for a rescalable source. */
export function sourcePositionsOf(checkpoint: CheckpointData, uid: string): readonly Json[] {
  const op = checkpoint.operators.find((o) => o.uid === uid);
  return op?.sourcePositions ?? [];
}

/** Where source subtask `subtask` resumes, if the checkpoint has a position for it. */
export function sourcePositionFor(
  checkpoint: CheckpointData,
  uid: string,
  subtask: number,
): Json | undefined {
  const op = checkpoint.operators.find((o) => o.uid === uid);
  return op?.sourcePositions?.[subtask] ?? undefined;
}
