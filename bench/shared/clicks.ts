/**
 * The workload of the keyed window benchmarks: generated clicks, counted per
 * user in 1 s tumbling event-time windows with 1 s of allowed disorder.
 */
import {
  type AggregateFunction,
  DiscardingSink,
  type StreamEnvironment,
  WatermarkStrategy,
  type WindowResult,
  Windows,
} from '../../src/index.js';
import type { DeterministicRandom } from '../../src/util/random.js';

export interface Click {
  readonly user: number;
  readonly page: number;
  readonly time: number;
}

export const WINDOW_MS = 1000;
export const OUT_OF_ORDERNESS_MS = 1000;
/** Event time advances 1 ms per 100 events: 10M events span 100 s of event time. */
export const EVENTS_PER_MS = 100;

/** Click number `index`, with up to 500 ms of disorder. */
export function makeClick(index: number, random: DeterministicRandom, keys: number): Click {
  return {
    user: random.int(keys),
    page: random.int(50),
    time: Math.floor(index / EVENTS_PER_MS) - random.int(500),
  };
}

export const countClicks: AggregateFunction<Click, number, number> = {
  createAccumulator: () => 0,
  add: (_c, n) => n + 1,
  getResult: (n) => n,
  merge: (a, b) => a + b,
};

/**
 * The benchmark job on `env`: generated clicks -> watermarks -> keyBy(user)
 * -> 1 s tumbling count -> `onResult` -> a discarding sink.
 */
export function addClickCountJob(
  env: StreamEnvironment,
  events: number,
  keys: number,
  onResult: (result: WindowResult<number, number>) => void,
): void {
  env
    .fromGenerator({ count: events, seed: 7, generate: (i, r) => makeClick(i, r, keys) })
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forBoundedOutOfOrderness<Click>(OUT_OF_ORDERNESS_MS).withTimestampAssigner(
        (c) => c.time,
      ),
    )
    .keyBy((c) => c.user)
    .window(Windows.tumbling(WINDOW_MS))
    .aggregate(countClicks)
    .map((r) => {
      onResult(r);
      return r;
    })
    .sinkTo(new DiscardingSink());
}
