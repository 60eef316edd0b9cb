import { repartitionTopicName } from '../../src/connectors/kafka/group/repartition-topic.js';
import {
  INTERVAL_MS,
  type JoinEv,
  type JoinOut,
  OUT_OF_ORDERNESS_MS,
  WINDOW_MS,
} from '../cli/fixtures/group-joins.js';
import {
  createTopic,
  json,
  produce,
  readAll,
  readRecords,
  uniqueTopic,
  waitFor,
} from '../kafka/helpers.js';
import { type MetricsMember, metricsMembers, stderrOf } from './group-member.js';
import { random, settled } from './keyed-windows-input.js';

/**
 * The input and batch computation of the join tests of process groups (the
 * job: test/cli/fixtures/group-joins.ts): two keyed event-time inputs, the
 * right one with a partition that never gets a record (an idle task).
 */

export const LEFT_PARTITIONS = 3;
/** Partition 3 of the right input stays empty. */
export const RIGHT_PARTITIONS = 4;
/** The joins of the job, by uid: each has a repartition topic of four tasks. */
export const JOINS = ['inner', 'outer', 'interval', 'window'] as const;
const STAGE_TASKS = 4;
/** Every task of the job: both inputs' partitions and every join's repartition partitions. */
export const TASKS = LEFT_PARTITIONS + RIGHT_PARTITIONS + JOINS.length * STAGE_TASKS;
const KEYS = Array.from({ length: 9 }, (_, i) => `k${i}`);
/** Ticks that take the watermark (100 s behind) past every window of the data (all before 90 s). */
export const FINAL_TICK = 400_000;

/** Each key's records go to one partition (0..2), so their order holds end to end; ticks to all three. */
const partitionOf = (e: JoinEv): number => (e.k === 'tick' ? e.t % 3 : Number(e.k.slice(1)) % 3);

/**
 * The input in phases: a tick in each partition of both inputs, so every
 * producing task has spoken before the data; records of both sides up to
 * 90 s (the watermark stays below 0 until the final ticks, so no record is
 * ever late); ticks at 400 s that fire every window of the data.
 */
export function joinInput(seed: number) {
  const next = random(seed);
  const side = (prefix: 'L' | 'R', perKey: number): JoinEv[] =>
    KEYS.flatMap((k, key) =>
      Array.from({ length: perKey }, (_, i) => ({
        id: `${prefix}${key}-${i}`,
        k,
        t: Math.floor(next() * 90_000),
      })),
    );
  // One key of each side has no record at all: the outer join pads it, the inner joins drop it.
  const left = side('L', 7).filter((e) => e.k !== 'k8');
  const right = side('R', 7).filter((e) => e.k !== 'k7');
  const ticks = (prefix: 'L' | 'R', t: number): JoinEv[] =>
    [0, 1, 2].map((p) => ({ id: `${prefix}tick-${t + p}`, k: 'tick', t: t + p }));
  return {
    left,
    right,
    startTicks: { left: ticks('L', 0), right: ticks('R', 0) },
    finalTicks: { left: ticks('L', FINAL_TICK), right: ticks('R', FINAL_TICK) },
  };
}

export type JoinInput = ReturnType<typeof joinInput>;

/** What each join holds at the end: its pairs as a multiset (`l r` lines, counted), by join. */
export type JoinResults = Record<JoinOut['j'], Map<string, number>>;

/** The batch computation: every join's final result over all of the input. */
export function joinOracle(input: JoinInput): JoinResults {
  const left = [...input.startTicks.left, ...input.left, ...input.finalTicks.left];
  const right = [...input.startTicks.right, ...input.right, ...input.finalTicks.right];
  const results = emptyResults();
  const add = (j: JoinOut['j'], l: string, r: string | null) =>
    results[j].set(`${l} ${r}`, (results[j].get(`${l} ${r}`) ?? 0) + 1);
  // The final ticks take the watermark to this; windows up to it fire.
  const watermark = FINAL_TICK - OUT_OF_ORDERNESS_MS - 1;
  for (const l of left) {
    const matches = right.filter((r) => r.k === l.k);
    for (const r of matches) {
      add('inner', l.id, r.id);
      add('outer', l.id, r.id);
      if (l.t - INTERVAL_MS <= r.t && r.t <= l.t + INTERVAL_MS) add('interval', l.id, r.id);
      const start = Math.floor(l.t / WINDOW_MS) * WINDOW_MS;
      if (Math.floor(r.t / WINDOW_MS) * WINDOW_MS === start && start + WINDOW_MS - 1 <= watermark)
        add('window', l.id, r.id);
    }
    if (matches.length === 0) add('outer', l.id, null);
  }
  return results;
}

/** What the job wrote, applied: `+I` adds a pair, `-D` takes it away (pairs at zero are dropped). */
export function applied(outs: readonly JoinOut[]): JoinResults {
  const results = emptyResults();
  for (const o of outs) {
    const m = results[o.j];
    const pair = `${o.l} ${o.r}`;
    const n = (m.get(pair) ?? 0) + (o.op === '+I' ? 1 : -1);
    if (n === 0) m.delete(pair);
    else m.set(pair, n);
  }
  return results;
}

/** Results as sorted `join l r xN` lines, for equality with a readable difference. */
export function lines(results: JoinResults): string[] {
  return Object.entries(results)
    .flatMap(([j, m]) => [...m].map(([pair, n]) => `${j} ${pair} x${n}`))
    .sort();
}

function emptyResults(): JoinResults {
  return { inner: new Map(), outer: new Map(), interval: new Map(), window: new Map() };
}

/** The topics of one run of the join job, and how the tests use them. */
export interface JoinTopics {
  readonly leftTopic: string;
  readonly rightTopic: string;
  readonly outTopic: string;
  readonly app: string;
  /** Writes events to both inputs, each key to its partition. */
  send(left: readonly JoinEv[], right: readonly JoinEv[]): Promise<void>;
  /** The fewest records (not watermark marks) any join's repartition topic has so far. */
  exchanged(): Promise<number>;
  outputs(): Promise<JoinOut[]>;
}

export async function joinTopics(prefix: string): Promise<JoinTopics> {
  const leftTopic = uniqueTopic(`${prefix}-left`);
  const rightTopic = uniqueTopic(`${prefix}-right`);
  const outTopic = uniqueTopic(`${prefix}-out`);
  const app = uniqueTopic(`${prefix}-app`);
  await createTopic(leftTopic, LEFT_PARTITIONS);
  await createTopic(rightTopic, RIGHT_PARTITIONS);
  await createTopic(outTopic, 1);
  const message = (e: JoinEv) => ({ value: JSON.stringify(e), partition: partitionOf(e) });
  return {
    leftTopic,
    rightTopic,
    outTopic,
    app,
    send: async (left, right) => {
      await Promise.all([
        produce(leftTopic, left.map(message)),
        produce(rightTopic, right.map(message)),
      ]);
    },
    exchanged: async () => {
      const counts = await Promise.all(
        JOINS.map(async (uid) => {
          try {
            const records = await readRecords(repartitionTopicName(app, uid), {
              awaitMarkers: false,
            });
            return records.filter((r) => r.headers.length === 0).length;
          } catch {
            return 0;
          }
        }),
      );
      return Math.min(...counts);
    },
    outputs: () => readAll(outTopic, json<JoinOut>()),
  };
}

/** A member of the join job: its process and the port of its /metrics. */
export type JoinMember = MetricsMember;

/**
 * Starts members of the join job, with /metrics on ports from `firstPort`
 * on (one range per test file), and kills any still running after the file.
 */
export function joinMembers(firstPort: number): (t: JoinTopics, name: string) => JoinMember {
  // A checkpoint a second: each ends a transaction per transactional writer
  // (eight repartition writers and the output), see docs/deployment.md "Cost".
  return metricsMembers(
    'test/cli/fixtures/group-joins.ts',
    (t: JoinTopics) => [t.leftTopic, t.rightTopic, t.outTopic],
    firstPort,
    ['--checkpoint-interval', '1'],
  );
}

export { stderrOf as joinStderr };

/** Waits until the members hold every task between them, each some (each has its six readers). */
export function joinsSettled(
  members: readonly JoinMember[],
  diagnose: () => string,
): Promise<void> {
  return settled(members, TASKS, diagnose, 2 + JOINS.length);
}

/**
 * Sends the start ticks and waits until they have crossed every join's
 * repartition topic: every producing task has spoken before the data.
 */
export async function startTicks(
  t: JoinTopics,
  input: JoinInput,
  diagnose: () => string,
): Promise<void> {
  await t.send(input.startTicks.left, input.startTicks.right);
  await waitFor(
    'the start ticks to cross every repartition topic',
    async () => (await t.exchanged()) >= 6,
    120_000,
    diagnose,
  );
}

/**
 * Once every record has crossed every repartition topic: the final ticks,
 * then the output once `done` says it is complete (or the wait ends).
 */
export async function finish(
  t: JoinTopics,
  input: JoinInput,
  done: (got: JoinResults) => boolean,
  diagnose: () => string,
): Promise<JoinResults> {
  const records = 6 + input.left.length + input.right.length;
  await waitFor(
    'every record to cross every repartition topic',
    async () => (await t.exchanged()) >= records,
    120_000,
    diagnose,
  );
  await t.send(input.finalTicks.left, input.finalTicks.right);
  let got = applied([]);
  try {
    await waitFor(
      'the joins to write their results',
      async () => {
        got = applied(await t.outputs());
        return done(got);
      },
      120_000,
      diagnose,
    );
  } catch {
    // The assertion that follows shows what differs.
  }
  return got;
}
