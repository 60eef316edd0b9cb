/** Where a state query is answered, and how its key is read: pure decisions, over a fixed group view. */
import { describe, expect, it } from 'vitest';
import type {
  GroupMemberView,
  ProcessGroupMembership,
  ProcessGroupView,
} from '../../src/core/process-group.js';
import { HttpError } from '../../src/ui/http-error.js';
import { parseStateKey } from '../../src/ui/state-query-route.js';
import { routeStateQuery } from '../../src/ui/state-routing.js';

const member = (name: string, tasks: string[], url?: string): GroupMemberView => ({
  member: name,
  url,
  jobId: url === undefined ? undefined : `job-${name}`,
  tasks,
  updatedAt: 1,
});

function group(members: GroupMemberView[], unassigned: string[] = []): ProcessGroupMembership {
  const view: ProcessGroupView = {
    applicationId: 'app',
    member: 'a',
    url: 'http://127.0.0.1:1',
    tasks: (members.find((m) => m.member === 'a')?.tasks ?? []).map((task) => ({
      task,
      position: 0,
      endOffset: 0,
      lag: 0,
    })),
    members,
    unassigned,
    assignmentChanges: 1,
    rebalances: 1,
    lastRebalanceAt: 1,
    lastRebalanceMs: 1,
  };
  return {
    view: () => view,
    ownerOf: (task) => members.find((m) => m.tasks.includes(task)),
  };
}

describe('routeStateQuery', () => {
  const g = group(
    [member('a', ['t:0'], 'http://a'), member('b', ['t:1'], 'http://b'), member('c', ['t:2'])],
    ['t:3'],
  );

  it('answers here outside a group, for its own tasks, for keys that are no task, and when forwarded', () => {
    expect(routeStateQuery(undefined, 't:1', false)).toEqual({ kind: 'local' });
    expect(routeStateQuery(g, 't:0', false)).toEqual({ kind: 'local' });
    expect(routeStateQuery(g, 'customer-7', false)).toEqual({ kind: 'local' });
    expect(routeStateQuery(g, 't:1', true)).toEqual({ kind: 'local' });
  });

  it("forwards a task another member holds to that member's address and job", () => {
    const route = routeStateQuery(g, 't:1', false);
    expect(route.kind).toBe('forward');
    expect(route.kind === 'forward' && [route.owner.url, route.owner.jobId]).toEqual([
      'http://b',
      'job-b',
    ]);
  });

  it('says when a task has no owner, or its owner no address', () => {
    expect(routeStateQuery(g, 't:3', false)).toEqual({ kind: 'unowned', task: 't:3' });
    expect(routeStateQuery(g, 't:2', false).kind).toBe('no-address');
  });
});

describe('parseStateKey', () => {
  it('reads the key as the type asked for', () => {
    expect(parseStateKey('42', null)).toBe('42');
    expect(parseStateKey('42', 'number')).toBe(42);
    expect(parseStateKey('-1.5', 'number')).toBe(-1.5);
    expect(parseStateKey('12345678901234567890', 'bigint')).toBe(12345678901234567890n);
    expect(parseStateKey('false', 'boolean')).toBe(false);
  });

  it('refuses, with a 400 naming the key, what does not parse', () => {
    for (const [text, type, message] of [
      ['x', 'number', "key 'x' is not a finite number"],
      ['', 'number', "key '' is not a finite number"],
      ['1.5', 'bigint', "key '1.5' is not a whole number"],
      ['yes', 'boolean', "key 'yes' is not true or false"],
      ['1', 'date', "keyType must be one of string, number, bigint, boolean, got 'date'"],
    ] as const) {
      let error: unknown;
      try {
        parseStateKey(text, type);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(HttpError);
      expect((error as HttpError).status).toBe(400);
      expect((error as HttpError).message).toContain(message);
    }
  });
});
