import { type Key, keyGroupOf, subtaskForKeyGroup } from '../../core/key-groups.js';
import type { StateQueryAnswer } from '../../core/queryable-state.js';
import { taskSlots } from '../execution/build-tasks.js';
import type { ExecutionPlan } from '../execution/execution-plan.js';
import type { Task } from '../task/task.js';

/**
 * What a read of queryable state by key came to ({@link JobClient.queryState}):
 * the key's value or its absence, with the subtask that owns the key; or why
 * the job could not be asked (no such operator, one that does not expose its
 * state, a job that is not running).
 */
export type StateQueryResult =
  | (StateQueryAnswer & { readonly kind: 'value' | 'absent'; readonly subtask: number })
  | { readonly kind: 'not-queryable' }
  | { readonly kind: 'unknown-operator' }
  | { readonly kind: 'not-running' };

/**
 * A source's state is not partitioned by key groups (a reader holds the
 * partitions it was given): every subtask is asked, and the one that holds
 * the key answers.
 */
async function querySourceState(
  plan: ExecutionPlan,
  tasks: readonly Task[],
  head: number,
  uid: string,
  key: Key,
): Promise<StateQueryResult> {
  const slots = taskSlots(plan);
  let result: StateQueryResult = { kind: 'not-running' };
  for (let slot = 0; slot < slots.length; slot++) {
    const task = tasks[slot];
    if (slots[slot]!.head !== head || task === undefined || task.finished) continue;
    const answer = await task.queryState(uid, key);
    if (answer === undefined) continue;
    if (answer.kind === 'value') return { ...answer, subtask: task.subtask };
    result = answer.kind === 'absent' ? { ...answer, subtask: task.subtask } : answer;
  }
  return result;
}

/**
 * Reads operator `uid`'s state for `key` from the subtask that owns the
 * key's key group (on this thread or a worker's), so one key is always
 * answered by one subtask.
 */
export async function queryTaskState(
  plan: ExecutionPlan,
  tasks: readonly Task[] | undefined,
  uid: string,
  key: Key,
): Promise<StateQueryResult> {
  const vertex = plan.vertices.find((v) => v.operatorId === uid);
  if (vertex === undefined) return { kind: 'unknown-operator' };
  if (tasks === undefined) return { kind: 'not-running' };
  if (vertex.kind === 'source') return querySourceState(plan, tasks, vertex.id, uid, key);
  const { maxParallelism } = plan;
  const subtask = subtaskForKeyGroup(
    keyGroupOf(key, maxParallelism),
    maxParallelism,
    vertex.parallelism,
  );
  const slot = taskSlots(plan).findIndex(
    (s) => s.head === vertex.chainHead && s.subtask === subtask,
  );
  const task = tasks[slot];
  if (task === undefined || task.subtask !== subtask || task.finished)
    return { kind: 'not-running' };
  const answer = await task.queryState(uid, key);
  if (answer === undefined) return { kind: 'not-running' };
  return answer.kind === 'not-queryable' ? answer : { ...answer, subtask };
}
