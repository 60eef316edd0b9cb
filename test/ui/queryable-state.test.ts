/**
 * Interactive queries on one process: `GET /jobs/:id/state/:uid/:key` over
 * a running keyed reduce and a keyed process function's queryable value
 * states, with the heap and disk backends, on this thread and on worker
 * threads. The oracle is a batch computation over the input:
 * once the input is processed every key answers its batch total; while it
 * is being processed every answer is a whole prefix of the key's records
 * (never a torn value).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Event, events, type Total } from './fixtures/queryable-totals.js';
import { QUERY_CASES, queriedJobs } from './queried-jobs.js';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'queryable-totals.ts');
const COUNT = 6000;

/** The batch answer: each key's count and sum, and every prefix sum. */
function oracle(input: readonly Event[]) {
  const totals = new Map<string, Total>();
  const prefixes = new Map<string, number[]>();
  for (const e of input) {
    const t = totals.get(e.key) ?? { n: 0, sum: 0 };
    totals.set(e.key, { n: t.n + 1, sum: t.sum + e.amount });
    const p = prefixes.get(e.key) ?? [0];
    p.push(p[p.length - 1]! + e.amount);
    prefixes.set(e.key, p);
  }
  return { totals, prefixes };
}

interface StateAnswer {
  readonly uid: string;
  readonly key: string;
  readonly value: unknown;
  readonly subtask: number;
}

/** The two operators that answer, and how each one's value reads as a count and sum. */
const OPERATORS = [
  {
    uid: 'totals',
    read: (value: unknown): Total => {
      const v = value as Total & { key: string };
      return { n: v.n, sum: v.sum };
    },
    whole: (key: string, total: Total) => ({ key, ...total }),
  },
  {
    // Only the states declared queryable, by name: not `last`.
    uid: 'process-totals',
    read: (value: unknown): Total => {
      const v = value as { count: number; sum: number };
      return { n: v.count, sum: v.sum };
    },
    whole: (_: string, total: Total) => ({ count: total.n, sum: total.sum }),
  },
] as const;

describe.each(QUERY_CASES)('queryable keyed state ($name)', (c) => {
  const jobs = queriedJobs(c);
  const { totals, prefixes } = oracle(events(COUNT));

  it('answers every key with its batch total, and only whole prefixes on the way', async () => {
    const { client, get: ask } = await jobs.start(FIXTURE, [String(COUNT)]);
    const get = (key: string, query = '', uid = 'totals') => ask(uid, key, query);
    try {
      const pending = new Set(
        OPERATORS.flatMap((operator) => [...totals.keys()].map((key) => ({ operator, key }))),
      );
      const owners = new Map<string, number>();
      const deadline = Date.now() + 120_000;
      while (pending.size > 0) {
        if (Date.now() > deadline)
          throw new Error(
            `keys never reached their totals: ${[...pending].map((p) => `${p.operator.uid}/${p.key}`).join(', ')}`,
          );
        for (const item of [...pending]) {
          const { operator, key } = item;
          const answer = await get(key, '', operator.uid);
          if (answer.status === 503 || answer.status === 404) continue; // not started, or no record of the key yet
          expect(answer.status, answer.body).toBe(200);
          const body = JSON.parse(answer.body) as StateAnswer;
          expect(body.uid).toBe(operator.uid);
          expect(body.key).toBe(key);
          // A whole prefix of the key's records, never part of a batch's update.
          const { n, sum } = operator.read(body.value);
          expect(sum).toBe(prefixes.get(key)![n]);
          // Both operators are keyed alike: a key lives in one subtask.
          const owner = owners.get(key);
          if (owner !== undefined) expect(body.subtask).toBe(owner);
          owners.set(key, body.subtask);
          const total = totals.get(key)!;
          if (n === total.n) {
            expect(body.value).toEqual(operator.whole(key, total));
            pending.delete(item);
          }
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      // Both subtasks own keys: the answers came from each key's own subtask.
      expect(new Set(owners.values())).toEqual(new Set([0, 1]));

      const unknownKey = await get('no-such-key');
      expect(unknownKey.status).toBe(404);
      expect(JSON.parse(unknownKey.body).error).toContain('"no-such-key"');
      const numberKey = await get('7', '?keyType=number');
      expect(numberKey.status).toBe(404);
      const badKey = await get('seven', '?keyType=number');
      expect(badKey.status).toBe(400);
      expect(JSON.parse(badKey.body).error).toContain("key 'seven' is not a finite number");
      const badType = await get('k1', '?keyType=date');
      expect(badType.status).toBe(400);
      const badUid = await get('k1', '', 'nope');
      expect(badUid.status).toBe(400);
      expect(JSON.parse(badUid.body).error).toContain("no operator with uid 'nope'");
    } finally {
      await client.cancel();
    }
  }, 180_000);
});
