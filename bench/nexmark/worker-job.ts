/**
 * The Nexmark benchmark's job as a module, for Weir's worker mode (`--workers N`): every worker
 * thread loads it to build the same graph. Arguments: the query's name and the generator
 * parameters as JSON. Results go to a sink with uid `results` that only counts them.
 */
import { type NexmarkConfig, NexmarkSource } from '../../src/connectors/nexmark/index.js';
import { defineJob } from '../../src/index.js';
import { BlackholeSink } from './blackhole-sink.js';
import { nexmarkWatermarks } from './queries/common.js';
import { nexmarkQuery } from './queries/index.js';

export default defineJob((env, { args }) => {
  const [name, configJson] = args;
  if (name === undefined || configJson === undefined) {
    throw new Error(
      `expected arguments <query> <generator config JSON>, got ${JSON.stringify(args)}`,
    );
  }
  const config = JSON.parse(configJson) as Partial<NexmarkConfig>;
  const events = env.fromSource(new NexmarkSource({ config }), nexmarkWatermarks());
  nexmarkQuery(name).build(events).sinkTo(new BlackholeSink()).uid('results');
});
