/**
 * The windowed job of bench/replay.ts: JSON clicks from a Kafka topic, read
 * to its current end, counted per user in one-minute tumbling windows into
 * memory. The same module runs streaming (`runJobModule`) and replayed
 * (`replayJob`).
 *
 * Arguments: <topic> <brokers>
 */
import { KafkaFormats, KafkaSource } from '../../src/connectors/kafka/index.js';
import { CollectSink, defineJob, Time, WatermarkStrategy, Windows } from '../../src/index.js';

export interface Click {
  readonly user: string;
  readonly page: string;
  readonly t: number;
}

export default defineJob((env, ctx) => {
  const [topic, brokers] = ctx.args;
  env
    .fromSource(
      new KafkaSource<Click>({
        brokers: brokers!.split(','),
        topics: [topic!],
        stopAt: 'latest',
        format: KafkaFormats.json<Click>(),
        watermarks: WatermarkStrategy.forBoundedOutOfOrderness<Click>(
          Time.seconds(2),
        ).withTimestampAssigner((c) => c.t),
      }),
    )
    .uid('clicks')
    .keyBy((c) => c.user)
    .window(Windows.tumbling(Time.minutes(1)))
    .aggregate({
      createAccumulator: () => 0,
      add: (_c: Click, n: number) => n + 1,
      getResult: (n: number) => n,
      merge: (a: number, b: number) => a + b,
    })
    .uid('counts')
    .sinkTo(new CollectSink())
    .uid('sink');
});
