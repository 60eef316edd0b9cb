/**
 * Event times are whole epoch ms within ±Number.MAX_SAFE_INTEGER. Anything
 * else (non-numbers, NaN, ±Infinity, fractions, beyond the range) fails the job with
 * INVALID_TIMESTAMP naming the operator, the record and the value.
 */
import { describe, expect, it } from 'vitest';
import { NO_TIMESTAMP } from '../../src/core/record-batch.js';
import { checkTimestamps, invalidTimestamp, isEventTime } from '../../src/core/timestamps.js';
import {
  type PollStatus,
  type RecordBatch,
  type Source,
  type SourceContext,
  type SourceReader,
  StreamEnvironment,
  WatermarkStrategy,
  WeirError,
  Windows,
} from '../../src/index.js';
import { type Ev, ev } from '../helpers/timeline.js';

const MAX = Number.MAX_SAFE_INTEGER;

/**
 * A parallel bounded source that stamps records itself: subtask `s` emits the
 * records at positions `i` with `i % parallelism === s`, stamped `stamps[i]`.
 */
class StampingSource implements Source<Ev> {
  readonly bounded = true;
  readonly parallelizable = true;
  readonly name = 'stamping';
  constructor(
    private readonly records: readonly Ev[],
    private readonly stamps: readonly number[],
  ) {}

  createReader(context: SourceContext): SourceReader<Ev> {
    let done = false;
    return {
      open() {},
      poll: (): RecordBatch<Ev> | PollStatus => {
        if (done) return 'end';
        done = true;
        const values: Ev[] = [];
        const timestamps: number[] = [];
        this.records.forEach((r, i) => {
          if (i % context.parallelism !== context.subtaskIndex) return;
          values.push(r);
          timestamps.push(this.stamps[i]!);
        });
        return { values, timestamps, keys: undefined };
      },
      available: () => Promise.resolve(),
      close() {},
    };
  }
}

async function failure(job: Promise<unknown>): Promise<WeirError> {
  const error = await job.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WeirError);
  return error as WeirError;
}

/** The bad record is the second one, so at parallelism 2 subtask 1 meets it. */
const records = [ev('a', 1, 1), ev('a', 2, 13), ev('a', 3, 3)];
const BAD = '"v":13';

const badValues: [string, number, string][] = [
  ['NaN', Number.NaN, 'NaN'],
  ['+Infinity', Number.POSITIVE_INFINITY, 'Infinity'],
  ['MAX_SAFE_INTEGER + 1', MAX + 1, String(MAX + 1)],
  ['-MAX_SAFE_INTEGER - 1', -MAX - 1, String(-MAX - 1)],
  ['2^60', 2 ** 60, String(2 ** 60)],
  ['a fraction of a millisecond', 2.5, '2.5'],
];

describe.each([1, 2])('refused event times at parallelism %i', (p) => {
  it.each(badValues)('a timestamp assigner returning %s', async (_name, bad, shown) => {
    const env = new StreamEnvironment({ parallelism: p });
    const job = env
      .fromSource(new StampingSource(records, [1, 2, 3]))
      .assignTimestampsAndWatermarks(
        WatermarkStrategy.forMonotonousTimestamps<Ev>().withTimestampAssigner((e) =>
          e.v === 13 ? bad : e.t,
        ),
      )
      .uid('stamps')
      .executeAndCollect();
    const error = await failure(job);
    expect(error.code).toBe('INVALID_TIMESTAMP');
    expect(error.operatorId).toBe('stamps');
    expect(error.record).toContain(BAD);
    expect(error.message).toContain(`timestamp assigner returned ${shown} for record`);
    expect(error.message).toContain("in operator 'stamps'");
    expect(error.message).toContain(`between -${MAX} and ${MAX}`);
  });

  it('a timestamp assigner returning -Infinity', async () => {
    const job = new StreamEnvironment({ parallelism: p })
      .fromSource(new StampingSource(records, [1, 2, 3]))
      .assignTimestampsAndWatermarks(
        WatermarkStrategy.forMonotonousTimestamps<Ev>().withTimestampAssigner((e) =>
          e.v === 13 ? Number.NEGATIVE_INFINITY : e.t,
        ),
      )
      .uid('stamps')
      .executeAndCollect();
    const error = await failure(job);
    expect(error.code).toBe('INVALID_TIMESTAMP');
    expect(error.message).toContain('timestamp assigner returned -Infinity');
  });

  it.each(badValues)('a source stamping %s', async (_name, bad, shown) => {
    const job = new StreamEnvironment({ parallelism: p })
      .fromSource(
        new StampingSource(records, [1, bad, 3]),
        WatermarkStrategy.forMonotonousTimestamps(),
      )
      .uid('from-source')
      .executeAndCollect();
    const error = await failure(job);
    expect(error.code).toBe('INVALID_TIMESTAMP');
    expect(error.operatorId).toBe('from-source');
    expect(error.record).toContain(BAD);
    expect(error.message).toContain(`source attached event time ${shown} for record`);
    expect(error.message).toContain("in operator 'from-source'");
  });

  it('a source that stamps nothing still asks for a timestamp assigner', async () => {
    const job = new StreamEnvironment({ parallelism: p })
      .fromSource(
        new StampingSource(records, [1, NO_TIMESTAMP, 3]),
        WatermarkStrategy.forMonotonousTimestamps(),
      )
      .uid('from-source')
      .executeAndCollect();
    const error = await failure(job);
    expect(error.code).toBe('INVALID_TIMESTAMP');
    expect(error.message).toContain('without an event time');
    expect(error.message).toContain('withTimestampAssigner');
  });

  it('accepts every whole millisecond in the safe-integer range, the extremes included', async () => {
    const stamps = [-MAX, 2, MAX];
    const out = await new StreamEnvironment({ parallelism: p })
      .fromSource(new StampingSource(records, stamps), WatermarkStrategy.noWatermarks())
      .executeAndCollect();
    expect(out).toHaveLength(3);
  });
});

/** Times a custom source may stamp without checking them; a window must refuse each. */
const unchecked: [string, number, string][] = [
  ['undefined', undefined as unknown as number, 'undefined'],
  ['NaN', Number.NaN, 'NaN'],
  ['2^60', 2 ** 60, String(2 ** 60)],
  ['-2^60', -(2 ** 60), String(-(2 ** 60))],
];

describe.each([1, 2])('event-time windows refuse unchecked times at parallelism %i', (p) => {
  it.each(
    unchecked.flatMap(([name, bad, shown]) =>
      (['tumbling', 'session'] as const).map((kind) => [name, kind, bad, shown] as const),
    ),
  )(
    'a source stamping %s, %s windows',
    async (_name, kind, bad, shown) => {
      const job = new StreamEnvironment({ parallelism: p })
        // No strategy: nothing between the source and the window checks its times.
        .fromSource(new StampingSource(records, [1, bad, 3]))
        .keyBy((e) => e.k)
        .window(kind === 'tumbling' ? Windows.tumbling(10) : Windows.session(10))
        .aggregate({
          createAccumulator: () => 0,
          add: (_e: Ev, n: number) => n + 1,
          getResult: (n) => n,
          merge: (a, b) => a + b,
        })
        .uid('counts')
        .executeAndCollect();
      // A window that took the record would spin at the next watermark: the
      // test's own timeout catches that.
      const error = await failure(job);
      expect(error.code).toBe('INVALID_TIMESTAMP');
      expect(error.operatorId).toBe('counts');
      expect(error.record).toContain(BAD);
      expect(error.message).toContain(`with timestamp ${shown}, which is not an event time`);
    },
    10_000,
  );
});

describe('the shared check', () => {
  it('isEventTime accepts whole numbers in the safe-integer range only', () => {
    for (const t of [0, -1, 1_700_000_000_000, MAX, -MAX]) expect(isEventTime(t)).toBe(true);
    for (const t of [
      0.5,
      -1.25,
      Number.NaN,
      MAX + 1,
      -MAX - 1,
      Number.POSITIVE_INFINITY,
      NO_TIMESTAMP,
      '1',
      undefined,
    ]) {
      expect(isEventTime(t)).toBe(false);
    }
  });

  it('checkTimestamps passes unstamped records and returns the batch', () => {
    const batch = { values: [1, 2, 3], timestamps: [NO_TIMESTAMP, 5, -MAX], keys: undefined };
    expect(checkTimestamps(batch, 'src', 'source attached event time')).toBe(batch);
  });

  it('checkTimestamps names the operator, the record and the value', () => {
    const batch = { values: [{ id: 1 }, { id: 2 }], timestamps: [5, 2 ** 60], keys: undefined };
    let error: unknown;
    try {
      checkTimestamps(batch, 'orders', 'Kafka record timestamp is');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(WeirError);
    expect((error as WeirError).code).toBe('INVALID_TIMESTAMP');
    expect((error as WeirError).operatorId).toBe('orders');
    expect((error as WeirError).record).toBe('{"id":2}');
    expect((error as WeirError).message).toBe(
      `Kafka record timestamp is ${2 ** 60} for record {"id":2} in operator 'orders'; event time must be a whole number of epoch milliseconds between -${MAX} and ${MAX}`,
    );
  });

  it('renders a non-number as data', () => {
    expect(invalidTimestamp('op', 'timestamp assigner returned', 1, '3').message).toContain(
      'timestamp assigner returned "3" for record 1',
    );
  });
});
