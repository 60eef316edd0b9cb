/**
 * Account takeover alerts with complex event processing: three failed logins
 * in a row, followed by a successful login from another country, all within
 * ten minutes of event time.
 *
 *   weir run examples/login-fraud.ts               # 200,000 logins
 *   weir run examples/login-fraud.ts -- 1000000    # any number of logins
 *   weir run examples/login-fraud.ts -p 4          # four subtasks
 *
 * Logins are generated (bounded, seeded, so every run prints the same
 * alerts) and arrive up to five seconds out of order; the pattern runs per
 * user on event time, so the order they arrive in does not matter.
 *
 * On Kafka (topic `logins`, JSON, keyed by user):
 *
 *   weir run examples/login-fraud.ts -- --kafka 127.0.0.1:9092 --produce 200000   # write generated logins
 *   weir run examples/login-fraud.ts -- --kafka 127.0.0.1:9092                    # detect, until stopped
 *   weir run examples/login-fraud.ts -- --kafka 127.0.0.1:9092 --bounded          # detect up to the topic's end
 *
 * `--topic <name>` reads or writes another topic. Reading Kafka, each
 * partition has its own watermark and the job's is their minimum, so the
 * alerts are those of the generated run.
 */
import {
  AfterMatchSkipStrategy,
  CEP,
  type DataStream,
  defineJob,
  Pattern,
  PrintSink,
  Time,
  WatermarkStrategy,
} from 'weir';
import { KafkaFormats, KafkaSink, KafkaSource } from 'weir/kafka';
import { generateLogin, type Login, MAX_OUT_OF_ORDERNESS } from './login-fraud-data.js';

/** Three failures in a row, then a success from a country other than the first failure's. */
export const takeover = Pattern.begin<Login, 'failures'>(
  'failures',
  AfterMatchSkipStrategy.skipPastLastEvent(),
)
  .where((login) => !login.ok)
  .times(3)
  .consecutive()
  .followedBy('success')
  .where((login, ctx) => login.ok && login.country !== ctx.eventsFor('failures')[0]!.country)
  .within(Time.minutes(10));

const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19);

/** `--name value` from the job's arguments (after `--`), or undefined. */
function option(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const value = args[i + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`${name} needs a value`);
  return value;
}

const watermarks = WatermarkStrategy.forBoundedOutOfOrderness<Login>(
  MAX_OUT_OF_ORDERNESS,
).withTimestampAssigner((login) => login.time);

export default defineJob((env, ctx) => {
  const args = ctx.args;
  const kafka = option(args, '--kafka');
  const topic = option(args, '--topic') ?? 'logins';
  const produce = option(args, '--produce');

  if (kafka !== undefined && produce !== undefined) {
    // Writes the generated logins, each user's in order on one partition (keyed by user).
    env
      .fromGenerator<Login>({
        name: 'logins',
        count: Number(produce),
        seed: 7,
        generate: generateLogin,
      })
      .sinkTo(
        new KafkaSink<Login>({
          brokers: [kafka],
          topic,
          format: KafkaFormats.json<Login>(),
          key: (login) => login.user,
        }),
      );
    return;
  }

  let logins: DataStream<Login>;
  if (kafka !== undefined) {
    logins = env.fromSource(
      new KafkaSource<Login>({
        brokers: [kafka],
        topics: [topic],
        format: KafkaFormats.json<Login>(),
        watermarks,
        ...(args.includes('--bounded') ? { stopAt: 'latest' as const } : {}),
      }),
    );
  } else {
    const count = Number(args.find((a) => !a.startsWith('--')) ?? 200_000);
    logins = env
      .fromGenerator<Login>({ name: 'logins', count, seed: 7, generate: generateLogin })
      .assignTimestampsAndWatermarks(watermarks);
  }

  CEP.pattern(
    logins.keyBy((login) => login.user),
    takeover,
  )
    .select(({ failures, success }) => {
      const s = success[0]!;
      return `ALERT ${s.user}: failed ${failures.map((f) => clock(f.time)).join(' ')} from ${failures[0]!.country}, then success ${clock(s.time)} from ${s.country}`;
    })
    .sinkTo(new PrintSink<string>({ format: (line) => String(line) }));
});
