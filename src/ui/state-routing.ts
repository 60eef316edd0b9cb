import type { IncomingMessage } from 'node:http';
import type { Key } from '../core/key-groups.js';
import type { GroupMemberView, ProcessGroupMembership } from '../core/process-group.js';

/** Marks a request one member forwarded to another: it is answered where it lands, never sent on. */
export const FORWARDED_HEADER = 'weir-forwarded-by';

/** Where a state query goes: answered here, sent to the member that owns the key, or nowhere yet. */
export type StateRoute =
  | { readonly kind: 'local' }
  | { readonly kind: 'forward'; readonly owner: GroupMemberView & { readonly url: string } }
  | { readonly kind: 'unowned'; readonly task: string }
  | { readonly kind: 'no-address'; readonly owner: GroupMemberView };

/**
 * Decides where a state query is answered. In a process group the state of
 * a task (a partition of the group's input, key `topic:partition`) lives
 * with the member that holds the task by the group's metadata; a query for
 * one is forwarded there unless it was forwarded already. Everything else,
 * and every query outside a group, is answered here.
 */
export function routeStateQuery(
  group: ProcessGroupMembership | undefined,
  key: Key,
  forwarded: boolean,
): StateRoute {
  if (group === undefined || forwarded) return { kind: 'local' };
  const task = String(key);
  const view = group.view();
  const known =
    view.unassigned.includes(task) ||
    view.tasks.some((t) => t.task === task) ||
    view.members.some((m) => m.tasks.includes(task));
  if (!known) return { kind: 'local' };
  const owner = group.ownerOf(task);
  if (owner === undefined) return { kind: 'unowned', task };
  if (owner.member === view.member) return { kind: 'local' };
  if (owner.url === undefined || owner.jobId === undefined) return { kind: 'no-address', owner };
  return { kind: 'forward', owner: { ...owner, url: owner.url } };
}

/** Whether another member sent this request. */
export function isForwarded(request: IncomingMessage): boolean {
  return request.headers[FORWARDED_HEADER] !== undefined;
}

/**
 * Asks the owning member for the state and returns its status and body as
 * they are. The owner's REST API is on loopback or behind TLS like this
 * one; reads need no token.
 */
export async function forwardStateQuery(
  owner: GroupMemberView & { readonly url: string },
  self: string,
  uid: string,
  keyText: string,
  keyType: string | null,
): Promise<{ readonly status: number; readonly body: string }> {
  const query = keyType === null ? '' : `?keyType=${encodeURIComponent(keyType)}`;
  const url = `${owner.url}/jobs/${encodeURIComponent(owner.jobId ?? '')}/state/${encodeURIComponent(uid)}/${encodeURIComponent(keyText)}${query}`;
  const response = await fetch(url, {
    headers: { [FORWARDED_HEADER]: self },
    signal: AbortSignal.timeout(10_000),
  });
  return { status: response.status, body: await response.text() };
}
