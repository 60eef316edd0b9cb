/**
 * The behavioural scenarios of Flink's DataStreamTest (flink-streaming-java, streaming/api), and
 * the scenarios of Flink's StreamingOperatorsITCase (flink-tests, streaming/api) in the second
 * `describe`. DataStreamTest's scenarios are about how the API wires a job (the partitioning of
 * each edge, the parallelism of each step, names and uids), checked here on the plan
 * `env.explain()` prints and, where it matters, by running the job. Each `it` names the Flink
 * test method it ports.
 *
 * Where Weir differs from Flink on purpose, the test says so:
 * - Flink checks its stream graph object; Weir's graph is not public, so these tests read the
 *   edges and parallelisms from `explain()` (and from `ctx.parallelism` in a running job);
 * - a step after a source of parallelism 1 inherits that parallelism without a shuffle (Flink
 *   uses the environment's default and inserts a rebalance): it keeps the source's order and
 *   needs no exchange; keyed steps and steps after a non-forward edge use the default, as in
 *   Flink;
 * - keys: Flink refuses array and POJO-without-hashCode key types when the job is built, from
 *   their type information. JavaScript has no such runtime types, so Weir's rule is by value:
 *   a key must be a string, a number (not NaN), a bigint or a boolean. The key selector's type
 *   refuses other keys when compiling, and a record whose key breaks the rule fails the job with
 *   INVALID_ARGUMENT naming the key and the record;
 * - `setParallelism` rejects a value that is not a positive whole number when called, as Flink
 *   does, but checks the upper bound (the environment's `maxParallelism`) and a source that
 *   cannot be split when the job is planned (`explain`, `execute`), where Flink refuses a
 *   parallelism above 1 on a non-parallel source at the call;
 * - the environment's parallelism and maxParallelism are constructor options, validated there
 *   (Flink's `env.setParallelism` / `setMaxParallelism`); Weir has no per-step maxParallelism;
 * - `sinkTo` returns the sink step as a `DataStream<never>` handle (Flink: a `DataStreamSink`),
 *   for `name`, `uid` and `setParallelism`;
 * - `name`, `uid` and `setParallelism` throw on a union or a side output, which have no single
 *   producing step (in Flink a union's result is a plain DataStream, without these methods).
 *
 * StreamingOperatorsITCase, as whole jobs: Flink's `fold` (deprecated there) becomes a rolling
 * `reduce` whose first record is the accumulator, and `split`/`select` by a hash of the result
 * becomes a split of the collected results by key; the "non-serializable" value holds a symbol;
 * the async function returns promises (resolved by timers in reverse order of the calls) instead
 * of completing a result future on a thread pool. Weir has no object-reuse switch; the last case
 * checks only that a job ending in a step without consumers runs.
 *
 * Not ported: the type-information and function-retrieval checks of testTypeInfo and
 * operatorTest (Weir keeps no runtime type information, and its plan holds operator factories,
 * not the user's function objects); per-step `setMaxParallelism` (Weir has only the environment's);
 * `windowAll`, `split`/`select` and `fold`, which Weir does not offer (testParallelism's
 * all-window step, whose parallelism is 1 in Flink, has no counterpart); `forward()`,
 * `rescale()` and Flink's field-index and field-name key selectors (see
 * flink-partitioner-scenarios.test.ts; Weir keys with functions only).
 */
import { describe, expect, it } from 'vitest';
import {
  type Collector,
  type DataStream,
  DiscardingSink,
  type KeyedProcessFunction,
  OutputTag,
  type ProcessFunction,
  StreamEnvironment,
} from '../../src/index.js';

/** The lines of the physical plan, one per step. */
function physical(env: StreamEnvironment): string[] {
  const text = env.explain();
  return text
    .slice(text.indexOf('Physical plan'))
    .split('\n')
    .slice(1)
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
}

/** The physical plan's line of the step whose operator id starts with `id` (its uid or name). */
function step(env: StreamEnvironment, id: string): string {
  const line = physical(env).find((l) => new RegExp(`^\\[\\d+\\] ${id}\\b`).test(l));
  if (line === undefined) throw new Error(`no step ${id} in\n${env.explain()}`);
  return line;
}

const parallelismOf = (line: string): number => Number(/parallelism=(\d+)/.exec(line)![1]);
/** The partitionings of a step's inputs, in order. */
const inputsOf = (line: string): string[] => {
  const at = line.indexOf(' <- ');
  if (at < 0) return [];
  return [...line.slice(at).matchAll(/\[\d+\] (\w+(?:\([^)]*\))?)/g)].map((m) => m[1]!);
};

const sink = <T>(): DiscardingSink<T> => new DiscardingSink<T>();

/** Counts the subtasks' parallelism and records, in a running job. */
function observe<T>(seen: { parallelism: Set<number>; subtasks: number[] }): ProcessFunction<T, T> {
  return {
    open(ctx) {
      seen.parallelism.add(ctx.parallelism);
      (this as { index?: number }).index = ctx.subtaskIndex;
    },
    processElement(value, _ctx, out) {
      seen.subtasks.push((this as { index?: number }).index!);
      out.collect(value);
    },
  };
}

describe("Flink's DataStreamTest", () => {
  it('testUnion (self union): both inputs of the step are the same stream, and every record arrives twice', async () => {
    const env = new StreamEnvironment({ parallelism: 4 });
    const input = env
      .fromGenerator({ count: 5, generate: (i) => i })
      .map((n) => n)
      .uid('input1');
    const selfUnion = input
      .union(input)
      .map((n) => n)
      .uid('self-union');
    expect(inputsOf(step(env, 'self-union'))).toEqual(['forward', 'forward']);
    expect(step(env, 'self-union')).toMatch(/<- \[1\] forward, \[1\] forward/);
    const out = await selfUnion.executeAndCollect();
    expect(out.sort()).toEqual([0, 0, 1, 1, 2, 2, 3, 3, 4, 4]);
  });

  it('testUnion (self union with different partitionings): one input broadcast, one forward', async () => {
    const env = new StreamEnvironment({ parallelism: 3 });
    const input = env
      .fromGenerator({ count: 4, generate: (i) => i })
      .map((n) => n)
      .uid('input6');
    const union = input
      .broadcast()
      .uid('input6-broadcast')
      .union(input)
      .map((n) => n)
      .uid('self-union-different-partition');
    expect(inputsOf(step(env, 'self-union-different-partition'))).toEqual(['forward', 'forward']);
    expect(inputsOf(step(env, 'input6-broadcast'))).toEqual(['broadcast']);
    // Broadcast: each record reaches all 3 subtasks; the forward input adds it once more.
    const out = await union.executeAndCollect();
    expect(out.sort()).toEqual([0, 1, 2, 3].flatMap((n) => [n, n, n, n]));
  });

  it('testUnion (differing parallelism): the input of equal parallelism is forward, the other rebalanced', () => {
    const env = new StreamEnvironment({ parallelism: 4 });
    const input2 = env
      .fromGenerator({ count: 1, generate: (i) => i })
      .map((n) => n)
      .setParallelism(4)
      .uid('input2');
    const input3 = env
      .fromGenerator({ count: 1, generate: (i) => i })
      .map((n) => n)
      .setParallelism(2)
      .uid('input3');
    input2
      .union(input3)
      .map((n) => n)
      .setParallelism(4)
      .uid('union-differing-parallelism')
      .sinkTo(sink());
    const line = step(env, 'union-differing-parallelism');
    expect(line).toMatch(/<- \[\d+\] forward, \[\d+\] rebalance/);
    expect(parallelismOf(step(env, 'input2'))).toBe(4);
    expect(parallelismOf(step(env, 'input3'))).toBe(2);
  });

  it('testUnion (differing partitionings): a broadcast input and a forward one', () => {
    const env = new StreamEnvironment({ parallelism: 4 });
    const input4 = env
      .fromGenerator({ count: 1, generate: (i) => i })
      .map((n) => n)
      .setParallelism(2)
      .uid('input4');
    const input5 = env
      .fromGenerator({ count: 1, generate: (i) => i })
      .map((n) => n)
      .setParallelism(4)
      .uid('input5');
    input4
      .broadcast()
      .uid('input4-broadcast')
      .union(input5)
      .map((n) => n)
      .setParallelism(4)
      .uid('union-differing-partitioning')
      .sinkTo(sink());
    expect(inputsOf(step(env, 'input4-broadcast'))).toEqual(['broadcast']);
    expect(inputsOf(step(env, 'union-differing-partitioning'))).toEqual(['forward', 'forward']);
  });

  it('testNaming: the names given to sources, steps and connected steps appear in the plan', () => {
    const env = new StreamEnvironment();
    const one = env
      .fromGenerator({ count: 1, generate: (i) => i })
      .name('testSource1')
      .map((n) => n)
      .name('testMap');
    const two = env
      .fromGenerator({ count: 1, generate: (i) => i })
      .name('testSource2')
      .map((n) => n)
      .name('testMap');
    one
      .connect(two)
      .flatMap<number>({ flatMap1: () => {}, flatMap2: () => {} })
      .name('testCoFlatMap')
      .keyBy(() => 0)
      .reduce((a, b) => a + b)
      .name('testReduce')
      .uid('reduce')
      .sinkTo(sink())
      .name('testSink');
    const plan = env.explain();
    for (const name of ['testSource1', 'testSource2', 'testMap', 'testCoFlatMap', 'testReduce']) {
      expect(plan).toContain(`"${name}"`);
    }
    expect(plan).toContain('"testSink"');
  });

  it('testPartitioning (DataStream): keyBy makes keyed edges; partitionCustom makes custom ones and no keyed stream', () => {
    const env = new StreamEnvironment({ parallelism: 2 });
    const src1 = env.fromArray([[0, 0] as const]).uid('src1');
    src1
      .keyBy((t) => t[0])
      .map((t) => t)
      .uid('group1')
      .sinkTo(sink());
    src1
      .keyBy((t) => `${t[1]}|${t[0]}`)
      .map((t) => t)
      .uid('group2')
      .sinkTo(sink());
    const custom = src1.partitionCustom(
      () => 100,
      (t) => t[0],
    );
    custom
      .map((t) => t)
      .uid('custom1')
      .sinkTo(sink());
    expect(inputsOf(step(env, 'group1'))).toEqual(['keyed(keyBy)']);
    expect(inputsOf(step(env, 'group2'))).toEqual(['keyed(keyBy)']);
    expect(physical(env).some((l) => /<- \[0\] custom$/.test(l))).toBe(true);
    // Not keyed: a partitioned stream offers no keyed operations.
    // @ts-expect-error reduce is a KeyedStream method
    expect(custom.reduce).toBeUndefined();
    expect('window' in custom).toBe(false);
  });

  it('testPartitioning (ConnectedStreams): keyBy on connected streams keys both inputs; without it both are forward', () => {
    const env = new StreamEnvironment({ parallelism: 2 });
    const src1 = env.fromArray([[0, 0] as const]);
    const src2 = env.fromArray([[0, 0] as const]);
    const connected = src1.connect(src2);
    const coMap = { map1: (t: readonly [0, 0]) => t[0], map2: (t: readonly [0, 0]) => t[1] };
    connected
      .keyBy(
        (t) => t[0],
        (t) => t[0],
      )
      .map(coMap)
      .uid('connected-keyed')
      .sinkTo(sink());
    src1
      .keyBy((t) => t[0])
      .connect(src2.keyBy((t) => t[0]))
      .map(coMap)
      .uid('keyed-connected')
      .sinkTo(sink());
    connected.map(coMap).uid('connected-plain').sinkTo(sink());
    expect(inputsOf(step(env, 'connected-keyed'))).toEqual(['keyed(key1)', 'keyed(key2)']);
    expect(inputsOf(step(env, 'keyed-connected'))).toEqual(['keyed(keyBy)', 'keyed(keyBy)']);
    // Two inputs: the environment's parallelism, so the parallelism-1 sources are rebalanced.
    expect(inputsOf(step(env, 'connected-plain'))).toEqual(['rebalance', 'rebalance']);
    expect(parallelismOf(step(env, 'connected-plain'))).toBe(2);
  });

  it('testParallelism: sources, steps and sinks get the parallelism the rules and setParallelism give', () => {
    const env = new StreamEnvironment({ parallelism: 10 });
    const src = env.fromArray([[0, 0] as [number, number]]).uid('src');
    const map = src
      .map((t) => t[0])
      .name('MyMap')
      .uid('map');
    const keyed = map
      .keyBy(() => 0)
      .reduce((a, b) => a + b)
      .uid('keyed');
    keyed.sinkTo(sink()).uid('keyed-sink');
    const mapSink = map.sinkTo(sink()).uid('map-sink');
    const parallelSource = env.fromGenerator({ count: 1, generate: (i) => i }).uid('parallel');
    parallelSource.sinkTo(sink()).uid('parallel-sink');

    expect(parallelismOf(step(env, 'src'))).toBe(1);
    expect(parallelismOf(step(env, 'map'))).toBe(1); // Flink: 10, see the header
    expect(parallelismOf(step(env, 'keyed'))).toBe(10);
    expect(parallelismOf(step(env, 'map-sink'))).toBe(1);
    expect(parallelismOf(step(env, 'parallel'))).toBe(10);

    parallelSource.setParallelism(3);
    map.setParallelism(2);
    mapSink.setParallelism(4);
    expect(parallelismOf(step(env, 'parallel'))).toBe(3);
    expect(parallelismOf(step(env, 'map'))).toBe(2);
    expect(parallelismOf(step(env, 'map-sink'))).toBe(4);

    // A source that cannot be split is refused a parallelism above 1 when the job is planned.
    src.setParallelism(3);
    expect(() => env.explain()).toThrow(/cannot be split; its parallelism must be 1, got 3/);
  });

  it('testParallelism (validation): setParallelism takes positive whole numbers up to maxParallelism', () => {
    const env = new StreamEnvironment({ parallelism: 2, maxParallelism: 8 });
    const map = env.fromGenerator({ count: 1, generate: (i) => i }).map((n) => n);
    map.sinkTo(sink());
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => map.setParallelism(bad)).toThrow(/parallelism must be a positive whole number/);
    }
    map.setParallelism(8);
    expect(() => env.explain()).not.toThrow();
    map.setParallelism(9);
    expect(() => env.explain()).toThrow(/exceeds maxParallelism \(8\)/);
  });

  it('testMaxParallelism (environment): maxParallelism is 1 to 32768, and the parallelism at most that', () => {
    for (const bad of [0, -1, 32769]) {
      expect(() => new StreamEnvironment({ maxParallelism: bad })).toThrow();
    }
    expect(() => new StreamEnvironment({ parallelism: 0 })).toThrow();
    expect(() => new StreamEnvironment({ parallelism: 5, maxParallelism: 4 })).toThrow(
      /must not exceed maxParallelism/,
    );
    expect(new StreamEnvironment({ maxParallelism: 32768 }).maxParallelism).toBe(32768);
    expect(new StreamEnvironment({ maxParallelism: 1 }).maxParallelism).toBe(1);
  });

  it('testParallelism (after keyBy and global): the next step runs at the default parallelism even after a source of parallelism 1', async () => {
    const env = new StreamEnvironment({ parallelism: 3 });
    const afterKeyBy = { parallelism: new Set<number>(), subtasks: [] as number[] };
    const afterGlobal = { parallelism: new Set<number>(), subtasks: [] as number[] };
    const src = env.fromArray([1, 2, 3, 4, 5, 6]);
    const keyedFn: KeyedProcessFunction<number, number, number> & { index?: number } = {
      open(ctx) {
        afterKeyBy.parallelism.add(ctx.parallelism);
      },
      processElement(value, _ctx, out) {
        out.collect(value);
      },
    };
    src
      .keyBy((n) => n)
      .process(keyedFn)
      .sinkTo(sink());
    src.global().process(observe(afterGlobal)).sinkTo(sink());
    await env.execute();
    expect(afterKeyBy.parallelism).toEqual(new Set([3]));
    expect(afterGlobal.parallelism).toEqual(new Set([3]));
    expect(afterGlobal.subtasks).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it('testKeyRejection (arrays, objects): keys must be strings, numbers, bigints or booleans', async () => {
    const records = [{ id: [1, 2], name: 'a' }];
    const env = new StreamEnvironment();
    // @ts-expect-error an array is not a Key
    env.fromArray(records).keyBy((r) => r.id);
    // @ts-expect-error an object (Flink: a POJO without hashCode) is not a Key
    env.fromArray(records).keyBy((r) => ({ name: r.name }));

    // A selector that breaks the rule at run time (e.g. from JavaScript) fails the job.
    const byArray = (r: (typeof records)[number]) => r.id as unknown as string;
    await expect(
      new StreamEnvironment()
        .fromArray(records)
        .keyBy(byArray)
        .map((r) => r)
        .executeAndCollect(),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/returned \[1,2\].*keys must be a string, a number/),
    });
    const byObject = (r: (typeof records)[number]) => ({ name: r.name }) as unknown as string;
    await expect(
      new StreamEnvironment()
        .fromArray(records)
        .keyBy(byObject)
        .map((r) => r)
        .executeAndCollect(),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    const byNaN = () => Number.NaN;
    await expect(
      new StreamEnvironment()
        .fromArray(records)
        .keyBy(byNaN)
        .map((r) => r)
        .executeAndCollect(),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('testKeyRejection (accepted keys): equal strings, numbers, bigints and booleans meet in one subtask', async () => {
    const env = new StreamEnvironment({ parallelism: 4 });
    const keys = ['k', 7, 7n, true, 'k', 7, 7n, true];
    const out = await env
      .fromArray(keys.map((key, i) => ({ key, i })))
      .keyBy((r) => r.key)
      .reduce((a, b) => ({ key: a.key, i: a.i + b.i }))
      .uid('sum')
      .executeAndCollect();
    const last = new Map(out.map((r) => [`${typeof r.key}:${String(r.key)}`, r.i]));
    expect(last).toEqual(
      new Map([
        ['string:k', 0 + 4],
        ['number:7', 1 + 5],
        ['bigint:7', 2 + 6],
        ['boolean:true', 3 + 7],
      ]),
    );
  });

  it('testChannelSelectors: broadcast, shuffle, rebalance, global and keyBy each give their edge', () => {
    const env = new StreamEnvironment({ parallelism: 2 });
    const src = env.fromGenerator({ count: 1, generate: (i) => i }).uid('src');
    src.broadcast().uid('broadcast').sinkTo(sink());
    src.shuffle().uid('shuffle').sinkTo(sink());
    src.rebalance().uid('rebalance').sinkTo(sink());
    src.global().uid('global').sinkTo(sink());
    src
      .map((n) => n)
      .uid('forward')
      .sinkTo(sink());
    for (const kind of ['broadcast', 'shuffle', 'rebalance', 'global', 'forward']) {
      expect(inputsOf(step(env, kind))).toEqual([kind]);
    }
    // The forward step runs in the source's task.
    expect(step(env, 'forward')).toMatch(/forward chained$/);
  });

  it('testSinkTo: sinkTo returns the sink step, for name, uid and setParallelism', () => {
    const env = new StreamEnvironment({ parallelism: 2 });
    const handle: DataStream<never> = env
      .fromGenerator({ count: 1, generate: (i) => i })
      .sinkTo(sink());
    expect(handle.name('my sink').uid('my-sink').setParallelism(1)).toBe(handle);
    const line = step(env, 'my-sink');
    expect(line).toContain('sink');
    expect(parallelismOf(line)).toBe(1);
    expect(env.explain()).toContain('"my sink"');
  });

  it('testUid: a uid must not be empty and must be unique in the job', () => {
    const env = new StreamEnvironment();
    const src = env.fromGenerator({ count: 1, generate: (i) => i });
    expect(() => src.map((n) => n).uid('')).toThrow(/uid must not be empty/);
    src
      .map((n) => n)
      .uid('same')
      .sinkTo(sink());
    src
      .map((n) => n)
      .uid('same')
      .sinkTo(sink());
    expect(() => env.explain()).toThrow(/same/);
  });

  it('testUid (union, side output): name, uid and setParallelism need one producing step', () => {
    const env = new StreamEnvironment();
    const a = env.fromGenerator({ count: 1, generate: (i) => i });
    const b = env.fromGenerator({ count: 1, generate: (i) => i });
    const union = a.union(b);
    expect(() => union.uid('u')).toThrow(/not to a union or side output/);
    expect(() => union.name('u')).toThrow(/not to a union or side output/);
    expect(() => union.setParallelism(2)).toThrow(/not to a union or side output/);
    const tag = new OutputTag<number>('side');
    const side = a
      .process<number>({ processElement: (v, ctx) => ctx.output(tag, v) })
      .getSideOutput(tag);
    expect(() => side.uid('s')).toThrow(/not to a union or side output/);
    // A union of one stream is still that stream's step.
    expect(() => a.union().name('a')).not.toThrow();
  });

  it('operatorTest: a step after a union reads both inputs; a connected step reads both streams', async () => {
    const env = new StreamEnvironment();
    const src = env.fromArray([1, 2, 3]);
    const map = src.map((n) => n * 10).uid('map');
    const flatMap = src.flatMap<number>((n, out) => out.collect(-n)).uid('flat-map');
    const unionFilter = map
      .union(flatMap)
      .filter((n) => n % 20 !== 0)
      .uid('union-filter');
    const coMap = map
      .connect(flatMap)
      .map({ map1: (n) => `m${n}`, map2: (n) => `f${n}` })
      .uid('co-map');
    coMap.sinkTo(sink());
    expect(step(env, 'union-filter')).toMatch(/<- \[\d+\] forward, \[\d+\] forward/);
    expect(inputsOf(step(env, 'co-map'))).toHaveLength(2);
    expect((await unionFilter.executeAndCollect()).sort((x, y) => x - y)).toEqual([
      -3, -2, -1, 10, 30,
    ]);
  });
});

describe("Flink's StreamingOperatorsITCase", () => {
  /** A record holding something no serializer could write, as Flink's NonSerializable. */
  class Opaque {
    readonly handle = Symbol('opaque');
    constructor(readonly value: number) {}
  }

  it('testGroupedFoldOperation: a running sum per key (rolling reduce; Weir has no fold), every partial result emitted', async () => {
    const env = new StreamEnvironment({ parallelism: 2 });
    const records = Array.from({ length: 10 }, (_, i) => [1 + (i % 2), i] as [number, number]);
    const out = await env
      .fromArray(records)
      .keyBy((r) => r[0])
      .reduce((acc, r) => [acc[0], acc[1] + r[1]])
      .uid('sum')
      .executeAndCollect();
    const sumsOf = (key: number): number[] =>
      out
        .filter((r) => r[0] === key)
        .map((r) => r[1])
        .sort((a, b) => a - b);
    expect(sumsOf(1)).toEqual([0, 2, 6, 12, 20]);
    expect(sumsOf(2)).toEqual([1, 4, 9, 16, 25]);
  });

  it('testFoldOperationWithNonJavaSerializableType: keyed state of values no serializer could write', async () => {
    const env = new StreamEnvironment({ parallelism: 2 });
    const out = await env
      .fromArray(Array.from({ length: 10 }, (_, i) => ({ key: i, item: new Opaque(i) })))
      .keyBy((r) => r.key)
      .reduce((acc, r) => ({ key: acc.key, item: new Opaque(acc.item.value + r.item.value) }))
      .uid('fold')
      .map((r) => 42 + r.item.value)
      .executeAndCollect();
    expect(out.sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => 42 + i));
  });

  it('testAsyncWaitOperator: ordered and unordered async calls double every record', async () => {
    const env = new StreamEnvironment({ parallelism: 2 });
    const input = env.fromArray(Array.from({ length: 5 }, (_, i) => ({ i, item: new Opaque(i) })));
    // Results complete in reverse order of the calls, so the ordered mode has to wait.
    const double = (r: { i: number }): Promise<number[]> =>
      new Promise((resolve) => setTimeout(() => resolve([r.i + r.i]), 5 * (5 - r.i)));
    const ordered: number[] = [];
    const unordered: number[] = [];
    input
      .flatMapAsync(double, { order: 'ordered', capacity: 2, timeoutMs: 10_000 })
      .setParallelism(1)
      .process<number>({ processElement: (v) => void ordered.push(v) })
      .setParallelism(1);
    input
      .flatMapAsync(double, { order: 'unordered', capacity: 2, timeoutMs: 10_000 })
      .process<number>({ processElement: (v) => void unordered.push(v) });
    await env.execute();
    expect(ordered).toEqual([0, 2, 4, 6, 8]);
    expect(unordered.sort((a, b) => a - b)).toEqual([0, 2, 4, 6, 8]);
  });

  it('testOperatorChainWithObjectReuseAndNoOutputOperators: a job whose last step has no output runs', async () => {
    const env = new StreamEnvironment();
    const seen: number[] = [];
    const shiftLeft = (n: number, out: Collector<number>): void => {
      seen.push(n);
      out.collect(n << 1);
    };
    env.fromArray([1, 2, 3]).flatMap(shiftLeft);
    await env.execute();
    expect(seen).toEqual([1, 2, 3]);
  });
});
