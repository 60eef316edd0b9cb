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
 */
import {
  AfterMatchSkipStrategy,
  CEP,
  defineJob,
  Pattern,
  PrintSink,
  Time,
  WatermarkStrategy,
} from 'weir';
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

export default defineJob((env, ctx) => {
  const logins = Number(ctx.args[0] ?? 200_000);
  const stream = env
    .fromGenerator<Login>({ name: 'logins', count: logins, seed: 7, generate: generateLogin })
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forBoundedOutOfOrderness<Login>(MAX_OUT_OF_ORDERNESS).withTimestampAssigner(
        (login) => login.time,
      ),
    )
    .keyBy((login) => login.user);

  CEP.pattern(stream, takeover)
    .select(({ failures, success }) => {
      const s = success[0]!;
      return `ALERT ${s.user}: failed ${failures.map((f) => clock(f.time)).join(' ')} from ${failures[0]!.country}, then success ${clock(s.time)} from ${s.country}`;
    })
    .sinkTo(new PrintSink<string>({ format: (line) => String(line) }));
});
