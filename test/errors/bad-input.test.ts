import { describe, expect, it } from 'vitest';
import {
  type DataStream,
  DiscardingSink,
  type Key,
  OutputTag,
  StreamEnvironment,
  Triggers,
  WatermarkStrategy,
  WeirError,
  type WeirErrorCode,
  Windows,
} from '../../src/index.js';
import { envImpl } from '../helpers/internals.js';
import {
  bounded,
  countSum,
  type Ev,
  env1,
  ev,
  ScriptedSource,
  sumReduce,
} from '../helpers/timeline.js';

/** Every failing job must fail fast: no test here may take more than this. */
const FAST = 3000;

/** Awaits a rejection and checks it is a WeirError with the code and message parts. */
async function rejectsWith(
  run: Promise<unknown>,
  code: WeirErrorCode,
  ...parts: (string | RegExp)[]
): Promise<WeirError> {
  let caught: unknown;
  try {
    await run;
  } catch (e) {
    caught = e;
  }
  expect(caught, 'the job should have failed').toBeInstanceOf(WeirError);
  const error = caught as WeirError;
  expect(error.code, error.message).toBe(code);
  for (const part of parts) {
    if (typeof part === 'string') expect(error.message).toContain(part);
    else expect(error.message).toMatch(part);
  }
  return error;
}

/** Expects a synchronous WeirError INVALID_ARGUMENT with a message matching `pattern`. */
function throwsInvalid(build: () => unknown, pattern: RegExp): void {
  let caught: unknown;
  try {
    build();
  } catch (e) {
    caught = e;
  }
  expect(caught, `expected ${pattern} to be thrown`).toBeInstanceOf(WeirError);
  expect((caught as WeirError).code).toBe('INVALID_ARGUMENT');
  expect((caught as WeirError).message).toMatch(pattern);
}

function boom(): never {
  throw new Error('boom');
}

const input = [ev('a', 1, 1), ev('b', 2, 2), ev('a', 3, 13)];
const BAD = '{"k":"a","t":3,"v":13}';

function timed(env: StreamEnvironment): DataStream<Ev> {
  return env.fromArray(input).assignTimestampsAndWatermarks(bounded(0));
}

describe('user functions that throw fail the job with USER_FUNCTION_FAILED', () => {
  it.each([1, 4])(
    'map (parallelism %i)',
    async (p) => {
      // Through env.execute(), after a rebalance so the map runs in several subtasks.
      const env = new StreamEnvironment({ parallelism: p });
      env
        .fromArray(input)
        .rebalance()
        .map((e) => (e.v === 13 ? boom() : e))
        .uid('my-map')
        .sinkTo(new DiscardingSink<Ev>());
      const error = await rejectsWith(
        env.execute(),
        'USER_FUNCTION_FAILED',
        "'my-map'",
        BAD,
        'boom',
      );
      expect(error.operatorId).toBe('my-map');
      expect(error.record).toBe(BAD);
      expect(error.domain).toBe('user');
      expect((error.cause as Error).message).toBe('boom');
    },
    FAST,
  );

  it(
    'filter',
    async () => {
      const job = new StreamEnvironment()
        .fromArray(input)
        .filter((e) => (e.v === 13 ? boom() : true))
        .uid('my-filter')
        .executeAndCollect();
      await rejectsWith(job, 'USER_FUNCTION_FAILED', "'my-filter'", BAD, 'boom');
    },
    FAST,
  );

  it(
    'flatMap',
    async () => {
      const job = new StreamEnvironment()
        .fromArray(input)
        .flatMap<Ev>((e, out) => (e.v === 13 ? boom() : out.collect(e)))
        .uid('my-flat-map')
        .executeAndCollect();
      await rejectsWith(job, 'USER_FUNCTION_FAILED', "'my-flat-map'", BAD);
    },
    FAST,
  );

  it(
    'keyed rolling reduce',
    async () => {
      const job = new StreamEnvironment({ parallelism: 2 })
        .fromArray(input)
        .keyBy((e) => e.k)
        .reduce((a, b) => (b.v === 13 ? boom() : sumReduce(a, b)))
        .uid('running-sum')
        .executeAndCollect();
      await rejectsWith(job, 'USER_FUNCTION_FAILED', "'running-sum'", BAD, 'boom');
    },
    FAST,
  );

  it(
    'window reduce',
    async () => {
      const env = env1();
      const job = timed(env)
        .keyBy((e) => e.k)
        .window(Windows.tumbling(10))
        .reduce((a, b) => (b.v === 13 ? boom() : a))
        .uid('window-sum')
        .executeAndCollect();
      await rejectsWith(job, 'USER_FUNCTION_FAILED', "'window-sum'", BAD, 'boom');
    },
    FAST,
  );

  it(
    'window aggregate (general operator)',
    async () => {
      const job = timed(env1())
        .keyBy((e) => e.k)
        .window(Windows.session(5))
        .aggregate({ ...countSum, add: (e, acc) => (e.v === 13 ? boom() : countSum.add(e, acc)) })
        .uid('sessions')
        .executeAndCollect();
      await rejectsWith(job, 'USER_FUNCTION_FAILED', "'sessions'", BAD, 'boom');
    },
    FAST,
  );

  it(
    'process window function (fails when the window fires; the message names the window and key)',
    async () => {
      const job = timed(env1())
        .keyBy((e) => e.k)
        .window(Windows.tumbling(10))
        .process<string>({ process: () => boom() })
        .uid('window-fn')
        .executeAndCollect();
      await rejectsWith(job, 'USER_FUNCTION_FAILED', "'window-fn'", '[0, 10)', '"key":"a"', 'boom');
    },
    FAST,
  );

  it(
    'process window function fired by processing time',
    async () => {
      const source = new ScriptedSource<Ev>([{ records: [ev('a', 0)] }, { pauseMs: 2000 }], true);
      const job = new StreamEnvironment()
        .fromSource(source)
        .keyBy((e) => e.k)
        .window(Windows.tumblingProcessingTime(20))
        .process<string>({ process: () => boom() })
        .uid('pt-window')
        .executeAndCollect();
      await rejectsWith(job, 'USER_FUNCTION_FAILED', "'pt-window'", 'boom');
    },
    FAST,
  );

  it(
    'process function',
    async () => {
      const job = new StreamEnvironment()
        .fromArray(input)
        .process<Ev>({ processElement: (e, _ctx, out) => (e.v === 13 ? boom() : out.collect(e)) })
        .uid('my-process')
        .executeAndCollect();
      await rejectsWith(job, 'USER_FUNCTION_FAILED', "'my-process'", BAD, 'boom');
    },
    FAST,
  );

  it(
    'keyed process function: processElement and onTimer',
    async () => {
      const element = new StreamEnvironment({ parallelism: 2 })
        .fromArray(input)
        .keyBy((e) => e.k)
        .process<Ev>({ processElement: (e, _ctx, out) => (e.v === 13 ? boom() : out.collect(e)) })
        .uid('keyed-fn')
        .executeAndCollect();
      await rejectsWith(element, 'USER_FUNCTION_FAILED', "'keyed-fn'", BAD, 'boom');

      const timer = timed(env1())
        .keyBy((e) => e.k)
        .process<Ev>({
          processElement: (e, ctx) => ctx.timerService.registerEventTimeTimer(e.t + 100),
          onTimer: () => boom(),
        })
        .uid('timer-fn')
        .executeAndCollect();
      await rejectsWith(timer, 'USER_FUNCTION_FAILED', "'timer-fn'", 'onTimer(101)', '"key":"a"');
    },
    FAST,
  );

  it(
    'a key selector that throws',
    async () => {
      const job = new StreamEnvironment()
        .fromArray(input)
        .keyBy((e) => (e.v === 13 ? boom() : e.k), 'by-k')
        .process<Ev>({ processElement: (e, _ctx, out) => out.collect(e) })
        .executeAndCollect();
      await rejectsWith(job, 'USER_FUNCTION_FAILED', 'key selector', BAD, 'boom');
    },
    FAST,
  );

  it(
    'a failure in an unbounded job still ends it',
    async () => {
      const source = new ScriptedSource<Ev>([{ records: [ev('a', 1, 13)] }], false);
      const job = new StreamEnvironment()
        .fromSource(source)
        .map((e) => (e.v === 13 ? boom() : e))
        .uid('unbounded-map')
        .executeAndCollect();
      await rejectsWith(job, 'USER_FUNCTION_FAILED', "'unbounded-map'");
    },
    FAST,
  );

  it(
    'a non-Error throw is reported too',
    async () => {
      const job = new StreamEnvironment()
        .fromArray([1])
        .map((): number => {
          throw 'plain string';
        })
        .uid('throws-string')
        .executeAndCollect();
      await rejectsWith(job, 'USER_FUNCTION_FAILED', "'throws-string'", 'plain string');
    },
    FAST,
  );
});

describe('invalid timestamps fail the job with INVALID_TIMESTAMP', () => {
  const cases: [string, (e: Ev) => number, string][] = [
    ['NaN', () => Number.NaN, 'NaN'],
    ['a string', (e) => String(e.t) as unknown as number, '"3"'],
    ['undefined', () => undefined as unknown as number, 'undefined'],
    ['Infinity', () => Number.POSITIVE_INFINITY, 'Infinity'],
  ];
  it.each(cases)(
    'timestamp assigner returning %s',
    async (_name, assign, shown) => {
      const job = new StreamEnvironment()
        .fromArray([ev('a', 3, 13)])
        .assignTimestampsAndWatermarks(
          WatermarkStrategy.forBoundedOutOfOrderness<Ev>(0).withTimestampAssigner(assign),
        )
        .uid('stamps')
        .executeAndCollect();
      const error = await rejectsWith(
        job,
        'INVALID_TIMESTAMP',
        "'stamps'",
        BAD,
        `returned ${shown}`,
      );
      expect(error.operatorId).toBe('stamps');
    },
    FAST,
  );

  it(
    'a timestamp assigner that throws is a user function failure',
    async () => {
      const job = new StreamEnvironment()
        .fromArray([ev('a', 3, 13)])
        .assignTimestampsAndWatermarks(
          WatermarkStrategy.forBoundedOutOfOrderness<Ev>(0).withTimestampAssigner(() => boom()),
        )
        .uid('stamps')
        .executeAndCollect();
      await rejectsWith(job, 'USER_FUNCTION_FAILED', "'stamps'", BAD, 'boom');
    },
    FAST,
  );

  it(
    'a strategy without a timestamp assigner over records without event time',
    async () => {
      const job = new StreamEnvironment()
        .fromArray([ev('a', 3, 13)])
        .assignTimestampsAndWatermarks(WatermarkStrategy.forMonotonousTimestamps<Ev>())
        .uid('stamps')
        .executeAndCollect();
      await rejectsWith(
        job,
        'INVALID_TIMESTAMP',
        "'stamps'",
        BAD,
        'without an event time',
        'withTimestampAssigner',
      );
    },
    FAST,
  );

  it(
    'records without event time reaching an event-time window',
    async () => {
      for (const assigner of [Windows.tumbling(10), Windows.sliding(10, 5), Windows.session(5)]) {
        const job = new StreamEnvironment()
          .fromArray([ev('a', 3, 13)])
          .keyBy((e) => e.k)
          .window(assigner)
          .aggregate(countSum)
          .uid('no-time')
          .executeAndCollect();
        await rejectsWith(
          job,
          'INVALID_TIMESTAMP',
          "'no-time'",
          BAD,
          'assignTimestampsAndWatermarks',
        );
      }
    },
    FAST,
  );
});

describe('event time +Infinity reaching an event-time window', () => {
  it.each<[string, 'slices' | 'general']>([
    ['tumbling (slice operator)', 'slices'],
    ['session (general operator)', 'general'],
  ])(
    'results of a count window (stamped +inf) windowed again: %s',
    async (_name, path) => {
      const keyed = new StreamEnvironment()
        .fromArray(input)
        .keyBy((e) => e.k)
        .countWindow(2)
        .reduce(sumReduce)
        .map((r) => r.value)
        .keyBy((e) => e.k);
      const job = keyed
        .window(path === 'slices' ? Windows.tumbling(10) : Windows.session(10))
        .aggregate(countSum)
        .uid('again')
        .executeAndCollect();
      await rejectsWith(
        job,
        'INVALID_TIMESTAMP',
        "'again'",
        'event time Infinity',
        'assignTimestampsAndWatermarks',
      );
    },
    FAST,
  );
});

describe('invalid window definitions are rejected when the job is built', () => {
  it('tumbling sizes and offsets', () => {
    throwsInvalid(
      () => Windows.tumbling(0),
      /tumbling window size must be a positive whole number of ms, got 0/,
    );
    throwsInvalid(() => Windows.tumbling(-10), /tumbling window size .* got -10/);
    throwsInvalid(() => Windows.tumbling(1.5), /tumbling window size .* got 1.5/);
    throwsInvalid(() => Windows.tumbling(Number.NaN), /tumbling window size .* got NaN/);
    throwsInvalid(() => Windows.tumbling(Number.POSITIVE_INFINITY), /tumbling window size/);
    throwsInvalid(
      () => Windows.tumbling(10, 10),
      /offset must be a whole number of ms smaller than 10, got 10/,
    );
    throwsInvalid(() => Windows.tumbling(10, 2.5), /offset/);
    throwsInvalid(() => Windows.tumblingProcessingTime(0), /tumbling window size/);
  });

  it('sliding sizes, slides and offsets', () => {
    throwsInvalid(() => Windows.sliding(0, 1), /sliding window size .* got 0/);
    throwsInvalid(() => Windows.sliding(10, 0), /sliding window slide .* got 0/);
    throwsInvalid(() => Windows.sliding(10, -1), /sliding window slide .* got -1/);
    throwsInvalid(() => Windows.sliding(10, 2.5), /sliding window slide .* got 2.5/);
    throwsInvalid(
      () => Windows.sliding(10, 20),
      /slide \(20 ms\) must not exceed its size \(10 ms\)/,
    );
    throwsInvalid(() => Windows.sliding(10, 5, 5), /offset .* smaller than 5, got 5/);
    throwsInvalid(() => Windows.slidingProcessingTime(10, 11), /must not exceed/);
  });

  it('session gaps', () => {
    throwsInvalid(
      () => Windows.session(0),
      /session gap must be a positive whole number of ms, got 0/,
    );
    throwsInvalid(() => Windows.session(-5), /session gap .* got -5/);
    throwsInvalid(() => Windows.session(Number.NaN), /session gap .* got NaN/);
    throwsInvalid(() => Windows.sessionProcessingTime(0), /session gap/);
  });

  it('allowed lateness', () => {
    const windowed = () =>
      timed(env1())
        .keyBy((e) => e.k)
        .window(Windows.tumbling(10));
    throwsInvalid(
      () => windowed().allowedLateness(-1),
      /allowed lateness must be a whole number of ms >= 0, got -1/,
    );
    throwsInvalid(() => windowed().allowedLateness(0.5), /allowed lateness .* got 0.5/);
    throwsInvalid(() => windowed().allowedLateness(Number.NaN), /allowed lateness .* got NaN/);
    throwsInvalid(() => windowed().allowedLateness(Number.POSITIVE_INFINITY), /allowed lateness/);
  });

  it('triggers, window functions and idleness', () => {
    throwsInvalid(() => Triggers.count(0), /count trigger needs a positive whole number, got 0/);
    throwsInvalid(() => Triggers.continuousEventTime(0), /interval/);
    throwsInvalid(() => Triggers.continuousProcessingTime(-1), /interval/);
    throwsInvalid(() => WatermarkStrategy.forMonotonousTimestamps().withIdleness(0), /idleness/);
    const sessions = () =>
      timed(env1())
        .keyBy((e) => e.k)
        .window(Windows.session(10));
    throwsInvalid(
      () =>
        sessions().aggregate({
          createAccumulator: () => 0,
          add: (_e: Ev, n: number) => n + 1,
          getResult: (n: number) => n,
        }),
      /session windows needs AggregateFunction.merge/,
    );
    throwsInvalid(
      () => sessions().trigger({ ...Triggers.count<Ev>(2), onMerge: undefined }),
      /session windows need a trigger that supports merging/,
    );
  });

  it(
    'a dynamic session gap that is not a positive number fails the job',
    async () => {
      const job = timed(env1())
        .keyBy((e) => e.k)
        .window(Windows.dynamicSession<Ev>((e) => (e.v === 13 ? -1 : 10)))
        .aggregate(countSum)
        .uid('dyn')
        .executeAndCollect();
      await rejectsWith(job, 'INVALID_ARGUMENT', "'dyn'", 'returned -1', BAD);
    },
    FAST,
  );
});

describe('invalid keys and jobs', () => {
  const keyedBy = (selectKey: (e: Ev) => Key) =>
    new StreamEnvironment({ parallelism: 2 })
      .fromArray(input)
      .keyBy(selectKey, 'by-bad-key')
      .window(Windows.global())
      .aggregate(countSum)
      .executeAndCollect();

  it.each<[string, (e: Ev) => unknown, string]>([
    ['an object', (e) => ({ k: e.k }), '{"k":"a"}'],
    ['an array', (e) => [e.k], '["a"]'],
    ['undefined', () => undefined, 'undefined'],
    ['null', () => null, 'null'],
    // describeRecord renders NaN as JSON does ("null"); see the report.
    ['NaN', () => Number.NaN, ''],
  ])(
    'a key selector returning %s',
    async (_name, selectKey, shown) => {
      await rejectsWith(
        keyedBy(selectKey as (e: Ev) => Key),
        'INVALID_ARGUMENT',
        'by-bad-key',
        `returned ${shown}`,
        'keys must be a string, a number (not NaN), a bigint or a boolean',
      );
    },
    FAST,
  );

  it(
    'duplicate uids make the job invalid',
    async () => {
      const env = new StreamEnvironment();
      env
        .fromArray([1, 2])
        .map((x) => x + 1)
        .uid('same')
        .map((x) => x * 2)
        .uid('same')
        .sinkTo({ name: 'nowhere', createWriter: () => ({ write() {}, close() {} }) });
      await rejectsWith(env.execute(), 'INVALID_JOB', "operator id 'same'", 'unique');
      // The environment is usable again after a rejected job (it did not start).
      expect(() => envImpl(env).plan()).toThrow(/operator id 'same'/);
    },
    FAST,
  );

  it('an empty uid is rejected at once', () => {
    throwsInvalid(
      () =>
        new StreamEnvironment()
          .fromArray([1])
          .map((x) => x)
          .uid(''),
      /uid must not be empty/,
    );
  });

  it('uid() on a side output or union is rejected at once', () => {
    const env = new StreamEnvironment();
    const s = env.fromArray([1]);
    throwsInvalid(
      () => s.union(env.fromArray([2])).uid('u'),
      /uid\(\) applies to an operator's output/,
    );
    throwsInvalid(
      () =>
        s
          .map((x) => x)
          .getSideOutput(new OutputTag<number>('t'))
          .uid('x'),
      /uid\(\) applies to an operator's output/,
    );
  });
});
