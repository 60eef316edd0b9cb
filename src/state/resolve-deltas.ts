import { WeirError } from '../core/errors.js';
import { keyGroupRange, subtaskForKeyGroup } from '../core/key-groups.js';
import {
  applyKeyGroupChanges,
  type Json,
  type KeyGroupChanges,
  type OperatorSnapshot,
} from '../core/snapshot.js';

/** What delta resolution needs of a checkpoint (a structural view of `CheckpointData`). */
export interface CheckpointView {
  readonly checkpointId: number;
  readonly maxParallelism: number;
  readonly operators: readonly {
    readonly uid: string;
    readonly parallelism: number;
    readonly subtasks: readonly OperatorSnapshot[];
  }[];
}

/** The checkpoints a checkpoint's deltas apply to, directly. */
export function deltaBases(checkpoint: CheckpointView): Set<number> {
  const bases = new Set<number>();
  for (const op of checkpoint.operators) {
    for (const s of op.subtasks) if (s.keyedDelta !== undefined) bases.add(s.keyedDelta.base);
  }
  return bases;
}

/**
 * The lowest checkpoint any state backend of this checkpoint may still use
 * as a delta base (see `OperatorSnapshot.deltaBaseFloor`), if any.
 */
export function deltaBaseFloor(checkpoint: CheckpointView): number | undefined {
  let floor: number | undefined;
  for (const op of checkpoint.operators) {
    for (const s of op.subtasks) {
      const c = s.deltaBaseFloor;
      if (c !== undefined && (floor === undefined || c < floor)) floor = c;
    }
  }
  return floor;
}

/**
 * Replaces every `keyedDelta` of `checkpoint` by whole key groups in `keyed`,
 * following base checkpoints (loaded with `load`, each at most once) back to
 * full snapshots. Works per key group, so it does not matter how key groups
 * were spread over subtasks in the bases. Returns the checkpoint unchanged
 * if it has no delta.
 */
export async function resolveDeltas<C extends CheckpointView>(
  checkpoint: C,
  load: (checkpointId: number) => Promise<CheckpointView>,
): Promise<C> {
  if (deltaBases(checkpoint).size === 0) return checkpoint;
  const loaded = new Map<number, Promise<CheckpointView>>();
  const loadOnce = (id: number): Promise<CheckpointView> => {
    let p = loaded.get(id);
    if (p === undefined) {
      p = load(id);
      loaded.set(id, p);
    }
    return p;
  };

  /**
   * Key group `g` of operator `uid` as of checkpoint `data`: the entries of
   * the full snapshot at the start of the chain and the changes after it,
   * oldest first (applied in one pass, however long the chain).
   */
  const chainAt = async (
    data: CheckpointView,
    uid: string,
    g: number,
    from: number,
  ): Promise<{ base: Json[]; changes: KeyGroupChanges[]; identityLength: number }> => {
    const op = data.operators.find((o) => o.uid === uid);
    if (op === undefined) {
      throw new WeirError(
        'INVALID_JOB',
        `checkpoint ${from} has incremental state of operator '${uid}' based on checkpoint ${data.checkpointId}, which has no state of that operator`,
        { operatorId: uid },
      );
    }
    const owner = op.subtasks[subtaskForKeyGroup(g, data.maxParallelism, op.parallelism)];
    const delta = owner?.keyedDelta;
    if (delta === undefined) {
      const base: Json[] = [];
      for (const s of op.subtasks) {
        const entries = s.keyed?.[String(g)];
        if (entries !== undefined) base.push(...entries);
      }
      return { base, changes: [], identityLength: 0 };
    }
    const chain = await chainAt(await loadOnce(delta.base), uid, g, data.checkpointId);
    const changes = delta.groups[String(g)];
    if (changes !== undefined) chain.changes.push(changes);
    chain.identityLength = delta.identityLength;
    return chain;
  };

  const operators = [];
  for (const op of checkpoint.operators) {
    const subtasks: OperatorSnapshot[] = [];
    for (let i = 0; i < op.subtasks.length; i++) {
      const s = op.subtasks[i]!;
      const delta = s.keyedDelta;
      if (delta === undefined) {
        subtasks.push(s);
        continue;
      }
      const keyed: Record<string, Json[]> = { ...(s.keyed ?? {}) };
      const { first, last } = keyGroupRange(i, checkpoint.maxParallelism, op.parallelism);
      for (let g = first; g <= last; g++) {
        if (keyed[String(g)] !== undefined) {
          throw new WeirError(
            'INVALID_JOB',
            `checkpoint ${checkpoint.checkpointId}: key group ${g} of operator '${op.uid}' is both whole and a delta`,
            { operatorId: op.uid },
          );
        }
        const chain = await chainAt(checkpoint, op.uid, g, checkpoint.checkpointId);
        const entries =
          chain.changes.length === 0
            ? chain.base
            : applyKeyGroupChanges(chain.base, chain.changes, chain.identityLength);
        if (entries.length > 0) keyed[String(g)] = entries;
      }
      const { keyedDelta: _resolved, ...rest } = s;
      subtasks.push({ ...rest, keyed });
    }
    operators.push({ ...op, subtasks });
  }
  return { ...checkpoint, operators };
}
