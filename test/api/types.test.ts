/**
 * The fluent API infers the types a user expects, for every overload of every
 * public method, and refuses what it must (`@ts-expect-error` lines). Checked
 * by the type checker (`npm run typecheck`): vitest only runs the builders,
 * which must accept these jobs without throwing. Imports come from the public
 * entry only, so these tests hold whatever the classes behind it are called.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  ArraySource,
  type Change,
  type ChangelogStream,
  CollectSink,
  type CsvRecord,
  type DataStream,
  FileFormat,
  type GroupedChangelogStream,
  type GroupResult,
  InMemoryLookupTable,
  type IntervalJoin,
  type IntervalJoined,
  type KeyedStream,
  OutputTag,
  PrintSink,
  type Ranked,
  type Sink,
  StreamEnvironment,
  type TableView,
  Time,
  type Trigger,
  Triggers,
  type TwoStreams,
  type TwoStreamsEqualTo,
  type TwoStreamsWhere,
  WatermarkStrategy,
  type WindowAssigner,
  type WindowCoGroup,
  type WindowedStream,
  type WindowJoin,
  type WindowRanked,
  type WindowResult,
  Windows,
} from '../../src/index.js';

interface Click {
  readonly user: string;
  readonly page: number;
  readonly time: number;
}
interface Page {
  readonly id: number;
  readonly title: string;
}
interface Circle {
  readonly kind: 'circle';
  readonly r: number;
}
interface Square {
  readonly kind: 'square';
  readonly side: number;
}
type Shape = Circle | Square;
interface Rule {
  readonly page: number;
  readonly limit: number;
}

const isCircle = (s: Shape): s is Circle => s.kind === 'circle';

const count = {
  createAccumulator: () => 0,
  add: (_c: Click, acc: number) => acc + 1,
  getResult: (acc: number) => acc,
  merge: (a: number, b: number) => a + b,
};

function setup() {
  const env = new StreamEnvironment();
  const clicks = env.fromArray<Click>([], 'clicks');
  const pages = env.fromArray<Page>([], 'pages');
  return { env, clicks, pages, byUser: clicks.keyBy((c) => c.user) };
}

describe('environment', () => {
  it('sources carry their record type', () => {
    const env = new StreamEnvironment({ parallelism: 2, maxParallelism: 64 });
    expectTypeOf(env.parallelism).toEqualTypeOf<number>();
    expectTypeOf(env.maxParallelism).toEqualTypeOf<number>();
    expectTypeOf(env.workerCount).toEqualTypeOf<number | undefined>();
    expectTypeOf(env.fromArray([1, 2, 3])).toEqualTypeOf<DataStream<number>>();
    expectTypeOf(env.fromArray<Click>([], 'named')).toEqualTypeOf<DataStream<Click>>();
    expectTypeOf(
      env.fromGenerator({ count: 10, generate: (i, random) => ({ i, x: random.next() }) }),
    ).toEqualTypeOf<DataStream<{ i: number; x: number }>>();
    expectTypeOf(env.fromSource(new ArraySource(['a']))).toEqualTypeOf<DataStream<string>>();
    const strategy = WatermarkStrategy.forMonotonousTimestamps<Click>().withTimestampAssigner(
      (c) => c.time,
    );
    expectTypeOf(env.fromSource(new ArraySource<Click>([]), strategy, 'src')).toEqualTypeOf<
      DataStream<Click>
    >();
    // @ts-expect-error a strategy for another record type
    env.fromSource(new ArraySource<Page>([]), strategy);
  });

  it('file sources take their type from the format', () => {
    const env = new StreamEnvironment();
    expectTypeOf(env.fromFile('a.jsonl', FileFormat.jsonLines())).toEqualTypeOf<
      DataStream<unknown>
    >();
    expectTypeOf(
      env.fromFile(['a.jsonl', 'b.jsonl'], FileFormat.jsonLines<Click>(), { name: 'clicks' }),
    ).toEqualTypeOf<DataStream<Click>>();
    expectTypeOf(env.fromFile('a.csv', FileFormat.csv({ header: true }))).toEqualTypeOf<
      DataStream<CsvRecord>
    >();
    expectTypeOf(env.fromFile('a.csv', FileFormat.csv())).toEqualTypeOf<DataStream<string[]>>();
    expectTypeOf(
      env.fromFile('a.csv', FileFormat.csv({ header: true, parse: (row) => Number(row.n) })),
    ).toEqualTypeOf<DataStream<number>>();
    expectTypeOf(
      env.fromFile('a.csv', FileFormat.csv({ header: false, parse: (row) => row.length })),
    ).toEqualTypeOf<DataStream<number>>();
    expectTypeOf(env.watchDirectory('in/', FileFormat.jsonLines<Page>())).toEqualTypeOf<
      DataStream<Page>
    >();
  });

  it('execute returns a result, executeAsync a client', () => {
    const env = new StreamEnvironment();
    const run = () => env.execute('job', { restoreFrom: 'latest' });
    expectTypeOf(run)
      .returns.resolves.toHaveProperty('status')
      .toEqualTypeOf<'finished' | 'cancelled'>();
    const start = () => env.executeAsync();
    expectTypeOf(start).returns.toHaveProperty('cancel').toBeFunction();
  });
});

describe('DataStream', () => {
  it('map, flatMap, process and the record-wise operators', () => {
    const { clicks } = setup();
    expectTypeOf(clicks.map((c) => c.page)).toEqualTypeOf<DataStream<number>>();
    expectTypeOf(clicks.flatMap<string>((c, out) => out.collect(c.user))).toEqualTypeOf<
      DataStream<string>
    >();
    expectTypeOf(
      clicks.process<number>({
        processElement: (c, ctx, out) => out.collect(c.time + ctx.timestamp),
      }),
    ).toEqualTypeOf<DataStream<number>>();
    expectTypeOf(clicks.rebalance()).toEqualTypeOf<DataStream<Click>>();
    expectTypeOf(clicks.broadcast()).toEqualTypeOf<DataStream<Click>>();
    expectTypeOf(clicks.map((c) => c.page).uid('pages')).toEqualTypeOf<DataStream<number>>();
    expectTypeOf(clicks.name('n').setParallelism(2)).toEqualTypeOf<DataStream<Click>>();
    // @ts-expect-error the function must accept the record type
    clicks.map((p: Page) => p.title);
  });

  it('filter keeps the type, or narrows it with a type guard', () => {
    const { env, clicks } = setup();
    expectTypeOf(clicks.filter((c) => c.page > 0)).toEqualTypeOf<DataStream<Click>>();
    const shapes = env.fromArray<Shape>([]);
    // A predicate typed as boolean keeps the type, even if it calls a guard.
    expectTypeOf(shapes.filter((s): boolean => isCircle(s))).toEqualTypeOf<DataStream<Shape>>();
    expectTypeOf(shapes.filter(isCircle)).toEqualTypeOf<DataStream<Circle>>();
    // @ts-expect-error a predicate over another type
    clicks.filter((p: Page) => p.id > 0);
  });

  it('flatMapAsync and lookupJoin', () => {
    const { clicks } = setup();
    expectTypeOf(clicks.flatMapAsync(async (c: Click) => [c.page], { capacity: 10 })).toEqualTypeOf<
      DataStream<number>
    >();
    const table = new InMemoryLookupTable<number, Page>([[1, { id: 1, title: 'home' }]]);
    expectTypeOf(
      clicks.lookupJoin(table, { key: (c) => c.page, select: (c, p) => ({ user: c.user, p }) }),
    ).toEqualTypeOf<DataStream<{ user: string; p: Page }>>();
    expectTypeOf(
      clicks.lookupJoin(table, { join: 'left', key: (c) => c.page, select: (c, p) => [c, p] }),
    ).toEqualTypeOf<DataStream<(Click | Page | null)[]>>();
    clicks.lookupJoin(table, {
      join: 'left',
      key: (c) => c.page,
      select: (_c, p) => {
        expectTypeOf(p).toEqualTypeOf<Page | null>();
        return p?.title;
      },
    });
    // @ts-expect-error the record's key must have the table's key type
    clicks.lookupJoin(table, { key: (c) => c.user, select: (c) => c });
  });

  it('keyBy infers the key type and refuses keys that are not keys', () => {
    const { clicks } = setup();
    expectTypeOf(clicks.keyBy((c) => c.user)).toEqualTypeOf<KeyedStream<Click, string>>();
    expectTypeOf(clicks.keyBy((c) => c.page, 'by page')).toEqualTypeOf<
      KeyedStream<Click, number>
    >();
    expectTypeOf(clicks.keyBy((c) => (c.page > 0 ? 'a' : 'b'))).toEqualTypeOf<
      KeyedStream<Click, 'a' | 'b'>
    >();
    // @ts-expect-error an object is not a key
    clicks.keyBy((c) => ({ user: c.user }));
  });

  it('union, side outputs, sinks and watermarks', () => {
    const { clicks, pages } = setup();
    expectTypeOf(clicks.union(clicks, clicks)).toEqualTypeOf<DataStream<Click>>();
    // @ts-expect-error union needs streams of the same type
    clicks.union(pages);
    const late = new OutputTag<Click>('late');
    expectTypeOf(clicks.getSideOutput(late)).toEqualTypeOf<DataStream<Click>>();
    expectTypeOf(clicks.sinkTo(new PrintSink<Click>())).toEqualTypeOf<DataStream<never>>();
    const sink: Sink<Click> = new CollectSink<Click>();
    expectTypeOf(clicks.sinkTo(sink).name('out')).toEqualTypeOf<DataStream<never>>();
    // @ts-expect-error a sink of another record type
    clicks.sinkTo(new CollectSink<Page>());
    expectTypeOf(
      clicks.assignTimestampsAndWatermarks(
        WatermarkStrategy.forBoundedOutOfOrderness<Click>(Time.seconds(5))
          .withTimestampAssigner((c) => c.time)
          .withIdleness(Time.minutes(1)),
      ),
    ).toEqualTypeOf<DataStream<Click>>();
    // @ts-expect-error a strategy for another record type
    clicks.assignTimestampsAndWatermarks(WatermarkStrategy.noWatermarks<Page>());
  });

  it('executeAndCollect resolves with the records, and with side outputs', () => {
    const { clicks } = setup();
    const collect = () => clicks.executeAndCollect();
    expectTypeOf(collect).returns.toEqualTypeOf<Promise<Click[]>>();
    const collectNamed = () => clicks.map((c) => c.page).executeAndCollect('job');
    expectTypeOf(collectNamed).returns.toEqualTypeOf<Promise<number[]>>();
    const late = new OutputTag<Click>('late');
    const errors = new OutputTag<string>('errors');
    const collectAll = () => clicks.executeAndCollect({ sideOutputs: { late, errors } });
    type Collected = { records: Click[]; sideOutputs: { late: Click[]; errors: string[] } };
    expectTypeOf(collectAll).returns.toEqualTypeOf<Promise<Collected>>();
    // @ts-expect-error side outputs are named by tags
    clicks.executeAndCollect({ jobName: 'job', sideOutputs: { late: 'late' } });
  });

  it('window joins and co-groups', () => {
    const { clicks, pages } = setup();
    const two = clicks.join(pages);
    expectTypeOf(two).toEqualTypeOf<TwoStreams<Click, Page, 'join'>>();
    const where = two.where((c) => c.page);
    expectTypeOf(where).toEqualTypeOf<TwoStreamsWhere<Click, Page, number, 'join'>>();
    const equal = where.equalTo((p) => p.id);
    expectTypeOf(equal).toEqualTypeOf<TwoStreamsEqualTo<Click, Page, number, 'join'>>();
    const windowed = equal.window(Windows.tumbling(Time.minutes(1)));
    expectTypeOf(windowed).toEqualTypeOf<WindowJoin<Click, Page, number>>();
    const lateClicks = new OutputTag<Click>('late clicks');
    const latePages = new OutputTag<Page>('late pages');
    expectTypeOf(
      windowed.sideOutputLeftLateData(lateClicks).sideOutputRightLateData(latePages),
    ).toEqualTypeOf<WindowJoin<Click, Page, number>>();
    expectTypeOf(windowed.apply((c, p) => `${c.user}:${p.title}`)).toEqualTypeOf<
      DataStream<string>
    >();
    // @ts-expect-error the second key must have the first key's type
    where.equalTo((p) => p.title);
    // @ts-expect-error a late tag of the other side's type
    windowed.sideOutputLeftLateData(latePages);

    const coGrouped = clicks
      .coGroup(pages)
      .where((c) => c.page)
      .equalTo((p) => p.id)
      .window(Windows.session(Time.minutes(5)));
    expectTypeOf(coGrouped).toEqualTypeOf<WindowCoGroup<Click, Page, number>>();
    expectTypeOf(coGrouped.sideOutputRightLateData(latePages)).toEqualTypeOf<
      WindowCoGroup<Click, Page, number>
    >();
    expectTypeOf(
      coGrouped.apply<number>((cs, ps, out, { key, window }) => {
        expectTypeOf(cs).toEqualTypeOf<readonly Click[]>();
        expectTypeOf(ps).toEqualTypeOf<readonly Page[]>();
        expectTypeOf(key).toEqualTypeOf<number>();
        out.collect(cs.length + ps.length + window.end);
      }),
    ).toEqualTypeOf<DataStream<number>>();
  });

  it('broadcast joins', () => {
    const { clicks, pages } = setup();
    expectTypeOf(
      clicks.broadcastJoin(pages, {
        mainKey: (c) => c.page,
        sideKey: (p) => p.id,
        join: (c, p) => ({ user: c.user, title: p.title }),
      }),
    ).toEqualTypeOf<DataStream<{ user: string; title: string }>>();
    expectTypeOf(
      clicks.broadcastJoin(pages, {
        kind: 'left',
        mainKey: (c) => c.page,
        sideKey: (p) => p.id,
        join: (c, p) => [c.user, p?.title] as const,
        waitForSide: false,
      }),
    ).toEqualTypeOf<DataStream<readonly [string, string | undefined]>>();
    const pageChanges = pages.toChangelog();
    expectTypeOf(
      clicks.broadcastJoinChangelog(pageChanges, {
        mainKey: (c) => c.page,
        sideKey: (p) => p.id,
        join: (_c, p) => p,
      }),
    ).toEqualTypeOf<DataStream<Page>>();
    clicks.broadcastJoin(pages, {
      mainKey: (c) => c.page,
      // @ts-expect-error the side key must have the main key's type
      sideKey: (p) => p.title,
      join: (c) => c,
    });
  });

  it('changelogs from streams', () => {
    const { env, clicks } = setup();
    expectTypeOf(clicks.toChangelog()).toEqualTypeOf<ChangelogStream<Click>>();
    const changes = env.fromArray<Change<Page>>([]);
    expectTypeOf(changes.asChangelog('retract')).toEqualTypeOf<ChangelogStream<Page>>();
    expectTypeOf(changes.asChangelog('upsert', (p) => p.id)).toEqualTypeOf<ChangelogStream<Page>>();
    // @ts-expect-error only a stream of changes is a changelog
    clicks.asChangelog('retract');
  });
});

describe('KeyedStream', () => {
  it('stateless operators, reduce and process', () => {
    const { env, byUser } = setup();
    expectTypeOf(byUser.map((c) => c.time)).toEqualTypeOf<DataStream<number>>();
    expectTypeOf(byUser.filter((c) => c.page > 1)).toEqualTypeOf<DataStream<Click>>();
    expectTypeOf(byUser.flatMap<number>((c, out) => out.collect(c.page))).toEqualTypeOf<
      DataStream<number>
    >();
    expectTypeOf(byUser.reduce((a, b) => (a.time > b.time ? a : b))).toEqualTypeOf<
      DataStream<Click>
    >();
    expectTypeOf(
      byUser.process<string>({
        processElement: (c, ctx, out) => {
          expectTypeOf(ctx.key).toEqualTypeOf<string>();
          out.collect(c.user);
        },
      }),
    ).toEqualTypeOf<DataStream<string>>();
    const shapesByKind = env.fromArray<Shape>([]).keyBy((s) => s.kind);
    expectTypeOf(shapesByKind.filter(isCircle)).toEqualTypeOf<DataStream<Circle>>();
    // @ts-expect-error a reduce function must return the record type
    byUser.reduce((a) => a.user);
  });

  it('connectBroadcast', () => {
    const { clicks, byUser } = setup();
    const rules = clicks.map((c): Rule => ({ page: c.page, limit: 3 }));
    expectTypeOf(
      byUser.connectBroadcast<Rule, string, number, number>(rules, {
        processElement: (c, ctx, out) => {
          expectTypeOf(ctx.key).toEqualTypeOf<string>();
          const limit: number | undefined = ctx.broadcastState.get(c.page);
          if (limit !== undefined) out.collect(c.user);
        },
        processBroadcastElement: (rule, ctx) => {
          ctx.broadcastState.put(rule.page, rule.limit);
        },
      }),
    ).toEqualTypeOf<DataStream<string>>();
  });

  it('updatingAggregate, deduplicate and topN', () => {
    const { byUser } = setup();
    expectTypeOf(byUser.updatingAggregate(count)).toEqualTypeOf<
      ChangelogStream<GroupResult<string, number>>
    >();
    expectTypeOf(byUser.updatingAggregate(count, { mode: 'upsert', ttl: 60_000 })).toEqualTypeOf<
      ChangelogStream<GroupResult<string, number>>
    >();
    // Keep-first by arrival never revises a row: plain records.
    expectTypeOf(byUser.deduplicate({ keep: 'first' })).toEqualTypeOf<DataStream<Click>>();
    expectTypeOf(byUser.deduplicate({ keep: 'first', order: 'arrival', ttl: 1_000 })).toEqualTypeOf<
      DataStream<Click>
    >();
    // Every other variant may replace the kept row: changes.
    expectTypeOf(byUser.deduplicate({ keep: 'last' })).toEqualTypeOf<DataStream<Change<Click>>>();
    expectTypeOf(byUser.deduplicate({ keep: 'first', order: 'event-time' })).toEqualTypeOf<
      DataStream<Change<Click>>
    >();
    expectTypeOf(byUser.deduplicate({ keep: 'last', mode: 'upsert' })).toEqualTypeOf<
      DataStream<Change<Click>>
    >();
    // Keeping a projection: the changes carry it.
    expectTypeOf(
      byUser.deduplicate({ keep: 'last', row: (c: Click) => ({ user: c.user }) }),
    ).toEqualTypeOf<DataStream<Change<{ user: string }>>>();
    const compare = (a: Click, b: Click) => b.time - a.time;
    expectTypeOf(byUser.topN({ n: 3, compare })).toEqualTypeOf<DataStream<Change<Click>>>();
    expectTypeOf(byUser.topN({ n: 3, compare, rankNumber: true, mode: 'upsert' })).toEqualTypeOf<
      DataStream<Change<Ranked<Click>>>
    >();
    // @ts-expect-error a comparator of another type
    byUser.topN({ n: 3, compare: (a: Page, b: Page) => a.id - b.id });
  });

  it('window variants of deduplicate and topN', () => {
    const { byUser } = setup();
    const tumbling = Windows.tumbling(Time.minutes(1));
    const late = new OutputTag<Click>('late');
    expectTypeOf(
      byUser.windowDeduplicate(tumbling, { keep: 'last', lateDataTag: late }),
    ).toEqualTypeOf<DataStream<WindowResult<string, Click>>>();
    expectTypeOf(
      byUser.windowTopN(Windows.sliding(Time.minutes(10), Time.minutes(1)), {
        n: 5,
        compare: (a, b) => a.time - b.time,
      }),
    ).toEqualTypeOf<DataStream<WindowRanked<string, Click>>>();
  });

  it('interval joins', () => {
    const { clicks, pages, byUser } = setup();
    const pagesByTitle = pages.keyBy((p) => p.title);
    const joined = byUser.intervalJoin(pagesByTitle);
    expectTypeOf(joined).toEqualTypeOf<IntervalJoin<Click, Page, string>>();
    const bounded = joined.between(-Time.seconds(5), Time.seconds(5));
    expectTypeOf(bounded).toEqualTypeOf<IntervalJoined<Click, Page, string>>();
    const late = new OutputTag<Click>('late');
    expectTypeOf(
      bounded
        .lowerBoundExclusive()
        .upperBoundExclusive()
        .sideOutputLeftLateData(late)
        .sideOutputRightLateData(new OutputTag<Page>('late pages')),
    ).toEqualTypeOf<IntervalJoined<Click, Page, string>>();
    expectTypeOf(bounded.join((c, p) => c.time - p.id)).toEqualTypeOf<DataStream<number>>();
    expectTypeOf(
      bounded.process<string>((c, p, ctx, out) => {
        expectTypeOf(ctx.key).toEqualTypeOf<string>();
        out.collect(`${c.user}${p.title}`);
      }),
    ).toEqualTypeOf<DataStream<string>>();
    // @ts-expect-error the other stream must be keyed by the same key type
    byUser.intervalJoin(clicks.keyBy((c) => c.page));
  });
});

describe('WindowedStream', () => {
  it('configuration keeps the type', () => {
    const { byUser } = setup();
    const windowed = byUser.window(Windows.tumbling(Time.minutes(1)));
    expectTypeOf(windowed).toEqualTypeOf<WindowedStream<Click, string>>();
    const trigger: Trigger<Click> = Triggers.purging(Triggers.count<Click>(10));
    expectTypeOf(
      windowed
        .trigger(trigger)
        .allowedLateness(Time.seconds(10))
        .closeByProcessingTime(Time.seconds(30))
        .sideOutputLateData(new OutputTag<Click>('late')),
    ).toEqualTypeOf<WindowedStream<Click, string>>();
    expectTypeOf(byUser.countWindow(10)).toEqualTypeOf<WindowedStream<Click, string>>();
    expectTypeOf(byUser.countWindow(10, 2)).toEqualTypeOf<WindowedStream<Click, string>>();
    // @ts-expect-error a late tag of another type
    windowed.sideOutputLateData(new OutputTag<Page>('late'));
  });

  it('window assigners and triggers', () => {
    const { byUser } = setup();
    const assigners: WindowAssigner<Click>[] = [
      Windows.tumbling(Time.hours(1), Time.minutes(15)),
      Windows.sliding(Time.days(1), Time.hours(1)),
      Windows.session(Time.milliseconds(500)),
      Windows.dynamicSession<Click>((c) => c.page * 1000),
      Windows.global(),
      Windows.tumblingProcessingTime(1000),
      Windows.slidingProcessingTime(1000, 100),
      Windows.sessionProcessingTime(1000),
    ];
    for (const a of assigners) byUser.window(a);
    const triggers: Trigger<Click>[] = [
      Triggers.eventTime(),
      Triggers.processingTime(),
      Triggers.never(),
      Triggers.count(5),
      Triggers.continuousEventTime(1000),
      Triggers.continuousProcessingTime(1000),
      Triggers.purging(Triggers.eventTime()),
    ];
    expect(triggers).toHaveLength(7);
    // @ts-expect-error a dynamic gap over another record type
    byUser.window(Windows.dynamicSession((p: Page) => p.id));
  });

  it('reduce, aggregate and process, with and without a window function', () => {
    const { byUser } = setup();
    const windowed = byUser.window(Windows.tumbling(Time.minutes(1)));
    const latest = (a: Click, b: Click) => (a.time > b.time ? a : b);
    expectTypeOf(windowed.reduce(latest)).toEqualTypeOf<DataStream<WindowResult<string, Click>>>();
    expectTypeOf(
      windowed.reduce<string>(latest, {
        process: (key, ctx, elements, out) => {
          expectTypeOf(key).toEqualTypeOf<string>();
          expectTypeOf(elements).toEqualTypeOf<readonly Click[]>();
          out.collect(`${key}@${ctx.window.end}`);
        },
      }),
    ).toEqualTypeOf<DataStream<string>>();
    expectTypeOf(windowed.aggregate(count)).toEqualTypeOf<
      DataStream<WindowResult<string, number>>
    >();
    expectTypeOf(
      windowed.aggregate<number, number, [string, number]>(count, {
        process: (key, _ctx, elements, out) => {
          expectTypeOf(elements).toEqualTypeOf<readonly number[]>();
          out.collect([key, elements[0] ?? 0]);
        },
      }),
    ).toEqualTypeOf<DataStream<[string, number]>>();
    expectTypeOf(
      windowed.process<number>({
        process: (_key, _ctx, elements, out) => out.collect(elements.length),
      }),
    ).toEqualTypeOf<DataStream<number>>();
    windowed.aggregate({
      createAccumulator: () => 0,
      // @ts-expect-error the accumulator `add` takes must be the one createAccumulator makes
      add: (_c: Click, acc: string) => acc,
      getResult: (acc: number) => acc,
    });
  });

  it('aggregateChanges and reduceChanges', () => {
    const { byUser } = setup();
    const windowed = byUser.window(Windows.tumbling(Time.minutes(1))).allowedLateness(1000);
    expectTypeOf(windowed.aggregateChanges(count)).toEqualTypeOf<
      ChangelogStream<WindowResult<string, number>>
    >();
    expectTypeOf(windowed.aggregateChanges(count, 'upsert')).toEqualTypeOf<
      ChangelogStream<WindowResult<string, number>>
    >();
    expectTypeOf(windowed.reduceChanges((a) => a)).toEqualTypeOf<
      ChangelogStream<WindowResult<string, Click>>
    >();
    expectTypeOf(windowed.reduceChanges((a) => a, 'retract')).toEqualTypeOf<
      ChangelogStream<WindowResult<string, Click>>
    >();
    // Refused by the type checker and, for untyped callers, when the job is built.
    // @ts-expect-error only retract and upsert changelogs
    expect(() => windowed.reduceChanges((a) => a, 'insert-only')).toThrow(/mode/);
  });
});

describe('ChangelogStream', () => {
  it('is a stream of changes', () => {
    const { clicks } = setup();
    const changes = clicks.toChangelog();
    expectTypeOf(changes).toExtend<DataStream<Change<Click>>>();
    expectTypeOf(changes.mode).toEqualTypeOf<'insert-only' | 'upsert' | 'retract'>();
    expectTypeOf(changes.map((c) => c.kind)).toEqualTypeOf<DataStream<'+I' | '-U' | '+U' | '-D'>>();
    expectTypeOf(changes.filter((c) => c.kind === '+I')).toEqualTypeOf<ChangelogStream<Click>>();
    expectTypeOf(changes.filterRows((c) => c.page > 0)).toEqualTypeOf<ChangelogStream<Click>>();
    expectTypeOf(changes.mapRows((c) => c.user)).toEqualTypeOf<ChangelogStream<string>>();
    expectTypeOf(
      changes.mapRows(
        (c) => c.user,
        (u) => u,
      ),
    ).toEqualTypeOf<ChangelogStream<string>>();
    expectTypeOf(changes.union(changes, clicks.toChangelog())).toEqualTypeOf<
      ChangelogStream<Click>
    >();
    expectTypeOf(changes.keyBy((c) => c.value.user)).toEqualTypeOf<
      KeyedStream<Change<Click>, string>
    >();
    expectTypeOf(changes.sinkTo(new CollectSink<Change<Click>>())).toEqualTypeOf<
      DataStream<never>
    >();
    // @ts-expect-error a sink of rows does not take changes
    changes.sinkTo(new CollectSink<Click>());
  });

  it('filter narrows rows with a type guard and keeps a changelog', () => {
    const { env } = setup();
    const shapes = env.fromArray<Shape>([]).toChangelog();
    const circleChange = (c: Change<Shape>): c is Change<Circle> => c.value.kind === 'circle';
    expectTypeOf(shapes.filter(circleChange)).toEqualTypeOf<ChangelogStream<Circle>>();
    const inserts = (c: Change<Shape>): c is Change<Shape> & { readonly kind: '+I' } =>
      c.kind === '+I';
    expectTypeOf(shapes.filter(inserts)).toEqualTypeOf<ChangelogStream<Shape>>();
  });

  it('groupBy and updatingAggregate', () => {
    const { clicks } = setup();
    const grouped = clicks.toChangelog().groupBy((c) => c.page);
    expectTypeOf(grouped).toEqualTypeOf<GroupedChangelogStream<Click, number>>();
    expectTypeOf(
      grouped.updatingAggregate({ ...count, retract: (_c: Click, acc: number) => acc - 1 }),
    ).toEqualTypeOf<ChangelogStream<GroupResult<number, number>>>();
  });

  it('regular joins pad the outer side with null', () => {
    const { clicks, pages } = setup();
    const left = clicks.toChangelog();
    const right = pages.toChangelog();
    const on = { leftKey: (c: Click) => c.page, rightKey: (p: Page) => p.id, ttl: 60_000 };
    expectTypeOf(left.regularJoin(right, on)).toEqualTypeOf<
      ChangelogStream<readonly [Click, Page]>
    >();
    expectTypeOf(left.regularJoin(right, { ...on, type: 'inner' })).toEqualTypeOf<
      ChangelogStream<readonly [Click, Page]>
    >();
    expectTypeOf(left.regularJoin(right, { ...on, type: 'left' })).toEqualTypeOf<
      ChangelogStream<readonly [Click, Page | null]>
    >();
    expectTypeOf(left.regularJoin(right, { ...on, type: 'right' })).toEqualTypeOf<
      ChangelogStream<readonly [Click | null, Page]>
    >();
    expectTypeOf(
      left.regularJoin(right, { ...on, type: 'full', where: (c, p) => c.user !== p.title }),
    ).toEqualTypeOf<ChangelogStream<readonly [Click | null, Page | null]>>();
    // @ts-expect-error the keys of both sides must have one type
    left.regularJoin(right, { ...on, rightKey: (p: Page) => p.title });
  });

  it('materialize and temporal joins', () => {
    const { clicks, pages } = setup();
    const view = pages.toChangelog().materialize((p) => p.id, { ttl: 60_000 });
    expectTypeOf(view).toEqualTypeOf<TableView<Page, number>>();
    expectTypeOf(view.primaryKey).toEqualTypeOf<(row: Page) => number>();
    expectTypeOf(view.toUpsertStream()).toEqualTypeOf<ChangelogStream<Page>>();
    expectTypeOf(view.toRetractStream()).toEqualTypeOf<ChangelogStream<Page>>();
    expectTypeOf(view.toInsertStream()).toEqualTypeOf<DataStream<Page>>();
    expectTypeOf(clicks.temporalJoin(view, { probeKey: (c) => c.page })).toEqualTypeOf<
      DataStream<readonly [Click, Page]>
    >();
    expectTypeOf(
      clicks.temporalJoin(view, { probeKey: (c) => c.page, type: 'left' }),
    ).toEqualTypeOf<DataStream<readonly [Click, Page | null]>>();
    // @ts-expect-error the probe key must have the table's key type
    clicks.temporalJoin(view, { probeKey: (c) => c.user });
  });
});
