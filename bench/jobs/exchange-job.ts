/**
 * The job module of the worker exchange benchmark (every worker loads it):
 *   -- <payload> <events>
 * Nexmark bids (`bids`) or small `{ key, value }` records (`small`), keyed by
 * a well-spread key and passed on unchanged to a sink with uid `results` that
 * only counts them. At parallelism 2 on two workers about half of the records
 * cross to the other worker at the keyed exchange; on one thread none do.
 */
import { NexmarkSource } from '../../src/connectors/nexmark/index.js';
import { defineJob } from '../../src/index.js';
import { BlackholeSink } from '../nexmark/blackhole-sink.js';
import { bids, nexmarkWatermarks } from '../nexmark/queries/common.js';

export default defineJob((env, { args }) => {
  const [payload, events] = args;
  const count = Number(events);
  if (payload === 'bids') {
    const source = env.fromSource(
      new NexmarkSource({ config: { maxEvents: count } }),
      nexmarkWatermarks(),
    );
    bids(source)
      .keyBy((b) => b.bidder, 'bidder')
      .map((b) => b)
      .sinkTo(new BlackholeSink())
      .uid('results');
    return;
  }
  if (payload !== 'small') throw new Error(`payload must be bids or small, got '${payload}'`);
  env
    .fromGenerator({ count, seed: 3, generate: (i) => ({ key: i, value: i * 2 }) })
    .keyBy((r) => r.key, 'key')
    .map((r) => r)
    .sinkTo(new BlackholeSink())
    .uid('results');
});
