import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  OutputTag,
  StreamEnvironment,
  WatermarkStrategy,
  type WindowResult,
  Windows,
} from '../../src/index.js';

interface Ev {
  readonly k: string;
  readonly t: number;
}

/*
 * tumbling 10, bound 0:  a@1 a@4 | a@12 | a@3 (late: the watermark is at 12)
 *                        0       10     20
 */
const input: Ev[] = [
  { k: 'a', t: 1 },
  { k: 'a', t: 4 },
  { k: 'a', t: 12 },
  { k: 'a', t: 3 },
];

function counts(env: StreamEnvironment, late: OutputTag<Ev>) {
  return env
    .fromArray(input)
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forMonotonousTimestamps<Ev>().withTimestampAssigner((e) => e.t),
    )
    .keyBy((e) => e.k)
    .window(Windows.tumbling(10))
    .sideOutputLateData(late)
    .aggregate({
      createAccumulator: () => 0,
      add: (_e: Ev, n: number) => n + 1,
      getResult: (n: number) => n,
    });
}

describe('executeAndCollect', () => {
  it('collects the side outputs it is given, typed per tag, besides the records', async () => {
    const env = new StreamEnvironment({ batchSize: 1 });
    const late = new OutputTag<Ev>('late');
    const collected = await counts(env, late).executeAndCollect({ sideOutputs: { late } });
    expectTypeOf(collected.records).toEqualTypeOf<WindowResult<string, number>[]>();
    expectTypeOf(collected.sideOutputs).toEqualTypeOf<{ late: Ev[] }>();
    expect(collected.records.map((r) => [r.key, r.window.start, r.value])).toEqual([
      ['a', 0, 2],
      ['a', 10, 1],
    ]);
    expect(collected.sideOutputs.late).toEqual([{ k: 'a', t: 3 }]);
  });

  it('still returns only the records when called with a job name', async () => {
    const env = new StreamEnvironment({ batchSize: 1 });
    const records = await counts(env, new OutputTag<Ev>('late')).executeAndCollect('counts');
    expectTypeOf(records).toEqualTypeOf<WindowResult<string, number>[]>();
    expect(records.map((r) => r.value)).toEqual([2, 1]);
  });
});
