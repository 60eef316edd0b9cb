/**
 * The click-stream job behind `weir demo`, written as an ordinary job module
 * so it also runs on its own: `weir run dist/cli/demo/demo-job.js -- --rate 1000`
 * (printing results instead of drawing the live view).
 *
 * Clicks are generated at a fixed rate with event times near the wall clock,
 * out of order by up to half a second, and then:
 * - counted per page in tumbling event-time windows; stragglers within the
 *   allowed lateness update a window that already fired (isUpdate = true),
 *   and clicks later than that go to a side output;
 * - grouped per user into session windows (a session ends after a gap).
 */
import { parseArgs } from 'node:util';
import {
  type AggregateFunction,
  defineJob,
  GeneratorSource,
  OutputTag,
  PrintSink,
  type ProcessFunction,
  type Sink,
  type StreamEnvironment,
  Time,
  WatermarkStrategy,
  type WindowResult,
  Windows,
} from '../../index.js';
import { formatClock, formatSpan } from '../format.js';
import { type Click, clickGenerator, PAGES } from './click-stream.js';

/** Event-time settings of the demo; fixed so the narrative of the view stays simple. */
export const DEMO_TIMING = {
  /** Watermarks trail the newest click by this much. */
  maxOutOfOrdernessMs: 500,
  /** A fired page-count window accepts stragglers for this long, emitting updates. */
  allowedLatenessMs: 1000,
  /** A user's session ends after this long without clicks. */
  sessionGapMs: 1500,
} as const;

export interface ClickDemoSettings {
  /** Event time of the first click (epoch ms); usually "now". */
  readonly startTime: number;
  readonly ratePerSecond: number;
  readonly windowMs: number;
  /** Number of clicks; unbounded when omitted. */
  readonly count?: number;
  /**
   * Generate at `ratePerSecond` in real time (default). Tests turn it off to
   * produce the same clicks, with the same event times, as fast as possible.
   */
  readonly throttle?: boolean;
}

/** What a session window reports about one user's visit. */
export interface SessionStats {
  readonly clicks: number;
  /** Bit i is set when page i of {@link PAGES} was visited. */
  readonly pages: number;
  /** Event time of the first and the last click of the session. */
  readonly first: number;
  readonly last: number;
}

export type PageCount = WindowResult<string, number>;
export type UserSession = WindowResult<string, SessionStats>;

/** Where the demo's three result streams go, plus an optional observer of event time. */
export interface ClickDemoOutputs {
  readonly pageCounts: Sink<PageCount>;
  readonly sessions: Sink<UserSession>;
  readonly lateClicks: Sink<Click>;
  /** Placed right after watermark assignment; sees every click and the current watermark. */
  readonly watermarkProbe?: ProcessFunction<Click, Click>;
}

/** Operator ids, stable so a view can select their metrics (e.g. late records per window operator). */
export const DEMO_OPERATORS = {
  pageCounts: 'page-counts',
  sessions: 'user-sessions',
} as const;

export const LATE_CLICKS = new OutputTag<Click>('late-clicks');

const countClicks: AggregateFunction<Click, number, number> = {
  createAccumulator: () => 0,
  add: (_click, n) => n + 1,
  getResult: (n) => n,
  merge: (a, b) => a + b,
};

/** One bit per known page, for a cheap mergeable set of visited pages. */
const pageBits = new Map<string, number>(PAGES.map((page, i) => [page, 1 << i]));

const summarizeSession: AggregateFunction<Click, SessionStats, SessionStats> = {
  createAccumulator: () => ({
    clicks: 0,
    pages: 0,
    first: Number.POSITIVE_INFINITY,
    last: Number.NEGATIVE_INFINITY,
  }),
  add: (click, s) => ({
    clicks: s.clicks + 1,
    pages: s.pages | pageBit(click.page),
    first: Math.min(s.first, click.timestamp),
    last: Math.max(s.last, click.timestamp),
  }),
  getResult: (s) => s,
  merge: (a, b) => ({
    clicks: a.clicks + b.clicks,
    pages: a.pages | b.pages,
    first: Math.min(a.first, b.first),
    last: Math.max(a.last, b.last),
  }),
};

function pageBit(page: string): number {
  return pageBits.get(page) ?? 0;
}

/** Number of distinct pages in a session's page set. */
export function distinctPages(stats: SessionStats): number {
  let n = 0;
  for (let bits = stats.pages; bits !== 0; bits &= bits - 1) n++;
  return n;
}

/** Builds the demo job on `env`, sending results to `outputs`. */
export function buildClickDemo(
  env: StreamEnvironment,
  settings: ClickDemoSettings,
  outputs: ClickDemoOutputs,
): void {
  const { maxOutOfOrdernessMs, allowedLatenessMs, sessionGapMs } = DEMO_TIMING;
  const source = new GeneratorSource<Click>({
    name: 'clicks',
    ...(settings.throttle === false ? {} : { ratePerSecond: settings.ratePerSecond }),
    ...(settings.count === undefined ? {} : { count: settings.count }),
    generate: clickGenerator({
      startTime: settings.startTime,
      ratePerSecond: settings.ratePerSecond,
      maxOutOfOrdernessMs,
      stragglerFraction: 0.002,
      stragglerExtraMs: allowedLatenessMs,
      lateFraction: 0.001,
      // Far enough behind that every window (and its allowed lateness) is long gone.
      lateDelayMs: [
        settings.windowMs + allowedLatenessMs + 2000,
        settings.windowMs + allowedLatenessMs + 15_000,
      ],
    }),
  });

  let clicks = env.fromSource(
    source,
    WatermarkStrategy.forBoundedOutOfOrderness<Click>(maxOutOfOrdernessMs).withTimestampAssigner(
      (click) => click.timestamp,
    ),
  );
  if (outputs.watermarkProbe !== undefined) {
    clicks = clicks.process(outputs.watermarkProbe).name('watermark probe');
  }

  const pageCounts = clicks
    .keyBy((click) => click.page)
    .window(Windows.tumbling(settings.windowMs))
    .allowedLateness(allowedLatenessMs)
    .sideOutputLateData(LATE_CLICKS)
    .aggregate(countClicks)
    .uid(DEMO_OPERATORS.pageCounts)
    .name('page counts');
  pageCounts.sinkTo(outputs.pageCounts).name('page counts sink');
  pageCounts.getSideOutput(LATE_CLICKS).sinkTo(outputs.lateClicks).name('late clicks sink');

  clicks
    .keyBy((click) => click.user)
    .window(Windows.session(sessionGapMs))
    .aggregate(summarizeSession)
    .uid(DEMO_OPERATORS.sessions)
    .name('user sessions')
    .sinkTo(outputs.sessions)
    .name('sessions sink');
}

/** Run on its own, the demo prints its results: `-- --rate N --window SECONDS`. */
export default defineJob((env, ctx) => {
  const { values } = parseArgs({
    args: [...ctx.args],
    options: { rate: { type: 'string' }, window: { type: 'string' } },
  });
  buildClickDemo(
    env,
    {
      startTime: Date.now(),
      ratePerSecond: Number(values.rate ?? 1000),
      windowMs: Time.seconds(Number(values.window ?? 5)),
    },
    {
      pageCounts: new PrintSink<PageCount>({
        prefix: 'page count',
        format: (v) => {
          const r = v as PageCount;
          return `${r.key} ${formatSpan(r.window.start, r.window.end)} ${r.value}${r.isUpdate ? ' (update)' : ''}`;
        },
      }),
      sessions: new PrintSink<UserSession>({
        prefix: 'session',
        format: (v) => {
          const r = v as UserSession;
          return `${r.key} ${formatSpan(r.value.first, r.value.last)} ${r.value.clicks} clicks, ${distinctPages(r.value)} pages`;
        },
      }),
      lateClicks: new PrintSink<Click>({
        prefix: 'late',
        format: (v) => {
          const c = v as Click;
          return `${c.user} ${c.page} at ${formatClock(c.timestamp, true)}`;
        },
      }),
    },
  );
});
