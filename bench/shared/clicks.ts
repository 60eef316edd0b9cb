/**
 * The workload of the keyed window benchmarks: generated clicks, counted per
 * user in 1 s tumbling event-time windows with 1 s of allowed disorder.
 */
import type { AggregateFunction, DeterministicRandom } from '../../src/index.js';

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
