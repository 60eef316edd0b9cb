/**
 * Clicks per page per 10 seconds of event time: the smallest complete Weir job.
 *
 *   weir run examples/click-counts.ts               # 50,000 clicks
 *   weir run examples/click-counts.ts -- 200000     # any number of clicks
 *   weir run examples/click-counts.ts -p 4          # four subtasks
 *
 * The input is generated and bounded, so the job ends by itself: at the end of
 * input the watermark jumps to the end of time and every open window fires.
 * Clicks arrive out of order by up to two seconds; the watermark trails the
 * newest click by that bound, so each window fires once, complete.
 */
import {
  type AggregateFunction,
  defineJob,
  PrintSink,
  Time,
  WatermarkStrategy,
  type WindowResult,
  Windows,
} from 'weir';

interface Click {
  readonly user: string;
  readonly page: string;
  /** When the click happened (epoch ms). */
  readonly time: number;
}

const PAGES = ['/home', '/product', '/search', '/cart', '/checkout'];
/** A fixed start, so every run produces the same windows. */
const START = Date.UTC(2025, 0, 1, 12, 0, 0);
const MAX_OUT_OF_ORDERNESS = Time.seconds(2);

const count: AggregateFunction<Click, number, number> = {
  createAccumulator: () => 0,
  add: (_click, n) => n + 1,
  getResult: (n) => n,
  merge: (a, b) => a + b,
};

/** "12:00:10–12:00:20 /home 1,234" (UTC). */
function describe(result: WindowResult<string, number>): string {
  const time = (ms: number) => new Date(ms).toISOString().slice(11, 19);
  const { start, end } = result.window;
  return `${time(start)}–${time(end)}  ${result.key.padEnd(9)} ${result.value.toLocaleString('en-US')}`;
}

export default defineJob((env, ctx) => {
  const clicks = Number(ctx.args[0] ?? 50_000);

  env
    .fromGenerator<Click>({
      name: 'clicks',
      count: clicks,
      seed: 42,
      // Click i happens i ms after START and arrives up to two seconds late (out of order).
      generate: (i, random) => ({
        user: `user-${random.int(500)}`,
        page: random.pick(PAGES),
        time: Math.max(START, START + i - random.int(MAX_OUT_OF_ORDERNESS + 1)),
      }),
    })
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forBoundedOutOfOrderness<Click>(MAX_OUT_OF_ORDERNESS).withTimestampAssigner(
        (click) => click.time,
      ),
    )
    .keyBy((click) => click.page)
    .window(Windows.tumbling(Time.seconds(10)))
    .aggregate(count)
    .sinkTo(
      new PrintSink({ format: (result) => describe(result as WindowResult<string, number>) }),
    );
});
