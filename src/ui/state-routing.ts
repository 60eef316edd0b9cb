import type { IncomingMessage } from 'node:http';
import type { Key } from '../core/key-groups.js';
import type {
  GroupMemberView,
  ProcessGroupMembership,
  ProcessGroupView,
} from '../core/process-group.js';

/** Marks a request one member forwarded to another: it is answered where it lands, never sent on. */
export const FORWARDED_HEADER = 'weir-forwarded-by';

/**
 * Where a state query goes: answered here, sent to the member that owns the
 * key, or nowhere yet (no member holds its task, or the query was sent here
 * by a member whose view of the group is behind: the task has moved on).
 */
export type StateRoute =
  | { readonly kind: 'local' }
  | { readonly kind: 'forward'; readonly owner: GroupMemberView & { readonly url: string } }
  | { readonly kind: 'unowned'; readonly task: string }
  | { readonly kind: 'moved'; readonly task: string; readonly member: string }
  | { readonly kind: 'no-address'; readonly owner: GroupMemberView };

/**
 * Decides where a state query for `key` of operator `uid` is answered. In a
 * process group, state lives with the member that holds its task by the
 * group's metadata: for a keyed operator, the repartition partition of the
 * key's key group in its stage; for a Kafka source, the task named by the
 * key (`topic:partition`). A query is forwarded to that member once; the
 * member it lands on answers only while it still holds the task, so a task
 * on its way elsewhere never answers with what it no longer owns. Any
 * other query, and every one outside a group, is answered here.
 */
export function routeStateQuery(
  group: ProcessGroupMembership | undefined,
  uid: string,
  key: Key,
  forwarded: boolean,
): StateRoute {
  if (group === undefined) return { kind: 'local' };
  const view = group.view();
  const keyed = group.taskOfKey(uid, key);
  const task = keyed ?? String(key);
  if (keyed === undefined && !isTaskOf(view, task)) return { kind: 'local' };
  const owner = group.ownerOf(task);
  if (forwarded)
    return owner?.member === view.member
      ? { kind: 'local' }
      : { kind: 'moved', task, member: view.member };
  if (owner === undefined) return { kind: 'unowned', task };
  if (owner.member === view.member) return { kind: 'local' };
  if (owner.url === undefined || owner.jobId === undefined) return { kind: 'no-address', owner };
  return { kind: 'forward', owner: { ...owner, url: owner.url } };
}

/** Whether `task` is a task of the group's input as this member knows it. */
function isTaskOf(view: ProcessGroupView, task: string): boolean {
  return (
    view.unassigned.includes(task) ||
    view.tasks.some((t) => t.task === task) ||
    view.members.some((m) => m.tasks.includes(task))
  );
}

/** Whether another member sent this request. */
export function isForwarded(request: IncomingMessage): boolean {
  return request.headers[FORWARDED_HEADER] !== undefined;
}

/**
 * Asks the owning member for the state and returns its status, body and
 * `Retry-After` as they are. The owner's REST API is on loopback or behind TLS like this
 * one; reads need no token.
 */
export async function forwardStateQuery(
  owner: GroupMemberView & { readonly url: string },
  self: string,
  uid: string,
  keyText: string,
  keyType: string | null,
): Promise<{ readonly status: number; readonly body: string; readonly retryAfter: string | null }> {
  const query = keyType === null ? '' : `?keyType=${encodeURIComponent(keyType)}`;
  const url = `${owner.url}/jobs/${encodeURIComponent(owner.jobId ?? '')}/state/${encodeURIComponent(uid)}/${encodeURIComponent(keyText)}${query}`;
  const response = await fetch(url, {
    headers: { [FORWARDED_HEADER]: self },
    signal: AbortSignal.timeout(10_000),
  });
  return {
    status: response.status,
    body: await response.text(),
    retryAfter: response.headers.get('retry-after'),
  };
}
