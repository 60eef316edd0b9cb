/**
 * The CEP benches' events and patterns: generated logins keyed by user (see
 * bench/cep.ts), shared by the throughput and the snapshot benches.
 */
import { Pattern } from '../../src/index.js';
import type { DeterministicRandom } from '../../src/util/random.js';

export interface Event {
  readonly user: number;
  /** 0 failure, 1 success, 2 and 3 other activity; a b c d for the generic patterns. */
  readonly type: number;
  readonly country: number;
  readonly time: number;
}

/** One event per millisecond of event time, up to 500 ms out of order. */
export function makeEvent(i: number, random: DeterministicRandom, keys: number): Event {
  const user = random.int(keys);
  const r = random.next();
  return {
    user,
    type: r < 0.45 ? 0 : r < 0.8 ? 1 : r < 0.9 ? 2 : 3,
    country: random.next() < 0.9 ? user % 8 : random.int(8),
    time: i - random.int(500),
  };
}

const MINUTE = 60_000;

export const patterns = {
  fraud: Pattern.begin<Event>('fail')
    .where((e) => e.type === 0)
    .times(3)
    .consecutive()
    .followedBy('success')
    .where((e, ctx) => e.type === 1 && e.country !== ctx.eventsFor('fail')[0]!.country)
    .within(10 * MINUTE),
  strict3: Pattern.begin<Event>('a')
    .where((e) => e.type === 0)
    .next('b')
    .where((e) => e.type === 1)
    .next('c')
    .where((e) => e.type === 0)
    .within(MINUTE),
  'loop-until': Pattern.begin<Event>('a')
    .where((e) => e.type === 2)
    .followedBy('b')
    .where((e) => e.type === 0)
    .oneOrMore()
    .until((e) => e.type === 1)
    .followedBy('d')
    .where((e) => e.type === 3)
    .within(10 * MINUTE),
} as const;
