/**
 * Flink's BroadcastStateITCase scenario: a keyed stream connected to a
 * broadcast stream; the keyed side sets event-time timers far ahead, and each
 * timer, firing once both inputs ended, must see the whole broadcast state.
 */
import { describe, expect, it } from 'vitest';
import {
  type KeyedBroadcastProcessFunction,
  StreamEnvironment,
  WatermarkStrategy,
} from '../../src/index.js';

/** Punctuated: a watermark at every record's own time, as Flink's test emitter. */
function punctuated<T>(timeOf: (value: T) => number): WatermarkStrategy<T> {
  return WatermarkStrategy.forGenerator<T>(() => ({
    onEvent(_value, timestamp, output) {
      output.emitWatermark(timestamp);
    },
  })).withTimestampAssigner(timeOf);
}

describe("Flink's BroadcastStateITCase", () => {
  it.each([1, 3])(
    'every timer of the keyed side reads the complete broadcast state (parallelism %i)',
    async (parallelism) => {
      const expected = new Map(
        Array.from({ length: 6 }, (_, i): [number, string] => [i, `test:${i}`]),
      );
      const env = new StreamEnvironment({ parallelism, batchSize: 1 });
      const keyed = env
        .fromArray([0, 1, 2, 3, 4, 5])
        .assignTimestampsAndWatermarks(punctuated<number>((n) => n))
        .keyBy((n) => n);
      const rules = env
        .fromArray([...expected.values()])
        .assignTimestampsAndWatermarks(punctuated<string>((s) => Number(s.split(':')[1])));

      type Fn = KeyedBroadcastProcessFunction<number, number, string, string, number, string> & {
        next?: number;
        expectedKey?: Map<number, number>;
      };
      const fn: Fn = {
        open() {
          this.next = 100_000;
          this.expectedKey = new Map();
        },
        processElement(value, ctx) {
          const time = this.next!++;
          ctx.timerService.registerEventTimeTimer(time);
          this.expectedKey!.set(time, value);
        },
        processBroadcastElement(value, ctx) {
          ctx.broadcastState.put(Number(value.split(':')[1]), value);
        },
        onTimer(time, ctx, out) {
          expect(ctx.key).toBe(this.expectedKey!.get(time));
          expect(new Map(ctx.broadcastState.entries())).toEqual(expected);
          out.collect(`${ctx.key}@${time}`);
        },
      };
      const out = await keyed.connectBroadcast(rules, fn).executeAndCollect();
      expect(out).toHaveLength(expected.size);
      expect(out.map((s) => Number(s.split('@')[0])).sort()).toEqual([0, 1, 2, 3, 4, 5]);
    },
    60_000,
  );
});
