import { expect } from 'vitest';
import { repartitionTopicName } from '../../src/connectors/kafka/group/repartition-topic.js';
import type { Out } from '../cli/fixtures/group-keyed-windows.js';
import {
  createTopic,
  json,
  produce,
  readAll,
  readRecords,
  uniqueTopic,
  waitFor,
} from '../kafka/helpers.js';
import {
  heldTasks,
  type MetricsMember,
  metricsMembers,
  stderrOf,
  stopAll,
} from './group-member.js';

/**
 * The input and batch computation of the keyed window tests of process
 * groups (the job: test/cli/fixtures/group-keyed-windows.ts).
 */

/** Input partitions; the last one never gets a record (an idle task). */
export const PARTITIONS = 4;
export const KEYS = Array.from({ length: 9 }, (_, i) => `k${i}`);
export const WINDOW = 10_000;
const LATENESS = 15_000;
const OUT_OF_ORDERNESS = 100_000;
/** Ticks that take the watermark past every on-time window (multiples of 3: see `ticks`). */
export const TICK = 201_000;
export const END = 402_000;

export interface Ev {
  readonly k: string;
  readonly t: number;
  readonly v: number;
}

/** A deterministic stream of numbers in [0, 1). */
export function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Every key's records go to one partition (0..2), so their order holds end to end; ticks go to all three. */
export const partitionOf = (e: Ev): number => (e.k === 'tick' ? e.t % 3 : Number(e.k.slice(1)) % 3);

/**
 * The input in phases: a tick in each partition, so every producing task
 * has spoken before the data; on-time records up to 90 s (each key has one
 * at 85 s); ticks at 200 s that take the watermark (100 s behind) to 100 s;
 * late records (those in [80 s, 90 s) update their window, earlier ones are
 * too late for it); ticks at 400 s that fire the last window.
 */
export function input(seed: number) {
  const next = random(seed);
  const onTime: Ev[] = [];
  for (const k of KEYS) {
    onTime.push({ k, t: 85_000, v: 1 });
    for (let i = 0; i < 40; i++)
      onTime.push({ k, t: Math.floor(next() * 90_000), v: Math.floor(next() * 100) });
  }
  const late: Ev[] = KEYS.flatMap((k) =>
    Array.from({ length: 4 }, () => ({
      k,
      t: Math.floor(next() * 90_000),
      v: Math.floor(next() * 100),
    })),
  );
  // t: a multiple of 3, so tick t + p goes to partition p.
  const ticks = (t: number): Ev[] => [0, 1, 2].map((p) => ({ k: 'tick', t: t + p, v: 0 }));
  return { onTime, late, ticks };
}

/** The batch computation: what the job must write, as a sorted list of lines. */
export function oracle(
  onTime: readonly Ev[],
  late: readonly Ev[],
  ticks: (t: number) => Ev[],
): string[] {
  return oracleOutputs(onTime, late, ticks).map(line).sort();
}

/** The batch computation as the job writes it, in order (first results, then updates). */
export function oracleOutputs(
  onTime: readonly Ev[],
  late: readonly Ev[],
  ticks: (t: number) => Ev[],
): Out[] {
  const out: Out[] = [];
  const acc = new Map<string, { k: string; start: number; n: number; sum: number }>();
  const add = (e: Ev) => {
    const start = Math.floor(e.t / WINDOW) * WINDOW;
    const id = `${e.k}@${start}`;
    const a = acc.get(id) ?? { k: e.k, start, n: 0, sum: 0 };
    a.n++;
    a.sum += e.v;
    acc.set(id, a);
    return a;
  };
  // Everything before the ticks at TICK fires when they pass.
  for (const e of [...ticks(0), ...onTime]) add(e);
  for (const a of acc.values()) out.push({ kind: 'window', ...a, update: false });
  const watermark = TICK + 2 - OUT_OF_ORDERNESS - 1;
  for (const e of late) {
    const start = Math.floor(e.t / WINDOW) * WINDOW;
    if (start + WINDOW - 1 + LATENESS <= watermark) out.push({ kind: 'late', ...e });
    else out.push({ kind: 'window', ...add({ ...e }), update: true });
  }
  // The ticks' own window fires when the ticks at END pass.
  out.push({ kind: 'window', k: 'tick', start: 200_000, n: 3, sum: 0, update: false });
  return out;
}

/**
 * The final result of an output: per (key, window) the last value written
 * (updates replace earlier results), and each record too late for its
 * window once; sorted lines.
 */
export function lastWins(outs: readonly Out[]): string[] {
  const windows = new Map<string, string>();
  const late = new Set<string>();
  for (const o of outs) {
    if (o.kind === 'late') late.add(line(o));
    else windows.set(`${o.k}@${o.start}`, `window ${o.k} ${o.start} n=${o.n} sum=${o.sum}`);
  }
  return [...windows.values(), ...late].sort();
}

/** Per (key, window) of `events`: how many, and the largest value. */
export function countAndMax(events: readonly Ev[]): Map<string, { n: number; max: number }> {
  const out = new Map<string, { n: number; max: number }>();
  for (const e of events) {
    const id = `${e.k}@${Math.floor(e.t / WINDOW) * WINDOW}`;
    const a = out.get(id) ?? { n: 0, max: Number.NEGATIVE_INFINITY };
    a.n++;
    a.max = Math.max(a.max, e.v);
    out.set(id, a);
  }
  return out;
}

/** `events` in `parts` consecutive slices (each key's order holds). */
export function chunks<T>(events: readonly T[], parts: number): T[][] {
  const size = Math.ceil(events.length / parts);
  return Array.from({ length: parts }, (_, i) => events.slice(i * size, (i + 1) * size));
}

export function line(o: Out): string {
  return o.kind === 'window'
    ? `window ${o.k} ${o.start} n=${o.n} sum=${o.sum}${o.update ? ' update' : ''}`
    : `late ${o.k} ${o.t} v=${o.v}`;
}

/**
 * Waits until the members hold `total` tasks between them, each some (each
 * of a member's `readers` reports a line of `weir_kafka_source_partitions`).
 */
export async function settled(
  members: readonly { readonly port: number }[],
  total: number,
  diagnose: () => string,
  readers = 2,
  timeoutMs = 180_000,
): Promise<void> {
  let held: number[][] = [];
  await waitFor(
    'the group to settle',
    async () => {
      held = await Promise.all(members.map((m) => heldTasks(m.port)));
      const sums = held.map((h) => h.reduce((a, b) => a + b, 0));
      return (
        sums.reduce((a, b) => a + b, 0) === total &&
        held.every((h) => h.length === readers) &&
        sums.every((n) => n > 0)
      );
    },
    timeoutMs,
    // First, as CI cuts long messages short: what each member holds, per reader.
    () => `tasks held per member and reader: ${JSON.stringify(held)}; ${diagnose()}`,
  );
}

/** The topics of one run of the keyed window job, and how the tests use them. */
export interface KeyedWindowsTopics {
  readonly inTopic: string;
  readonly outTopic: string;
  readonly app: string;
  /** Writes events to the input, each key to its partition. */
  send(events: readonly Ev[]): Promise<void>;
  /** Records (not watermark marks) written into the repartition topic so far. */
  exchanged(): Promise<number>;
  outputs(): Promise<Out[]>;
}

export async function keyedWindowsTopics(prefix: string): Promise<KeyedWindowsTopics> {
  const inTopic = uniqueTopic(`${prefix}-in`);
  const outTopic = uniqueTopic(`${prefix}-out`);
  const app = uniqueTopic(`${prefix}-app`);
  await createTopic(inTopic, PARTITIONS);
  await createTopic(outTopic, 1);
  const repartition = repartitionTopicName(app, 'counts');
  return {
    inTopic,
    outTopic,
    app,
    send: async (events) => {
      await produce(
        inTopic,
        events.map((e) => ({ value: JSON.stringify(e), partition: partitionOf(e) })),
      );
    },
    exchanged: async () =>
      (await readRecords(repartition, { awaitMarkers: false })).filter(
        (r) => r.headers.length === 0,
      ).length,
    outputs: () => readAll(outTopic, json<Out>()),
  };
}

/**
 * After the on-time records: the ticks that fire every on-time window, then
 * (once they have fired, so the late records are judged by that watermark)
 * the late records and the ticks that fire the last window. Returns the
 * output once it has as many lines as the batch computation.
 */
export async function fireAndFinish(
  t: KeyedWindowsTopics,
  data: ReturnType<typeof input>,
  diagnose: () => string,
): Promise<Out[]> {
  const { onTime, late, ticks } = data;
  await t.send(ticks(TICK));
  const windows = new Set(
    [...ticks(0), ...onTime].map((e) => `${e.k}@${Math.floor(e.t / WINDOW) * WINDOW}`),
  ).size;
  await waitFor(
    'every on-time window to fire',
    async () => (await t.outputs()).length >= windows,
    60_000,
    diagnose,
  );
  await t.send(late);
  await t.send(ticks(END));
  const expected = oracleOutputs(onTime, late, ticks).length;
  let got: Out[] = [];
  await waitFor(
    'every late record and the last window',
    async () => {
      got = await t.outputs();
      return got.length >= expected;
    },
    60_000,
    () => `${got.length} of ${expected}; ${diagnose()}`,
  );
  return got;
}

/**
 * The end of an exactly-once test: every on-time record (and the first
 * ticks) crosses the repartition topic exactly once, committed (what a
 * killed or fenced member wrote after its last seal was aborted), and the
 * read_committed output equals the batch computation exactly.
 */
export async function expectExactlyOnce(
  t: KeyedWindowsTopics,
  data: ReturnType<typeof input>,
  diagnose: () => string,
): Promise<void> {
  const { onTime, late, ticks } = data;
  const crossed = onTime.length + 3;
  await waitFor(
    'every record to cross the repartition topic',
    async () => (await t.exchanged()) >= crossed,
    90_000,
    diagnose,
  );
  expect(await t.exchanged()).toBe(crossed);
  const got = await fireAndFinish(t, data, diagnose);
  expect(got.map(line).sort()).toEqual(oracle(onTime, late, ticks));
}

const FIXTURE = 'test/cli/fixtures/group-keyed-windows.ts';

/** A member of the keyed window job: its process and the port of its /metrics. */
export type KeyedWindowsMember = MetricsMember;

/**
 * Starts members of the keyed window job on `t` (with `jobArgs` after the
 * topics, and `weir run` `flags`), with /metrics on ports from `firstPort` on (one range per test
 * file), and kills any still running after the file's tests.
 */
export function keyedWindowsMembers(
  firstPort: number,
  jobArgs: readonly string[] = [],
  flags: readonly string[] = [],
): (t: KeyedWindowsTopics, name: string) => KeyedWindowsMember {
  return metricsMembers(
    FIXTURE,
    (t: KeyedWindowsTopics) => [t.inTopic, t.outTopic, ...jobArgs],
    firstPort,
    flags,
  );
}

export { stderrOf, stopAll };

/**
 * After a member died: waits until every window of `events` has fired, then
 * checks that none lost input (counts at least the batch's: a record may be
 * read twice across the kill) and that each maximum, which a duplicate
 * cannot change, is exact.
 */
export async function expectNoWindowLost(
  t: KeyedWindowsTopics,
  events: readonly Ev[],
  diagnose: () => string,
): Promise<void> {
  const batch = countAndMax(events);
  let final = new Map<string, { n: number; max: number | undefined }>();
  await waitFor(
    'every on-time window to fire',
    async () => {
      final = new Map();
      for (const o of await t.outputs())
        if (o.kind === 'window') final.set(`${o.k}@${o.start}`, { n: o.n, max: o.max });
      return [...batch.keys()].every((w) => final.has(w));
    },
    90_000,
    () => `${final.size} of ${batch.size} windows; ${diagnose()}`,
  );
  for (const [w, { n, max }] of batch) {
    expect(final.get(w)!.n, `records of window ${w}`).toBeGreaterThanOrEqual(n);
    expect(final.get(w)!.max, `max of window ${w}`).toBe(max);
  }
  expect(final.size).toBe(batch.size);
}

/** Writes `events` to the input and waits until every one has crossed the repartition topic. */
export async function sendAndExchange(
  t: KeyedWindowsTopics,
  events: readonly Ev[],
  diagnose: () => string,
): Promise<void> {
  await t.send(events);
  await waitFor(
    'the records to cross the repartition topic',
    async () => (await t.exchanged()) >= events.length,
    60_000,
    diagnose,
  );
}
