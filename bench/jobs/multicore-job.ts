/**
 * The job module of the multi-core benchmark (every worker loads it):
 *   -- clicks <events> <keys>     the keyed tumbling-window click count
 *   -- nexmark <query> <events>   a Nexmark query over generated events
 * Results go to a sink with uid `results` that only counts them.
 */
import { NexmarkSource } from '../../src/connectors/nexmark/index.js';
import { defineJob, WatermarkStrategy, Windows } from '../../src/index.js';
import { BlackholeSink } from '../nexmark/blackhole-sink.js';
import { nexmarkWatermarks } from '../nexmark/queries/common.js';
import { nexmarkQuery } from '../nexmark/queries/index.js';
import {
  type Click,
  countClicks,
  makeClick,
  OUT_OF_ORDERNESS_MS,
  WINDOW_MS,
} from '../shared/clicks.js';

export default defineJob((env, { args }) => {
  const [workload, a, b] = args;
  if (workload === 'clicks') {
    const keys = Number(b);
    env
      .fromGenerator({ count: Number(a), seed: 7, generate: (i, r) => makeClick(i, r, keys) })
      .assignTimestampsAndWatermarks(
        WatermarkStrategy.forBoundedOutOfOrderness<Click>(
          OUT_OF_ORDERNESS_MS,
        ).withTimestampAssigner((c) => c.time),
      )
      .keyBy((c) => c.user)
      .window(Windows.tumbling(WINDOW_MS))
      .aggregate(countClicks)
      .sinkTo(new BlackholeSink())
      .uid('results');
    return;
  }
  const query = nexmarkQuery(a!);
  const events = env.fromSource(
    new NexmarkSource({ config: { maxEvents: Number(b) } }),
    nexmarkWatermarks(),
  );
  query.build(events).sinkTo(new BlackholeSink()).uid('results');
});
