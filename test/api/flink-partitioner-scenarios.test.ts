/**
 * Scenarios of Flink's PartitionerITCase (flink-tests, streaming/runtime): which subtask of the
 * next step receives which record under each partitioning, run as whole jobs. Flink's input is
 * kept (seven one-letter records from a source of parallelism 1, the environment's parallelism
 * 3); each record is tagged with the subtask that saw it, read from the runtime context in `open`
 * (Flink's `getIndexOfThisSubtask()`), and the tags are compared as sets and counted per subtask.
 * Each `it` names the Flink test method (and, for `partitionerTest`, the part of it) it ports.
 *
 * Where Weir differs from Flink on purpose, the test says so:
 * - Weir's rebalance deals out whole batches, not single records (less work per record); the
 *   jobs here use `batchSize: 1`, so that the round-robin is per record as in Flink, and it
 *   starts at subtask 0 (the producer's index), as the order Flink's test expects;
 * - Weir has no explicit `forward()`: an edge is forward by default, and where the parallelism
 *   changes the planner turns it into a rebalance. Flink's test of a forward edge after a map of
 *   parallelism 3 is ported with that map's parallelism set; Flink's two tests that an explicit
 *   forward between different parallelisms is refused become checks that Weir rebalances there
 *   and loses no record;
 * - `partitionCustom` takes a key selector function (Flink also takes a field index or name,
 *   which plain objects in JavaScript do not need); a partitioner returning a subtask that does
 *   not exist fails the job with INVALID_ARGUMENT naming the value;
 * - `global()` and `partitionCustom()` add a pass-through step named after them, whose input
 *   edge carries the partitioning (as `rebalance()` and `broadcast()` do); the step after it is
 *   chained to it.
 *
 * `rescale()` and `shuffle()`, which Flink's test does not run, are checked here for what they
 * promise: rescale feeds each subtask of the next step from its share of the producers (Flink's
 * pointwise distribution), shuffle sends every record once, to some subtask, every subtask used.
 */
import { describe, expect, it } from 'vitest';
import { hashKey, subtaskForKeyGroup } from '../../src/core/key-groups.js';
import {
  type DataStream,
  type KeyedProcessFunction,
  type ProcessFunction,
  StreamEnvironment,
} from '../../src/index.js';

const LETTERS = ['a', 'b', 'b', 'a', 'a', 'c', 'a'];

type Tagged = readonly [subtask: number, letter: string];

/** Tags every record with the subtask that processes it (Flink's SubtaskIndexAssigner). */
function subtaskTagger(): ProcessFunction<string, Tagged> & { index?: number } {
  return {
    open(ctx) {
      this.index = ctx.subtaskIndex;
    },
    processElement(value, _ctx, out) {
      out.collect([this.index!, value]);
    },
  };
}

function keyedSubtaskTagger(): KeyedProcessFunction<string, string, Tagged> & { index?: number } {
  return {
    open(ctx) {
      this.index = ctx.subtaskIndex;
    },
    processElement(value, _ctx, out) {
      out.collect([this.index!, value]);
    },
  };
}

/** The environment of Flink's test: parallelism 3, and one record per batch (see the header). */
function environment(): { env: StreamEnvironment; src: DataStream<string> } {
  const env = new StreamEnvironment({ parallelism: 3, batchSize: 1 });
  return { env, src: env.fromArray(LETTERS) };
}

const asSet = (tagged: readonly Tagged[]): Set<string> =>
  new Set(tagged.map(([s, l]) => `${s}:${l}`));

const countsPerSubtask = (tagged: readonly Tagged[], parallelism = 3): number[] => {
  const counts = new Array<number>(parallelism).fill(0);
  for (const [s] of tagged) counts[s]!++;
  return counts;
};

/** Flink's expected tags of a round-robin from subtask 0 over three subtasks. */
const ROUND_ROBIN = new Set(['0:a', '1:b', '2:b', '0:a', '1:a', '2:c', '0:a']);

describe("Flink's PartitionerITCase", () => {
  it('partitionerTest (hash): keyBy sends every record of a key to one subtask, the one owning its key group', async () => {
    const { src } = environment();
    const out = await src
      .keyBy((l) => l)
      .process(keyedSubtaskTagger())
      .executeAndCollect();
    expect(out).toHaveLength(LETTERS.length);
    const subtaskOf = new Map<string, number>();
    for (const [s, l] of out) {
      expect(subtaskOf.get(l) ?? s).toBe(s);
      subtaskOf.set(l, s);
    }
    for (const [l, s] of subtaskOf) {
      expect(s).toBe(subtaskForKeyGroup(hashKey(l) % 128, 128, 3));
    }
  });

  it('partitionerTest (custom): partitionCustom sends "c" to subtask 2 and the rest to subtask 0', async () => {
    const { src } = environment();
    const out = await src
      .partitionCustom(
        (key: string) => (key === 'c' ? 2 : 0),
        (l) => l,
      )
      .process(subtaskTagger())
      .executeAndCollect();
    expect(out).toHaveLength(LETTERS.length);
    for (const [s, l] of out) expect(s).toBe(l === 'c' ? 2 : 0);
    expect(countsPerSubtask(out)).toEqual([6, 0, 1]);
  });

  it('partitionerTest (custom, the partitioner sees the key and the number of subtasks)', async () => {
    const seen = new Set<string>();
    const env = new StreamEnvironment({ parallelism: 3, batchSize: 1 });
    const out = await env
      .fromArray([{ id: 10 }, { id: 11 }, { id: 12 }, { id: 13 }])
      .partitionCustom(
        (key: number, n) => {
          seen.add(`${key}/${n}`);
          return key % n;
        },
        (r) => r.id,
      )
      .map((r) => r.id)
      .process<readonly [number, number]>({
        open(ctx) {
          (this as { index?: number }).index = ctx.subtaskIndex;
        },
        processElement(value, _ctx, o) {
          o.collect([(this as { index?: number }).index!, value]);
        },
      })
      .executeAndCollect();
    expect(new Set(out.map(([s, id]) => `${s}:${id}`))).toEqual(
      new Set(['1:10', '2:11', '0:12', '1:13']),
    );
    expect(seen).toEqual(new Set(['10/3', '11/3', '12/3', '13/3']));
  });

  it('partitionerTest (custom): a partitioner naming a subtask that does not exist fails the job', async () => {
    const { src } = environment();
    await expect(
      src
        .partitionCustom(
          () => 100,
          (l) => l,
          'to-nowhere',
        )
        .process(subtaskTagger())
        .executeAndCollect(),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('returned 100'),
    });
  });

  it('partitionerTest (broadcast): every subtask receives every record', async () => {
    const { src } = environment();
    const out = await src.broadcast().process(subtaskTagger()).executeAndCollect();
    expect(out).toHaveLength(3 * LETTERS.length);
    expect(asSet(out)).toEqual(new Set([0, 1, 2].flatMap((s) => LETTERS.map((l) => `${s}:${l}`))));
    expect(countsPerSubtask(out)).toEqual([7, 7, 7]);
  });

  it('partitionerTest (rebalance): records are dealt round-robin over the subtasks', async () => {
    const { src } = environment();
    const out = await src.rebalance().process(subtaskTagger()).executeAndCollect();
    expect(out).toHaveLength(LETTERS.length);
    expect(asSet(out)).toEqual(ROUND_ROBIN);
    expect(countsPerSubtask(out)).toEqual([3, 2, 2]);
  });

  it('partitionerTest (forward): a map of parallelism 3 after the source is fed round-robin, and the next step stays on its subtask', async () => {
    const { src } = environment();
    const out = await src
      .map((l) => l)
      .setParallelism(3)
      .process(subtaskTagger())
      .executeAndCollect();
    expect(asSet(out)).toEqual(ROUND_ROBIN);
    expect(countsPerSubtask(out)).toEqual([3, 2, 2]);
  });

  it('partitionerTest (global): every record goes to subtask 0, and the next step keeps its parallelism', async () => {
    const { src } = environment();
    const parallelisms = new Set<number>();
    const out = await src
      .global()
      .process<Tagged>({
        open(ctx) {
          parallelisms.add(ctx.parallelism);
          (this as { index?: number }).index = ctx.subtaskIndex;
        },
        processElement(value, _ctx, o) {
          o.collect([(this as { index?: number }).index!, value]);
        },
      })
      .executeAndCollect();
    expect(out).toHaveLength(LETTERS.length);
    expect(asSet(out)).toEqual(new Set(LETTERS.map((l) => `0:${l}`)));
    expect(countsPerSubtask(out)).toEqual([7, 0, 0]);
    expect(parallelisms).toEqual(new Set([3]));
  });

  it('rescale (not in the ITCase): each producer feeds its own share of the next step, round-robin', async () => {
    const values = Array.from({ length: 40 }, (_, i) => `r${i}`);
    /** Records tagged with the producer's subtask, then with the consumer's. */
    const run = async (producers: number, consumers: number) => {
      const env = new StreamEnvironment({ parallelism: consumers, batchSize: 1 });
      const tagged = env
        .fromArray(values)
        .rebalance()
        .process<Tagged>(subtaskTagger())
        .setParallelism(producers)
        .rescale()
        .process<readonly [number, number, string]>({
          open(ctx) {
            (this as { index?: number }).index = ctx.subtaskIndex;
          },
          processElement([producer, value], _ctx, out) {
            out.collect([producer, (this as { index?: number }).index!, value]);
          },
        });
      const out = await tagged.executeAndCollect();
      expect(out.map(([, , v]) => v).sort()).toEqual([...values].sort());
      const pairs = new Map<number, Set<number>>();
      for (const [p, c] of out) pairs.set(p, (pairs.get(p) ?? new Set()).add(c));
      return [...pairs].sort(([a], [b]) => a - b).map(([p, cs]) => [p, [...cs].sort()]);
    };
    // 2 producers, 4 consumers: 0 feeds 0 and 1, 1 feeds 2 and 3; 4 to 2: two producers per consumer.
    expect(await run(2, 4)).toEqual([
      [0, [0, 1]],
      [1, [2, 3]],
    ]);
    expect(await run(4, 2)).toEqual([
      [0, [0]],
      [1, [0]],
      [2, [1]],
      [3, [1]],
    ]);
  });

  it('shuffle (not in the ITCase): every record arrives once, on one of the subtasks, and every subtask gets some', async () => {
    const env = new StreamEnvironment({ parallelism: 3, batchSize: 16 });
    const values = Array.from({ length: 600 }, (_, i) => `r${i}`);
    const out = await env.fromArray(values).shuffle().process(subtaskTagger()).executeAndCollect();
    expect(out.map(([, v]) => v).sort()).toEqual([...values].sort());
    const counts = countsPerSubtask(out);
    // Each of 600 records picks one of 3 subtasks at random: an empty one is practically impossible.
    for (const c of counts) expect(c).toBeGreaterThan(0);
  });

  it('testForwardFailsLowToHighParallelism: Weir rebalances a forward edge from parallelism 1 to 3 (Flink refuses an explicit forward)', async () => {
    const env = new StreamEnvironment({ parallelism: 3, batchSize: 1 });
    const out = env
      .fromArray([1, 2, 3])
      .map((n) => n)
      .setParallelism(3);
    expect(env.explain()).toMatch(/parallelism=3 task=\S+ <- \[0\] rebalance/);
    expect((await out.executeAndCollect()).sort()).toEqual([1, 2, 3]);
  });

  it('testForwardFailsHightToLowParallelism: Weir rebalances a forward edge from parallelism 3 to 1 (Flink refuses an explicit forward)', async () => {
    const env = new StreamEnvironment({ parallelism: 3, batchSize: 1 });
    const out = env
      .fromArray([1, 2, 3])
      .rebalance()
      .map((n) => n)
      .map((n) => n)
      .setParallelism(1);
    expect(env.explain()).toMatch(/parallelism=1 task=\S+ <- \[2\] rebalance/);
    expect((await out.executeAndCollect()).sort()).toEqual([1, 2, 3]);
  });
});
