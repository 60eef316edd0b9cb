import { WeirError } from '../core/errors.js';
import { subtaskForKeyGroup } from '../core/key-groups.js';
import type { KeyedStage } from '../core/process-group.js';
import type { Json, OperatorSnapshot } from '../core/snapshot.js';
import type { CheckpointData, OperatorCheckpoint } from '../runtime/checkpoint/checkpoint-data.js';

export type { KeyedStage } from '../core/process-group.js';

/**
 * Which task of a process group owns which state of a member's checkpoint:
 * keyed operators by uid, with the stage whose partitions own their key
 * groups. Source positions name their tasks themselves (`offsets` by
 * `topic:partition`).
 */
export interface TaskLayout {
  readonly keyedOperators: ReadonlyMap<string, KeyedStage>;
}

/**
 * Splits a member's checkpoint into one checkpoint per task it held: for a
 * task `topic:p` of a keyed stage, the key groups partition `p` owns of every
 * keyed operator of that stage (timers and window contents are keyed state
 * too); for a task of any input topic, its source position. A task's
 * checkpoint is a whole {@link CheckpointData}, so the checkpoint storage
 * writes and reads it (local or `s3://`), and the checkpoints of the tasks a
 * member is given merge back into one it restores from
 * ({@link mergeTaskSnapshots}).
 *
 * The committables of two-phase-commit writers (union state entries that
 * `isCommittable` recognizes: transactions the member pre-committed and may
 * not have committed yet) go into every task's checkpoint, so whichever
 * member restores any of the tasks commits them (committing twice is a
 * no-op). Other operator list and union state belongs to no task and is in
 * no task's checkpoint.
 */
export function splitIntoTasks(
  checkpoint: CheckpointData,
  layout: TaskLayout,
  isCommittable: (entry: Json) => boolean = () => false,
): Map<string, CheckpointData> {
  const byTask = new Map<string, OperatorCheckpoint[]>();
  const add = (task: string, op: OperatorCheckpoint): void => {
    const list = byTask.get(task);
    if (list === undefined) byTask.set(task, [op]);
    else list.push(op);
  };
  for (const op of checkpoint.operators) {
    for (const [task, position] of positionsByTask(op))
      add(task, {
        uid: op.uid,
        name: op.name,
        parallelism: 1,
        subtasks: [],
        sourcePositions: [position],
      });
    const stage = stageOf(op, layout);
    if (stage === undefined) continue;
    for (const [task, snapshot] of keyedByTask(op, stage, checkpoint.maxParallelism))
      add(task, { uid: op.uid, name: op.name, parallelism: 1, subtasks: [snapshot] });
  }
  const committables = checkpoint.operators
    .map((op) => ({ op, union: op.subtasks.flatMap((s) => s.union ?? []).filter(isCommittable) }))
    .filter((u) => u.union.length > 0);
  const out = new Map<string, CheckpointData>();
  for (const [task, operators] of byTask) {
    for (const { op, union } of committables)
      operators.push({ uid: op.uid, name: op.name, parallelism: 1, subtasks: [{ union }] });
    out.set(task, { ...checkpoint, kind: 'checkpoint', final: false, operators });
  }
  return out;
}

/**
 * One checkpoint holding the state of all the given tasks' checkpoints: a
 * keyed operator gets the key groups of every task (as the subtasks of a
 * checkpoint taken at another parallelism, which a restore already regroups
 * by key group), a source one position with the offsets of every task. Two
 * tasks claiming the same key group or the same source partition is an
 * error naming both: the state would be counted twice.
 */
export function mergeTaskSnapshots(
  tasks: ReadonlyMap<string, CheckpointData>,
  header: Pick<CheckpointData, 'checkpointId' | 'jobName' | 'maxParallelism' | 'createdAt'>,
): CheckpointData {
  const operators = new Map<
    string,
    {
      name: string;
      subtasks: OperatorSnapshot[];
      offsets: Record<string, Json> | undefined;
      /** Union state of all tasks, each entry once (tasks of one member checkpoint share it). */
      union: Map<string, Json>;
    }
  >();
  const keyGroupOwner = new Map<string, string>();
  const partitionOwner = new Map<string, string>();
  for (const [task, data] of tasks) {
    if (data.maxParallelism !== header.maxParallelism)
      throw new WeirError(
        'INVALID_JOB',
        `the checkpoint of task ${task} was taken with maxParallelism ${data.maxParallelism} but the job has ${header.maxParallelism}`,
      );
    for (const op of data.operators) {
      let merged = operators.get(op.uid);
      if (merged === undefined) {
        merged = { name: op.name, subtasks: [], offsets: undefined, union: new Map() };
        operators.set(op.uid, merged);
      }
      for (const s of op.subtasks) {
        for (const g of Object.keys(s.keyed ?? {}))
          claim(keyGroupOwner, `${op.uid}#${g}`, task, `key group ${g} of operator '${op.uid}'`);
        const { union, ...rest } = s;
        for (const entry of union ?? []) merged.union.set(JSON.stringify(entry), entry);
        if (union === undefined || Object.keys(rest).length > 0) merged.subtasks.push(rest);
      }
      for (const position of op.sourcePositions ?? []) {
        for (const [part, offset] of Object.entries(offsetsOf(position) ?? {})) {
          claim(
            partitionOwner,
            `${op.uid}#${part}`,
            task,
            `partition ${part} of source '${op.uid}'`,
          );
          merged.offsets ??= {};
          merged.offsets[part] = offset;
        }
      }
    }
  }
  return {
    format: 'weir-checkpoint',
    version: 1,
    kind: 'checkpoint',
    final: false,
    ...header,
    operators: [...operators].map(([uid, m]) => ({
      uid,
      name: m.name,
      parallelism: Math.max(1, m.subtasks.length),
      subtasks: unionInto(m.subtasks, [...m.union.values()]),
      ...(m.offsets === undefined
        ? {}
        : { sourcePositions: [{ kafkaGroup: 1, offsets: m.offsets }] }),
    })),
  };
}

/** Subtasks with the union state given to the first (restore gives every subtask all of it). */
function unionInto(subtasks: OperatorSnapshot[], union: Json[]): OperatorSnapshot[] {
  if (union.length === 0) return subtasks;
  const [first, ...rest] = subtasks;
  return [{ ...first, union }, ...rest];
}

/** The task of key group `group` in `stage`: the partition whose range holds it. */
export function taskOfKeyGroup(group: number, stage: KeyedStage, maxParallelism: number): string {
  return `${stage.topic}:${subtaskForKeyGroup(group, maxParallelism, stage.partitions)}`;
}

function claim(owners: Map<string, string>, what: string, task: string, text: string): void {
  const other = owners.get(what);
  if (other !== undefined && other !== task)
    throw new WeirError(
      'INVALID_JOB',
      `the checkpoints of tasks ${other} and ${task} both hold ${text}; a task's state must be in exactly one task checkpoint`,
    );
  owners.set(what, task);
}

function stageOf(op: OperatorCheckpoint, layout: TaskLayout): KeyedStage | undefined {
  const known = layout.keyedOperators.get(op.uid);
  if (known !== undefined) return known;
  const keyed = op.subtasks.some(
    (s) => (s.keyed !== undefined && Object.keys(s.keyed).length > 0) || s.keyedDelta !== undefined,
  );
  if (!keyed) return undefined;
  // An operator the plan split off a keyed one (a window's parts) shares its stage when there is only one.
  const stages = [
    ...new Map([...layout.keyedOperators.values()].map((s) => [s.topic, s])).values(),
  ];
  if (stages.length === 1) return stages[0];
  throw new WeirError(
    'INVALID_JOB',
    `operator '${op.uid}' keeps keyed state, but no keyed stage of the process group names it, so its state cannot be given to tasks`,
    { operatorId: op.uid },
  );
}

function keyedByTask(
  op: OperatorCheckpoint,
  stage: KeyedStage,
  maxParallelism: number,
): Map<string, OperatorSnapshot> {
  const groups = new Map<string, Record<string, Json[]>>();
  const states = new Map<string, OperatorSnapshot['states']>();
  for (const s of op.subtasks) {
    if (s.keyedDelta !== undefined)
      throw new WeirError(
        'INTERNAL',
        `operator '${op.uid}' has incremental state that was not resolved; read checkpoints with readCheckpoint`,
        { domain: 'internal', operatorId: op.uid },
      );
    for (const [g, entries] of Object.entries(s.keyed ?? {})) {
      const task = taskOfKeyGroup(Number(g), stage, maxParallelism);
      let mine = groups.get(task);
      if (mine === undefined) {
        mine = {};
        groups.set(task, mine);
      }
      mine[g] = [...(mine[g] ?? []), ...entries];
      if (s.states !== undefined) states.set(task, { ...states.get(task), ...s.states });
    }
  }
  const out = new Map<string, OperatorSnapshot>();
  for (const [task, keyed] of groups) {
    const meta = states.get(task);
    out.set(task, { keyed, ...(meta === undefined ? {} : { states: meta }) });
  }
  return out;
}

/** A source position of a process group reader: its next offset by task (`topic:partition`). */
function offsetsOf(position: Json | undefined): Record<string, Json> | undefined {
  if (position === null || typeof position !== 'object' || Array.isArray(position))
    return undefined;
  const offsets = position.offsets;
  if (offsets === null || typeof offsets !== 'object' || Array.isArray(offsets)) return undefined;
  return offsets;
}

function positionsByTask(op: OperatorCheckpoint): Map<string, Json> {
  const out = new Map<string, Json>();
  for (const position of op.sourcePositions ?? []) {
    for (const [task, offset] of Object.entries(offsetsOf(position) ?? {}))
      out.set(task, { kafkaGroup: 1, offsets: { [task]: offset } });
  }
  return out;
}
