import { Producer } from '@platformatic/kafka';
import { describe, expect, it } from 'vitest';
import {
  KafkaFormats,
  KafkaSource,
  type KafkaSourceOptions,
} from '../../src/connectors/kafka/index.js';
import type { ReplayRange } from '../../src/core/replay.js';
import type { Json } from '../../src/core/snapshot.js';
import {
  CollectSink,
  type ProcessFunction,
  type Source,
  StreamEnvironment,
  WatermarkStrategy,
  WeirError,
} from '../../src/index.js';
import { readerContext } from '../connectors/files/helpers.js';
import { BROKERS, createTopic, produce, uniqueTopic } from './helpers.js';

/** An event: id, event time. */
interface Ev {
  readonly id: number;
  readonly t: number;
}

const BOUND = 5;
const LOG_T0 = 1_000_000;
const LOG_STEP = 10_000;

/** Per-partition watermarks on `Ev.t`, bounded out-of-orderness. */
const strategy = () =>
  WatermarkStrategy.forBoundedOutOfOrderness<Ev>(BOUND).withTimestampAssigner((e) => e.t);

function source(topic: string, extra: Partial<KafkaSourceOptions<Ev>> = {}): KafkaSource<Ev> {
  return new KafkaSource<Ev>({
    brokers: BROKERS,
    topics: [topic],
    format: KafkaFormats.json<Ev>(),
    watermarks: strategy(),
    ...extra,
  } as KafkaSourceOptions<Ev>);
}

/**
 * Partition p holds N records: id p*100+i, event time out of order within
 * the partition and interleaving with the other partitions, log timestamp
 * LOG_T0 + i * LOG_STEP (so ranges by time select offsets exactly).
 */
function partitionData(partitions: number, n: number): Ev[][] {
  const out: Ev[][] = [];
  for (let p = 0; p < partitions; p++) {
    const evs: Ev[] = [];
    for (let i = 0; i < n; i++) {
      // Zig-zag: +7, -3, ... with ties across partitions at some times.
      const t = 100 + i * 4 + (i % 2 === 0 ? 3 : -3) + (p % 2) * 2;
      evs.push({ id: p * 100 + i, t });
    }
    out.push(evs);
  }
  return out;
}

async function fill(topic: string, data: Ev[][]): Promise<void> {
  await createTopic(topic, data.length);
  await produce(
    topic,
    data.flatMap((evs, partition) =>
      evs.map((e, i) => ({
        value: JSON.stringify(e),
        partition,
        timestamp: LOG_T0 + i * LOG_STEP,
      })),
    ),
  );
}

interface Poll {
  readonly ids: number[];
  readonly watermark: number;
}

/**
 * The oracle of the merge: from the records of each partition in the range,
 * repeatedly the head with the smallest event time (ties: lower partition),
 * batches of `batchSize`, and after each batch the minimum over partitions
 * with records left of (max event time seen - BOUND - 1), never decreasing.
 */
function expectedPolls(ranges: Ev[][], batchSize: number): Poll[] {
  const next = ranges.map(() => 0);
  const maxSeen = ranges.map(() => Number.NEGATIVE_INFINITY);
  const polls: Poll[] = [];
  let batch: number[] = [];
  let watermark = Number.NEGATIVE_INFINITY;
  const emit = () => {
    let min = Number.POSITIVE_INFINITY;
    ranges.forEach((evs, p) => {
      if (next[p]! >= evs.length) return;
      const w = maxSeen[p] === Number.NEGATIVE_INFINITY ? maxSeen[p]! : maxSeen[p]! - BOUND - 1;
      min = Math.min(min, w);
    });
    if (min !== Number.POSITIVE_INFINITY && min > watermark) watermark = min;
    polls.push({ ids: batch, watermark });
    batch = [];
  };
  for (;;) {
    let best = -1;
    ranges.forEach((evs, p) => {
      const e = evs[next[p]!];
      if (e === undefined) return;
      if (best < 0 || e.t < ranges[best]![next[best]!]!.t) best = p;
    });
    if (best < 0) break;
    const e = ranges[best]![next[best]!++]!;
    maxSeen[best] = Math.max(maxSeen[best]!, e.t);
    batch.push(e.id);
    if (batch.length === batchSize) emit();
  }
  if (batch.length > 0) emit();
  return polls;
}

/** Polls a replayed source's one reader to the end, recording each batch and the watermark after it. */
async function pollAll(replayed: Source<Ev>, batchSize: number): Promise<Poll[]> {
  expect(replayed.bounded).toBe(true);
  expect(replayed.parallelizable).toBe(false);
  const reader = replayed.createReader(readerContext(batchSize));
  await reader.open();
  const polls: Poll[] = [];
  const deadline = Date.now() + 60_000;
  try {
    for (;;) {
      const r = reader.poll();
      if (r === 'end') return polls;
      if (r === 'wait') {
        // Nothing changes while waiting: no watermark from the clock, never idle.
        expect(reader.isIdle?.()).toBe(false);
        const w = reader.currentWatermark?.();
        expect(w).toBe(polls.at(-1)?.watermark ?? Number.NEGATIVE_INFINITY);
        if (Date.now() > deadline) throw new Error('the replay did not end in time');
        await reader.available();
        continue;
      }
      expect(r.timestamps).toEqual(r.values.map((e) => e.t));
      polls.push({ ids: r.values.map((e) => e.id), watermark: reader.currentWatermark!() });
    }
  } finally {
    await reader.close();
  }
}

describe('KafkaSource.replay', () => {
  it('replays a range of offsets, merging partitions by event time into full batches', async () => {
    const topic = uniqueTopic('replay-offsets');
    const data = partitionData(3, 30);
    await fill(topic, data);
    const range: ReplayRange = {
      positions: { [`${topic}:0`]: [2, 27], [`${topic}:1`]: [0, 30], [`${topic}:2`]: [10, 12] },
    };
    const expected = expectedPolls([data[0]!.slice(2, 27), data[1]!, data[2]!.slice(10, 12)], 7);
    // Small buffers fetch in many small steps; large ones in few: the output is the same.
    const a = await pollAll(source(topic, { maxBufferedRecords: 2 }).replay(range), 7);
    const b = await pollAll(source(topic).replay(range), 7);
    expect(a).toEqual(expected);
    expect(b).toEqual(expected);
    expect(a.slice(0, -1).every((p) => p.ids.length === 7)).toBe(true);
  });

  it('replays a range of log timestamps, positions overriding it for the partitions they name', async () => {
    const topic = uniqueTopic('replay-time');
    const data = partitionData(3, 20);
    await fill(topic, data);
    // Offsets 3..11 by time ([from, to) between log timestamps); partition 1 by position.
    const range: ReplayRange = {
      from: LOG_T0 + 2 * LOG_STEP + LOG_STEP / 2,
      to: LOG_T0 + 11 * LOG_STEP + LOG_STEP / 2,
      positions: { [`${topic}:1`]: [15, 20] },
    };
    const polls = await pollAll(source(topic).replay(range), 4);
    expect(polls).toEqual(
      expectedPolls([data[0]!.slice(3, 12), data[1]!.slice(15, 20), data[2]!.slice(3, 12)], 4),
    );
    // Only `to`: from the earliest; only `from`: to the end.
    const head = await pollAll(
      source(topic).replay({ to: LOG_T0 + 2 * LOG_STEP - LOG_STEP / 2 }),
      4,
    );
    expect(head).toEqual(
      expectedPolls(
        data.map((evs) => evs.slice(0, 2)),
        4,
      ),
    );
    const tail = await pollAll(
      source(topic).replay({ from: LOG_T0 + 18 * LOG_STEP - LOG_STEP / 2 }),
      4,
    );
    expect(tail).toEqual(
      expectedPolls(
        data.map((evs) => evs.slice(18)),
        4,
      ),
    );
  });

  it('gives the same records and watermarks in a job, run after run', async () => {
    const topic = uniqueTopic('replay-job');
    const data = partitionData(4, 40);
    await fill(topic, data);
    // A group-mode source replays in assign mode, without its group.
    const original = source(topic, { mode: 'group', groupId: `${topic}-g` });
    const run = async (maxBufferedRecords: number) => {
      const env = new StreamEnvironment({ batchSize: 5, parallelism: 1 });
      const sink = new CollectSink<{ id: number; watermark: number }>();
      const seen: ProcessFunction<Ev, { id: number; watermark: number }> = {
        processElement: (e, ctx, out) =>
          out.collect({ id: e.id, watermark: ctx.timerService.currentWatermark() }),
      };
      const replayed = source(topic, {
        mode: 'group',
        groupId: `${topic}-g`,
        maxBufferedRecords,
      }).replay({ from: LOG_T0 + 5 * LOG_STEP - LOG_STEP / 2 });
      env.fromSource(replayed).process(seen).sinkTo(sink);
      await env.execute('replay');
      return sink.values;
    };
    const first = await run(3);
    const second = await run(20_000);
    expect(second).toEqual(first);
    // Each record sees the watermark after the batch before its own.
    const polls = expectedPolls(
      data.map((evs) => evs.slice(5)),
      5,
    );
    const oracle = polls.flatMap((p, i) =>
      p.ids.map((id) => ({
        id,
        watermark: i === 0 ? Number.NEGATIVE_INFINITY : polls[i - 1]!.watermark,
      })),
    );
    expect(first).toEqual(oracle);
    expect(original.parallelizable).toBe(true);
  });

  it('resumes a restored replay after its last batch, ending where it would have', async () => {
    const topic = uniqueTopic('replay-restore');
    const data = partitionData(2, 12);
    await fill(topic, data);
    const replayed = source(topic).replay({});
    const whole = await pollAll(replayed, 5);
    expect(whole).toEqual(expectedPolls(data, 5));
    // Two batches, a checkpoint, and a partly built third batch that is lost.
    const first = replayed.createReader(readerContext(5));
    await first.open();
    const ids: number[] = [];
    let position: Json | undefined;
    try {
      const deadline = Date.now() + 60_000;
      while (ids.length < 10) {
        const r = first.poll();
        if (r === 'end') throw new Error('ended early');
        if (r === 'wait') {
          if (Date.now() > deadline) throw new Error('no batches in time');
          await first.available();
          continue;
        }
        ids.push(...r.values.map((e) => e.id));
      }
      position = first.snapshot!(1);
    } finally {
      await first.close();
    }
    // The topic grows; the restored replay still ends at the ends it resolved.
    await produce(topic, [{ value: JSON.stringify({ id: 999, t: 0 }), partition: 0 }]);
    const second = replayed.createReader({ ...readerContext(5), restoredPosition: position });
    await second.open();
    try {
      for (;;) {
        const r = second.poll();
        if (r === 'end') break;
        if (r === 'wait') {
          await second.available();
          continue;
        }
        ids.push(...r.values.map((e) => e.id));
      }
    } finally {
      await second.close();
    }
    expect(ids).toEqual(whole.flatMap((p) => p.ids));
  });

  it('ends at once on an empty range, and at ranges ending on transaction markers', async () => {
    const topic = uniqueTopic('replay-txn');
    await createTopic(topic, 2);
    const ev = (id: number, partition: number) => ({
      topic,
      partition,
      value: Buffer.from(JSON.stringify({ id, t: id })),
    });
    const producer = new Producer({
      clientId: 'weir-test',
      bootstrapBrokers: BROKERS,
      idempotent: true,
      transactionalId: `${topic}-tx`,
    });
    try {
      // Partition 0: committed 1, 2 (offsets 0, 1, marker 2); aborted 3, 4
      // (3, 4, marker 5); committed 5, 6 (6, 7, marker 8). Partition 1: 10, 11 in the first.
      let txn = await producer.beginTransaction();
      await txn.send({ messages: [ev(1, 0), ev(2, 0), ev(10, 1), ev(11, 1)] });
      await txn.commit();
      txn = await producer.beginTransaction();
      await txn.send({ messages: [ev(3, 0), ev(4, 0)] });
      await txn.abort();
      txn = await producer.beginTransaction();
      await txn.send({ messages: [ev(5, 0), ev(6, 0)] });
      await txn.commit();
    } finally {
      await producer.close();
    }
    const ids = async (range: ReplayRange, batchSize = 3) =>
      (await pollAll(source(topic).replay(range), batchSize)).flatMap((p) => p.ids);
    expect(await ids({})).toEqual([1, 2, 5, 6, 10, 11]);
    const p0 = `${topic}:0`;
    const p1 = `${topic}:1`;
    expect(await ids({ positions: { [p0]: [0, 3], [p1]: [0, 0] } })).toEqual([1, 2]);
    expect(await ids({ positions: { [p0]: [0, 2], [p1]: [2, 3] } })).toEqual([1, 2]);
    expect(await ids({ positions: { [p0]: [3, 6], [p1]: [1, 2] } })).toEqual([11]);
    expect(await ids({ positions: { [p0]: [2, 9], [p1]: [0, 3] } }, 1)).toEqual([5, 6, 10, 11]);
    // Nothing at or after `from`: every partition is empty, the replay ends at the first poll.
    const empty = source(topic).replay({ from: Date.now() + 3_600_000 });
    const reader = empty.createReader(readerContext(3));
    await reader.open();
    try {
      expect(reader.poll()).toBe('end');
    } finally {
      await reader.close();
    }
  });

  it('replays the topics a pattern matches, and checks the range', async () => {
    const prefix = uniqueTopic('replay-pattern');
    const data = partitionData(1, 6);
    await fill(`${prefix}-a`, data);
    await fill(`${prefix}-b`, data);
    const pattern = source('unused', {
      topics: undefined,
      topicPattern: new RegExp(`${prefix}-.*`),
    });
    const polls = await pollAll(pattern.replay({}), 4);
    // Equal event times: topic a before topic b.
    const ids = polls.flatMap((p) => p.ids);
    expect(ids).toEqual(expectedPolls([data[0]!, data[0]!], 4).flatMap((p) => p.ids));
    expect(polls.map((p) => p.ids.length)).toEqual([4, 4, 4]);
    expect(() => source('t').replay({ from: 1.5 })).toThrow(WeirError);
    expect(() => source('t').replay({ positions: { t: [0, 1] } })).toThrow(/topic:partition/);
    expect(() => source('t').replay({ positions: { 't:0': [-1, 1] } })).toThrow(/offsets >= 0/);
  });
});

describe('KafkaSource stopAt', () => {
  it('stops at exact offsets, at a timestamp, or at the end', async () => {
    const topic = uniqueTopic('stop-at');
    const data = partitionData(2, 10);
    await fill(topic, data);
    const read = async (stopAt: KafkaSourceOptions<Ev>['stopAt']) => {
      const env = new StreamEnvironment();
      const sink = new CollectSink<Ev>();
      env.fromSource(source(topic, { stopAt, watermarks: undefined })).sinkTo(sink);
      await env.execute('read');
      return sink.values.map((e) => e.id).sort((a, b) => a - b);
    };
    const all = data.flat().map((e) => e.id);
    expect(await read('latest')).toEqual(all);
    expect(await read({ timestamp: LOG_T0 + 2 * LOG_STEP + LOG_STEP / 2 })).toEqual([
      0, 1, 2, 100, 101, 102,
    ]);
    // Partitions not named stop at the end.
    expect(await read({ offsets: { [topic]: { '0': 4 } } })).toEqual([
      0,
      1,
      2,
      3,
      ...data[1]!.map((e) => e.id),
    ]);
    expect(() => source(topic, { stopAt: { timestamp: -1 } })).toThrow(/stopAt/);
    expect(() => source(topic, { stopAt: { offsets: { [topic]: { x: 1 } } } } as never)).toThrow(
      /partition/,
    );
    expect(() => source(topic, { stopAt: 'earliest' } as never)).toThrow(
      /'latest', \{ timestamp \} or \{ offsets/,
    );
  });
});
