/**
 * The job module of the cluster benchmark (every process of a group loads it):
 *   -- kafka <input topic> <output topic> <member>
 *   -- keyed <input topic> <output topic> <member> [<state bytes per key>]
 *   -- generator <output topic> <member> <records per second> [<state keys>]
 * `kafka`: a per-record job (parse, tag with the member, write), run
 * partitioned by the group. `keyed`: the same through a keyed stage (a
 * running count per key of 64, so every record has keyed state to move;
 * with `<state bytes per key>`, each key also holds a string that long),
 * one output per record. `generator`: numbered records at a steady rate,
 * a source that is not Kafka, so the group runs the job as a single-owner
 * task; with `<state keys>`, each record also replaces the value of key
 * `id % <state keys>` (about 100 bytes each) in keyed state, so a new owner
 * has that state to restore. All write JSON to a Kafka topic, at least once (visible at once,
 * so the first record a new owner writes marks the end of a failover).
 */
import { KafkaFormats, KafkaSink, KafkaSource } from '../../src/connectors/kafka/index.js';
import { defineJob } from '../../src/index.js';

export interface ClusterRecord {
  readonly id: number;
  readonly member: string;
  readonly payload: string;
}

const BROKERS = ['127.0.0.1:9092'];

export default defineJob((env, { args }) => {
  const [kind] = args;
  const sink = (topic: string) =>
    new KafkaSink<ClusterRecord>({
      brokers: BROKERS,
      topic,
      format: KafkaFormats.json<ClusterRecord>(),
    });
  const source = (topic: string) =>
    new KafkaSource<Omit<ClusterRecord, 'member'>>({
      brokers: BROKERS,
      topics: [topic],
      format: KafkaFormats.json<Omit<ClusterRecord, 'member'>>(),
      startFrom: 'earliest',
      fetchMaxWaitMs: 50,
    });
  if (kind === 'kafka') {
    const [, input, output, member] = args as [string, string, string, string];
    env
      .fromSource(source(input))
      .uid('input')
      .map((r): ClusterRecord => ({ id: r.id, member, payload: r.payload }))
      .uid('tag')
      .sinkTo(sink(output))
      .uid('output');
    return;
  }
  if (kind === 'keyed') {
    const [, input, output, member, stateBytes] = args as [string, string, string, string, string?];
    // One string shared by every key in memory, written out per key in each snapshot; added
    // after the exchange, so that it never crosses the repartition topic.
    const ballast = 's'.repeat(Number(stateBytes ?? 0));
    env
      .fromSource(source(input))
      .uid('input')
      .map((r) => ({ id: r.id, payload: r.payload, seen: 1, ballast: '' }))
      .uid('one')
      .keyBy((r) => r.id % 64)
      .reduce((a, b) => ({ id: b.id, payload: b.payload, seen: a.seen + b.seen, ballast }))
      .uid('per-key')
      .map((r): ClusterRecord => ({ id: r.id, member, payload: r.payload }))
      .uid('tag')
      .sinkTo(sink(output))
      .uid('output');
    return;
  }
  if (kind === 'generator') {
    const [, output, member, rate, stateKeys] = args as [string, string, string, string, string?];
    const numbers = env
      .fromGenerator<ClusterRecord>({
        ratePerSecond: Number(rate),
        generate: (id) => ({ id, member, payload: '' }),
      })
      .uid('numbers');
    const keys = Number(stateKeys ?? 0);
    (keys > 0
      ? numbers
          .keyBy((r) => r.id % keys)
          .reduce((_, r) => ({ ...r, payload: `${r.id}:${'s'.repeat(80)}` }))
          .uid('state')
          .map((r): ClusterRecord => ({ id: r.id, member, payload: '' }))
          .uid('tag')
      : numbers
    )
      .sinkTo(sink(output))
      .uid('output');
    return;
  }
  throw new Error(`the first argument must be kafka, keyed or generator, got '${kind}'`);
});
