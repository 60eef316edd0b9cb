/** Where a state query is answered, and how its key is read: pure decisions, over a fixed group view. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recordMessages, taskOfKey } from '../../src/connectors/kafka/group/repartition-topic.js';
import {
  DEFAULT_MAX_PARALLELISM,
  type Key,
  keyGroupOf,
  subtaskForKeyGroup,
} from '../../src/core/key-groups.js';
import type {
  GroupMemberView,
  KeyedStage,
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

function group(
  members: GroupMemberView[],
  unassigned: string[] = [],
  stages: ReadonlyMap<string, KeyedStage> = new Map(),
  maxParallelism = DEFAULT_MAX_PARALLELISM,
): ProcessGroupMembership {
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
    taskOfKey: (uid, key) =>
      stages.has(uid) ? taskOfKey(key, stages.get(uid)!, maxParallelism) : undefined,
  };
}

describe('routeStateQuery', () => {
  const g = group(
    [member('a', ['t:0'], 'http://a'), member('b', ['t:1'], 'http://b'), member('c', ['t:2'])],
    ['t:3'],
  );

  it('answers here outside a group, for its own tasks, for keys that are no task, and when forwarded a task it holds', () => {
    expect(routeStateQuery(undefined, 'input', 't:1', false)).toEqual({ kind: 'local' });
    expect(routeStateQuery(g, 'input', 't:0', false)).toEqual({ kind: 'local' });
    expect(routeStateQuery(g, 'input', 'customer-7', false)).toEqual({ kind: 'local' });
    expect(routeStateQuery(g, 'input', 't:0', true)).toEqual({ kind: 'local' });
  });

  it('refuses a forwarded query for a task it does not hold (its sender saw an older assignment)', () => {
    expect(routeStateQuery(g, 'input', 't:1', true)).toEqual({
      kind: 'moved',
      task: 't:1',
      member: 'a',
    });
    expect(routeStateQuery(g, 'input', 't:3', true).kind).toBe('moved');
  });

  it("forwards a task another member holds to that member's address and job", () => {
    const route = routeStateQuery(g, 'input', 't:1', false);
    expect(route.kind).toBe('forward');
    expect(route.kind === 'forward' && [route.owner.url, route.owner.jobId]).toEqual([
      'http://b',
      'job-b',
    ]);
  });

  it('says when a task has no owner, or its owner no address', () => {
    expect(routeStateQuery(g, 'input', 't:3', false)).toEqual({ kind: 'unowned', task: 't:3' });
    expect(routeStateQuery(g, 'input', 't:2', false).kind).toBe('no-address');
  });
});

describe('routeStateQuery for a keyed operator', () => {
  const key = fc.oneof(
    fc.string(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
  );

  it("sends a key, written in the URL as text, to the member holding the partition the job's keyBy and repartition writer send it to", () => {
    fc.assert(
      fc.property(
        key,
        fc.integer({ min: 1, max: 512 }),
        fc.integer({ min: 1, max: 512 }),
        fc.integer({ min: 1, max: 5 }),
        (k, maxParallelism, wanted, memberCount) => {
          const partitions = Math.min(wanted, maxParallelism);
          const stage: KeyedStage = { topic: 'weir-app-sums-repartition', partitions };
          // Partition p is held by member p % memberCount; member 0 is this one ('a').
          const names = Array.from({ length: memberCount }, (_, i) => (i === 0 ? 'a' : `m${i}`));
          const members = names.map((name, i) =>
            member(
              name,
              Array.from({ length: partitions }, (_, p) => p)
                .filter((p) => p % memberCount === i)
                .map((p) => `${stage.topic}:${p}`),
              `http://${name}`,
            ),
          );
          const g = group(members, [], new Map([['sums', stage]]), maxParallelism);
          // The key as the REST API reads it back from the URL.
          const typed: Key = parseStateKey(String(k), typeof k === 'number' ? 'number' : null);
          const route = routeStateQuery(g, 'sums', typed, false);
          // Where the job puts the key: its keyBy subtask over the stage's tasks, and
          // the partition the repartition writer sends its records to.
          const subtask = subtaskForKeyGroup(
            keyGroupOf(k, maxParallelism),
            maxParallelism,
            partitions,
          );
          const [written] = recordMessages(
            stage.topic,
            [{ key: k, value: null, timestamp: 0 }],
            maxParallelism,
            partitions,
          );
          expect(written!.partition).toBe(subtask);
          const owner = names[subtask % memberCount]!;
          if (owner === 'a') expect(route).toEqual({ kind: 'local' });
          else expect(route.kind === 'forward' && route.owner.member).toBe(owner);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("answers 503 (unowned) while the key's task has no owner, and never routes an operator outside a stage by key", () => {
    const stage: KeyedStage = { topic: 'r', partitions: 2 };
    const g = group([member('a', ['r:0'], 'http://a')], ['r:1'], new Map([['sums', stage]]));
    const keys = ['k1', 'k2', 'k3', 'k4', 'k5', 'k6'];
    const routes = keys.map((k) => routeStateQuery(g, 'sums', k, false));
    for (const [i, k] of keys.entries()) {
      const task = taskOfKey(k, stage, DEFAULT_MAX_PARALLELISM);
      expect(routes[i]).toEqual(task === 'r:0' ? { kind: 'local' } : { kind: 'unowned', task });
    }
    expect(routes.some((r) => r.kind === 'unowned')).toBe(true);
    expect(routeStateQuery(g, 'other', 'k1', false)).toEqual({ kind: 'local' });
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
