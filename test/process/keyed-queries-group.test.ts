/**
 * Interactive queries on keyed state across the members of a process group:
 * three real `weir run --group` processes sum values per key in a queryable
 * reduce behind a repartition topic, and again in the open window of a
 * queryable count window behind another. Every member answers every key with
 * the batch sum, from the member holding the key's task; after one member
 * leaves (SIGTERM, its tasks handed over), the survivors still do, and no
 * answer on the way is a wrong value or a missing key.
 */
import { describe, expect, it } from 'vitest';
import type { Sum } from '../cli/fixtures/group-queryable-reduce.js';
import { createTopic, produce, uniqueTopic, waitFor } from '../kafka/helpers.js';
import { membersOfFile, startGroupMember, type UiMember } from './group-member.js';

const FIXTURE = 'test/cli/fixtures/group-queryable-reduce.ts';
const PARTITIONS = 3;
const FIRST_PORT = 61_431;

const running = membersOfFile();

type Member = UiMember;

/** String keys and number keys (queried with `?keyType=number`). */
const KEYS: readonly (string | number)[] = [
  ...Array.from({ length: 12 }, (_, i) => `customer-${i}`),
  ...Array.from({ length: 6 }, (_, i) => i * 7),
];

/** The input: deterministic values per key, spread over the partitions. */
function records(count: number): Sum[] {
  return Array.from({ length: count }, (_, i) => ({ k: KEYS[(i * 5) % KEYS.length]!, n: i % 13 }));
}

/** The batch computation: the sum of `n` per key. */
function batchSums(input: readonly Sum[]): Map<string | number, number> {
  const sums = new Map<string | number, number>();
  for (const r of input) sums.set(r.k, (sums.get(r.k) ?? 0) + r.n);
  return sums;
}

/** The two queryable operators: a reduce, and a count window whose one window holds the same sum. */
const UIDS = ['sums', 'window-sums'] as const;

interface Answer {
  readonly status: number;
  readonly retryAfter: string | null;
  /** A window's answer is read as its one window's value (see {@link ask}). */
  readonly body: { value?: Sum; member?: string; error?: string };
}

/**
 * Asks `m` for `key` of the reduce. The job's id changes with each run a
 * hand-over starts, so it is looked up first; undefined while `m` lists no
 * job or the id it listed ended before the query reached it.
 */
async function ask(
  m: Member,
  key: string | number,
  uid: (typeof UIDS)[number],
): Promise<Answer | undefined> {
  const jobs = (await (await fetch(`${m.url}/jobs`)).json()) as { jobs: { id: string }[] };
  const id = jobs.jobs.at(-1)?.id;
  if (id === undefined) return undefined;
  const type = typeof key === 'number' ? '?keyType=number' : '';
  const r = await fetch(
    `${m.url}/jobs/${id}/state/${uid}/${encodeURIComponent(String(key))}${type}`,
  );
  const body = (await r.json()) as Omit<Answer['body'], 'value'> & { value?: unknown };
  if (r.status === 404 && body.error?.startsWith('no job with id')) return undefined;
  if (uid === 'window-sums' && r.status === 200) {
    // The global window of a count window that never fires: one window, unbounded.
    const windows = body.value as { start: null; end: null; value: Sum; fired: boolean }[];
    const one = windows.length === 1 && windows[0]!.start === null && !windows[0]!.fired;
    return {
      status: r.status,
      retryAfter: null,
      body: { ...body, value: one ? windows[0]!.value : { k: 'not one open window', n: -1 } },
    };
  }
  return {
    status: r.status,
    retryAfter: r.headers.get('retry-after'),
    body: body as Answer['body'],
  };
}

/**
 * Waits until every member answers every key with its batch sum. Every
 * answer on the way must be that sum (200) or a retry later (503 with
 * Retry-After): never another value, nor "no state" for a key that has it.
 */
async function allAnswer(
  members: readonly Member[],
  sums: ReadonlyMap<string | number, number>,
  diagnose: () => string,
): Promise<{ answeredBy: Map<string, Set<string>>; odd: string[] }> {
  const answeredBy = new Map<string, Set<string>>();
  const odd: string[] = [];
  await waitFor(
    'every member to answer every key with its batch sum',
    async () => {
      answeredBy.clear();
      for (const m of members) {
        for (const [key, sum] of sums)
          for (const uid of UIDS) {
            const a = await ask(m, key, uid);
            if (a === undefined) return false;
            if (a.status === 503 && a.retryAfter !== null) return false;
            if (a.status !== 200 || a.body.value?.n !== sum || a.body.value.k !== key) {
              // Before the input is all read a lower sum is current, not wrong: the
              // caller judges these once the input is done.
              odd.push(
                `${m.name} ${uid} ${JSON.stringify(key)}: ${a.status} ${JSON.stringify(a.body)}`,
              );
              return false;
            }
            const by = answeredBy.get(`${uid}/${String(key)}`) ?? new Set<string>();
            by.add(a.body.member ?? '?');
            answeredBy.set(`${uid}/${String(key)}`, by);
          }
      }
      return true;
    },
    150_000,
    () => `${odd.slice(-3).join(' | ')} || ${diagnose()}`,
  );
  return { answeredBy, odd };
}

/** The member's id in the group's metadata (what an answer names). */
async function memberId(m: Member): Promise<string> {
  const jobs = (await (await fetch(`${m.url}/jobs`)).json()) as { jobs: { id: string }[] };
  const view = (await (await fetch(`${m.url}/jobs/${jobs.jobs.at(-1)!.id}/group`)).json()) as {
    member: string;
  };
  return view.member;
}

describe('interactive queries on keyed state in a process group', () => {
  it('every member answers every key with the batch sum, before and after a member hands its tasks over', async () => {
    const input = uniqueTopic('kq-in');
    const output = uniqueTopic('kq-out');
    const app = uniqueTopic('kq-app');
    await createTopic(input, PARTITIONS);
    await createTopic(output, 1);
    const members: Member[] = [];
    const diagnose = () => members.map((m) => m.cli.output('stderr').slice(-2_000)).join(' | ');
    for (const [i, name] of ['a', 'b', 'c'].entries()) {
      const cli = startGroupMember(
        FIXTURE,
        app,
        name,
        [input, output],
        ['--ui-port', String(FIRST_PORT + i)],
      );
      running.push(cli);
      const [, url] = await cli.waitFor('stderr', /web UI at (http:\/\/[^\s/]+)\//);
      members.push({ name, cli, url: url! });
    }
    const data = records(900);
    await produce(
      input,
      data.map((r, i) => ({ value: JSON.stringify(r), partition: i % PARTITIONS })),
    );
    const sums = batchSums(data);

    const before = await allAnswer(members, sums, diagnose);
    // Each key was answered by one member, the holder of its task, whichever member was asked.
    for (const [key, by] of before.answeredBy) expect(by.size, key).toBe(1);
    const ids = await Promise.all(members.map(memberId));
    const holders = new Set([...before.answeredBy.values()].flatMap((s) => [...s]));
    expect([...holders].every((h) => ids.includes(h))).toBe(true);
    expect(holders.size).toBeGreaterThan(1);

    // c leaves with SIGTERM: its tasks, with their sums, go to a and b. While
    // they move, every member's answers are watched: the input was all read,
    // so each must be the batch sum (200) or a retry later (503 with
    // Retry-After), never another value nor "no state".
    const leaver = members.pop()!;
    leaver.cli.child.kill('SIGTERM');
    const during: string[] = [];
    let watched = 0;
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        for (const m of [...members, leaver])
          for (const [key, sum] of sums) {
            const uid = UIDS[watched % UIDS.length]!;
            const a = await ask(m, key, uid).catch(() => undefined);
            if (a === undefined) continue;
            watched++;
            const ok = a.status === 200 && a.body.value?.n === sum;
            const retry = a.status === 503 && a.retryAfter !== null;
            if (!ok && !retry)
              during.push(
                `${m.name} ${uid} ${JSON.stringify(key)}: ${a.status} ${JSON.stringify(a.body)}`,
              );
          }
      }
    })();
    expect((await leaver.cli.done).code).toBe(0);
    const after = await allAnswer(members, sums, diagnose);
    watching = false;
    await watcher;
    expect(during).toEqual([]);
    expect(watched).toBeGreaterThan(0);
    expect(after.odd).toEqual([]);
    const survivors = ids.slice(0, 2);
    for (const [key, by] of after.answeredBy) {
      expect(by.size, key).toBe(1);
      expect(survivors).toContain([...by][0]);
    }
    for (const m of members) m.cli.child.kill('SIGTERM');
    await Promise.all(members.map((m) => m.cli.done));
  }, 300_000);
});
