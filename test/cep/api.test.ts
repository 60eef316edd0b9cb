import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  AfterMatchSkipStrategy,
  CEP,
  type Match,
  OutputTag,
  Pattern,
  StreamEnvironment,
  type TimedOut,
  WatermarkStrategy,
} from '../../src/index.js';
import { collect, sorted } from '../helpers/timeline.js';

interface Login {
  readonly user: string;
  readonly t: number;
  readonly ok: boolean;
  readonly country: string;
}

interface Success extends Login {
  readonly ok: true;
}

const login = (user: string, t: number, ok: boolean, country = 'NL'): Login => ({
  user,
  t,
  ok,
  country,
});
const isSuccess = (e: Login): e is Success => e.ok;

const fraud = () =>
  Pattern.begin<Login, 'fail'>('fail')
    .where((e) => !e.ok)
    .times(3)
    .followedBy('success')
    .subtype(isSuccess)
    .where((e, ctx) => e.country !== ctx.eventsFor('fail')[0]?.country)
    .within(600_000);

const input: Login[] = [
  login('ann', 1_000, false),
  login('bob', 2_000, false),
  login('ann', 3_000, false),
  login('ann', 4_000, false),
  login('bob', 5_000, true, 'NL'),
  login('ann', 9_000, true, 'BR'),
  // bob: three failures, then a foreign success eleven minutes later: too late.
  login('bob', 10_000, false),
  login('bob', 11_000, false),
  login('bob', 12_000, false),
  login('bob', 672_000, true, 'US'),
  // a record behind the watermark
  login('cat', 500, false),
];

function source(env: StreamEnvironment) {
  return env
    .fromArray(input)
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forBoundedOutOfOrderness<Login>(0).withTimestampAssigner((e) => e.t),
    );
}

describe('CEP through the DataStream API', () => {
  it('select on a keyed stream, with typed matches, timeouts and late records as side outputs', async () => {
    const env = new StreamEnvironment({ batchSize: 1, parallelism: 2 });
    const timedOut = new OutputTag<TimedOut<{ fail: Login; success: Success }>>('timed-out');
    const late = new OutputTag<Login>('late');
    const matches = CEP.pattern(
      source(env).keyBy((e) => e.user),
      fraud(),
    )
      .sideOutputLateData(late)
      .select(
        (m) => {
          expectTypeOf(m.success).toEqualTypeOf<readonly Success[]>();
          expectTypeOf(m.fail).toEqualTypeOf<readonly Login[]>();
          // @ts-expect-error stage names are checked
          m.sucess;
          return `${m.success[0]!.user}: ${m.fail.map((f) => f.t).join(',')} -> ${m.success[0]!.country}`;
        },
        { timedOut },
      );
    const main = collect(matches);
    const timeouts = collect(matches.getSideOutput(timedOut));
    const lateOnes = collect(matches.getSideOutput(late));
    const result = await env.execute();
    expect(main.values).toEqual(['ann: 1000,3000,4000 -> BR']);
    // Every partial match runs out of time, complete ones and those still gathering failures.
    const render = (t: TimedOut<{ fail: Login; success: Success }>) =>
      `${t.match.fail.map((f) => f.t).join(',')}@${t.timeoutTimestamp}`;
    expect(sorted(timeouts.values.map(render))).toEqual(
      sorted([
        '3000,4000@603000',
        '4000@604000',
        '2000,10000,11000@602000',
        '10000,11000,12000@610000',
        '11000,12000@611000',
        '12000@612000',
      ]),
    );
    expect(lateOnes.values.map((e) => e.user)).toEqual(['cat']);
    expect(result.metric('weir_cep_late_records_total')).toBe(1);
  });

  it('flatSelect and process on a non-keyed stream treat all records as one sequence', async () => {
    const env = new StreamEnvironment({ batchSize: 3, parallelism: 2 });
    const anyTwoFailures = Pattern.begin<Login, 'first'>(
      'first',
      AfterMatchSkipStrategy.skipPastLastEvent(),
    )
      .where((e) => !e.ok)
      .next('second')
      .where((e) => !e.ok);
    const flat = collect(
      CEP.pattern(source(env), anyTwoFailures).flatSelect<string>((m, out) => {
        for (const e of [...m.first, ...m.second]) out.collect(`${e.user}@${e.t}`);
      }),
    );
    const processed = collect(
      CEP.pattern(source(env), anyTwoFailures).process<string>({
        processMatch(m: Match<{ first: Login; second: Login }>, ctx, out) {
          out.collect(`${m.first[0]!.t}-${m.second[0]!.t} at ${ctx.timestamp}`);
        },
      }),
    );
    await env.execute();
    // In time order: ann1 bob2 ann3 ann4 bob5 ann9 bob10 bob11 bob12 bob672 (cat is late).
    expect(sorted(flat.values)).toEqual(
      sorted(['ann@1000', 'bob@2000', 'ann@3000', 'ann@4000', 'bob@10000', 'bob@11000']),
    );
    expect(processed.values).toEqual([
      '1000-2000 at 2000',
      '3000-4000 at 4000',
      '10000-11000 at 11000',
    ]);
  });

  it('rejects what the NFA cannot run where the job is built', () => {
    const env = new StreamEnvironment({ parallelism: 1 });
    const bad = Pattern.begin<Login>('a').notFollowedBy('b');
    expect(() => CEP.pattern(source(env), bad).select((m) => m)).toThrow(/cannot end a pattern/);
  });
});
