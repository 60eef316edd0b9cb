/**
 * The fluent API's public types are its interfaces (src/api/streams.ts) over
 * unexported implementation classes. That every class matches its interface
 * is the compiler's job (`implements`); this file checks what it does not:
 * the public types show no internal member, `StreamEnvironment` still works
 * as a class for users, and a stream the API did not build is refused by
 * name.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { DataStreamImpl } from '../../src/api/data-stream.js';
import { StreamEnvironmentImpl } from '../../src/api/environment.js';
import { implOf } from '../../src/api/impl-of.js';
import {
  type ChangelogStream,
  type DataStream,
  type KeyedStream,
  StreamEnvironment,
  type StreamEnvironmentApi,
  type TableView,
  type WindowedStream,
  Windows,
} from '../../src/index.js';

interface Row {
  readonly id: string;
  readonly n: number;
}

/** Names the implementations use among themselves, which no public type may show. */
type Internal =
  | 'builder'
  | 'refs'
  | 'graph'
  | 'streams'
  | 'plan'
  | 'changelogMode'
  | 'partitioning'
  | 'retractable'
  | 'input'
  | 'setJobModule'
  | 'collectInto'
  | 'executeForCollect'
  | 'localAggregation';

describe('public stream types', () => {
  it('show no internal member', () => {
    expectTypeOf<Extract<keyof DataStream<Row>, Internal>>().toEqualTypeOf<never>();
    expectTypeOf<Extract<keyof KeyedStream<Row, string>, Internal>>().toEqualTypeOf<never>();
    expectTypeOf<Extract<keyof WindowedStream<Row, string>, Internal>>().toEqualTypeOf<never>();
    expectTypeOf<Extract<keyof ChangelogStream<Row>, Internal>>().toEqualTypeOf<never>();
    expectTypeOf<Extract<keyof TableView<Row, string>, Internal>>().toEqualTypeOf<never>();
  });

  it('an environment has exactly the documented members', () => {
    expectTypeOf<keyof StreamEnvironment>().toEqualTypeOf<
      | 'parallelism'
      | 'maxParallelism'
      | 'workerCount'
      | 'setRestartStrategy'
      | 'fromSource'
      | 'fromArray'
      | 'fromGenerator'
      | 'fromFile'
      | 'watchDirectory'
      | 'execute'
      | 'executeAsync'
      | 'explain'
    >();
  });
});

describe('StreamEnvironment', () => {
  it('constructs and is recognised with instanceof, as a class would be', () => {
    const env = new StreamEnvironment({ parallelism: 2 });
    expectTypeOf(env).toEqualTypeOf<StreamEnvironmentApi>();
    expect(env).toBeInstanceOf(StreamEnvironment);
    expect(env instanceof StreamEnvironment).toBe(true);
    expect({ parallelism: 2 } instanceof StreamEnvironment).toBe(false);
    expect(env.parallelism).toBe(2);
    expect(() => new StreamEnvironment({ parallelism: 0 })).toThrow(/parallelism/);
  });

  it('explains its plan', () => {
    const env = new StreamEnvironment();
    env
      .fromArray([{ id: 'a', n: 1 }])
      .keyBy((r) => r.id)
      .window(Windows.tumbling(10))
      .reduce((a) => a);
    expect(env.explain()).toMatch(/window reduce/);
  });
});

describe('implOf', () => {
  it('returns the implementation, and names the method given an imitation', () => {
    const env = new StreamEnvironmentImpl();
    const stream = env.fromArray([1]);
    expect(implOf(stream, DataStreamImpl, 'union')).toBe(stream);
    expect(() => implOf({ map: () => stream }, DataStreamImpl, 'union')).toThrow(
      /union\(\) needs a stream built by this environment's API/,
    );
  });

  it('guards the methods that take another stream', () => {
    const env = new StreamEnvironment();
    const stream = env.fromArray([1]);
    const imitation = { map: () => stream } as unknown as DataStream<number>;
    expect(() => stream.union(imitation)).toThrow(/union\(\) needs a stream built/);
    expect(() => stream.join(imitation)).toThrow(/join\(\) needs a stream built/);
    expect(() =>
      stream.keyBy((n) => n).intervalJoin(imitation as unknown as KeyedStream<number, number>),
    ).toThrow(/intervalJoin\(\) needs a stream built/);
  });
});
