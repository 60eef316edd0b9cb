/**
 * The classes behind the fluent API match its public interfaces
 * (src/api/streams.ts), so the interfaces can be all users see while the
 * classes stay unexported. Checked by the type checker (`npm run typecheck`).
 *
 * A plain "class is assignable to interface" check cannot be made yet: the
 * classes' methods return classes, and relating each to its interface
 * unfolds every stream type into every other (a changelog of changes of
 * changes...) until the checker gives up. Once the classes declare
 * `implements` and return the interface types, that check is the compiler's
 * and costs nothing. Until then this file proves the parts that matter:
 * - each class has every member of its interface, and exactly the listed
 *   internal members besides (the ones the interfaces hide);
 * - every overload, called with the same arguments on a class and on its
 *   interface, gives the same result type (class results mapped to their
 *   interfaces).
 * The overloads still to come from another branch (`filter` with a type
 * guard, `executeAndCollect` with side outputs) are marked PENDING below.
 * Until every class has them, no class is assignable to its interface at all
 * (every stream type leads to `DataStream`), which is also why
 * `StreamEnvironment` cannot yet stand behind `StreamEnvironmentConstructor`.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type {
  ChangelogStream as ChangelogStreamClass,
  GroupedChangelogStream as GroupedChangelogStreamClass,
  TableView as TableViewClass,
} from '../../src/api/changelog-stream.js';
import {
  type DataStream as DataStreamClass,
  DataStream as DataStreamImpl,
  type KeyedStream as KeyedStreamClass,
} from '../../src/api/data-stream.js';
import { StreamEnvironment as StreamEnvironmentClass } from '../../src/api/environment.js';
import { implOf } from '../../src/api/impl-of.js';
import type {
  IntervalJoin as IntervalJoinClass,
  IntervalJoined as IntervalJoinedClass,
  TwoStreams as TwoStreamsClass,
  TwoStreamsEqualTo as TwoStreamsEqualToClass,
  TwoStreamsWhere as TwoStreamsWhereClass,
  WindowCoGroup as WindowCoGroupClass,
  WindowJoin as WindowJoinClass,
} from '../../src/api/joins.js';
import type {
  ChangelogStream,
  DataStream,
  GroupedChangelogStream,
  IntervalJoin,
  IntervalJoined,
  KeyedStream,
  StreamEnvironmentApi,
  TableView,
  TwoStreams,
  TwoStreamsEqualTo,
  TwoStreamsWhere,
  WindowCoGroup,
  WindowedStream,
  WindowJoin,
} from '../../src/api/streams.js';
import type { WindowedStream as WindowedStreamClass } from '../../src/api/windowed-stream.js';
import type { Change } from '../../src/core/changelog.js';
import { OutputTag } from '../../src/core/output-tag.js';
import type { Sink } from '../../src/core/sink.js';
import { Windows } from '../../src/core/windows.js';

interface Left {
  readonly id: string;
  readonly n: number;
}
type Zero = Left & { readonly n: 0 };
interface Right {
  readonly ref: string;
  readonly at: number;
}

/** Members of class C that its interface I lacks: what the interface hides. */
type Hidden<C, I> = Exclude<keyof C, keyof I>;
/** Members of interface I that class C lacks (must be none). */
type Missing<C, I> = Exclude<keyof I, keyof C>;

/** The public interface of a class's instance type; other types unchanged. */
type Public<X> =
  X extends ChangelogStreamClass<infer T>
    ? ChangelogStream<T>
    : X extends DataStreamClass<infer T>
      ? DataStream<T>
      : X extends KeyedStreamClass<infer T, infer K>
        ? KeyedStream<T, K>
        : X extends WindowedStreamClass<infer T, infer K>
          ? WindowedStream<T, K>
          : X extends GroupedChangelogStreamClass<infer T, infer K>
            ? GroupedChangelogStream<T, K>
            : X extends TableViewClass<infer T, infer K>
              ? TableView<T, K>
              : X extends TwoStreamsClass<infer L, infer R, infer M>
                ? TwoStreams<L, R, M>
                : X extends TwoStreamsWhereClass<infer L, infer R, infer K, infer M>
                  ? TwoStreamsWhere<L, R, K, M>
                  : X extends TwoStreamsEqualToClass<infer L, infer R, infer K, infer M>
                    ? TwoStreamsEqualTo<L, R, K, M>
                    : X extends WindowCoGroupClass<infer L, infer R, infer K>
                      ? WindowCoGroup<L, R, K>
                      : X extends WindowJoinClass<infer L, infer R, infer K>
                        ? WindowJoin<L, R, K>
                        : X extends IntervalJoinedClass<infer L, infer R, infer K>
                          ? IntervalJoined<L, R, K>
                          : X extends IntervalJoinClass<infer L, infer R, infer K>
                            ? IntervalJoin<L, R, K>
                            : X;

type Equal<A, B> =
  (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;

/** Refuses to compile unless the interface's result is the class's result, mapped to interfaces. */
function same<C, A>(_cls: C, _api: A, ..._equal: Equal<Public<C>, A> extends true ? [] : [never]) {}

/** The classes, and the interfaces they implement, at the same type arguments. */
interface Pair<C, I> {
  readonly cls: C;
  readonly api: I;
}

/** Calls every overload on both sides; only type-checked, never run. */
function correspondence(
  ds: Pair<DataStreamClass<Left>, DataStream<Left>>,
  changes: Pair<DataStreamClass<Change<Left>>, DataStream<Change<Left>>>,
  right: Pair<DataStreamClass<Right>, DataStream<Right>>,
  keyed: Pair<KeyedStreamClass<Left, string>, KeyedStream<Left, string>>,
  keyedRight: Pair<KeyedStreamClass<Right, string>, KeyedStream<Right, string>>,
  windowed: Pair<WindowedStreamClass<Left, string>, WindowedStream<Left, string>>,
  changelog: Pair<ChangelogStreamClass<Left>, ChangelogStream<Left>>,
  changelogRight: Pair<ChangelogStreamClass<Right>, ChangelogStream<Right>>,
  view: Pair<TableViewClass<Right, string>, TableView<Right, string>>,
  env: Pair<StreamEnvironmentClass, StreamEnvironmentApi>,
): void {
  const sink = {} as Sink<Left>;
  const tag = new OutputTag<Left>('t');
  const rightTag = new OutputTag<Right>('r');
  const tumbling = Windows.tumbling(1000);
  const lookup = { name: 't', lookup: async () => new Map<string, Right>() };
  const count = {
    createAccumulator: () => 0,
    add: (_l: Left, acc: number) => acc + 1,
    getResult: (acc: number) => acc,
  };

  // DataStream
  same(ds.cls.uid('u'), ds.api.uid('u'));
  same(ds.cls.name('n'), ds.api.name('n'));
  same(ds.cls.setParallelism(2), ds.api.setParallelism(2));
  same(
    ds.cls.map((l) => l.n),
    ds.api.map((l) => l.n),
  );
  same(
    ds.cls.filter((l) => l.n > 0),
    ds.api.filter((l) => l.n > 0),
  );
  same(
    ds.cls.flatMap<number>((l, out) => out.collect(l.n)),
    ds.api.flatMap<number>((l, out) => out.collect(l.n)),
  );
  const processFn = { processElement: (l: Left) => void l };
  same(ds.cls.process<number>(processFn), ds.api.process<number>(processFn));
  same(
    ds.cls.flatMapAsync(async (l: Left) => [l.n], { capacity: 2 }),
    ds.api.flatMapAsync(async (l: Left) => [l.n], { capacity: 2 }),
  );
  const inner = { key: (l: Left) => l.id, select: (l: Left, r: Right) => [l, r] as const };
  same(ds.cls.lookupJoin(lookup, inner), ds.api.lookupJoin(lookup, inner));
  const left = {
    join: 'left',
    key: (l: Left) => l.id,
    select: (_l: Left, r: Right | null) => r,
  } as const;
  same(ds.cls.lookupJoin(lookup, left), ds.api.lookupJoin(lookup, left));
  const strategy = {} as Parameters<DataStream<Left>['assignTimestampsAndWatermarks']>[0];
  same(
    ds.cls.assignTimestampsAndWatermarks(strategy),
    ds.api.assignTimestampsAndWatermarks(strategy),
  );
  same(
    ds.cls.keyBy((l) => l.id),
    ds.api.keyBy((l) => l.id),
  );
  same(
    ds.cls.keyBy((l) => l.n, 'n'),
    ds.api.keyBy((l) => l.n, 'n'),
  );
  same(ds.cls.union(ds.cls), ds.api.union(ds.api));
  same(ds.cls.join(right.cls), ds.api.join(right.api));
  same(ds.cls.coGroup(right.cls), ds.api.coGroup(right.api));
  const broadcastOptions = {
    mainKey: (l: Left) => l.id,
    sideKey: (r: Right) => r.ref,
    join: (l: Left, r: Right) => l.n + r.at,
  };
  same(
    ds.cls.broadcastJoin(right.cls, broadcastOptions),
    ds.api.broadcastJoin(right.api, broadcastOptions),
  );
  same(
    ds.cls.broadcastJoinChangelog(changelogRight.cls, broadcastOptions),
    ds.api.broadcastJoinChangelog(changelogRight.api, broadcastOptions),
  );
  same(ds.cls.rebalance(), ds.api.rebalance());
  same(ds.cls.broadcast(), ds.api.broadcast());
  same(ds.cls.getSideOutput(rightTag), ds.api.getSideOutput(rightTag));
  same(ds.cls.toChangelog(), ds.api.toChangelog());
  same(changes.cls.asChangelog('retract'), changes.api.asChangelog('retract'));
  same(
    changes.cls.asChangelog('upsert', (l) => l.id),
    changes.api.asChangelog('upsert', (l) => l.id),
  );
  same(
    ds.cls.temporalJoin(view.cls, { probeKey: (l) => l.id }),
    ds.api.temporalJoin(view.api, { probeKey: (l) => l.id }),
  );
  same(
    ds.cls.temporalJoin(view.cls, { probeKey: (l) => l.id, type: 'left' }),
    ds.api.temporalJoin(view.api, { probeKey: (l) => l.id, type: 'left' }),
  );
  same(ds.cls.sinkTo(sink), ds.api.sinkTo(sink));
  same(ds.cls.executeAndCollect(), ds.api.executeAndCollect());
  same(ds.cls.executeAndCollect('job'), ds.api.executeAndCollect('job'));

  // PENDING #13: the overloads another branch adds. Until they exist the
  // classes fail these checks; once they do, tsc reports each directive below
  // as unused, and deleting the directives enables the checks.
  const isZero = (l: Left): l is Zero => l.n === 0;
  const zeroChange = (c: Change<Left>): c is Change<Zero> => c.value.n === 0;
  const insert = (c: Change<Left>): c is Change<Left> & { readonly kind: '+I' } => c.kind === '+I';
  const sideOutputs = { late: tag, other: rightTag };
  // A guard to one kind of change keeps a changelog of the same rows, as today.
  same(changelog.cls.filter(insert), changelog.api.filter(insert));
  // @ts-expect-error
  same(ds.cls.filter(isZero), ds.api.filter(isZero));
  // @ts-expect-error
  same(keyed.cls.filter(isZero), keyed.api.filter(isZero));
  // @ts-expect-error
  same(changelog.cls.filter(zeroChange), changelog.api.filter(zeroChange));
  // @ts-expect-error
  same(ds.cls.executeAndCollect({ sideOutputs }), ds.api.executeAndCollect({ sideOutputs }));

  // KeyedStream
  same(
    keyed.cls.map((l) => l.n),
    keyed.api.map((l) => l.n),
  );
  same(
    keyed.cls.filter((l) => l.n > 0),
    keyed.api.filter((l) => l.n > 0),
  );
  same(
    keyed.cls.flatMap<number>((l, out) => out.collect(l.n)),
    keyed.api.flatMap<number>((l, out) => out.collect(l.n)),
  );
  const broadcastFn = {
    processElement: (l: Left) => void l,
    processBroadcastElement: (r: Right) => void r,
  };
  same(
    keyed.cls.connectBroadcast<Right, number, string, number>(right.cls, broadcastFn),
    keyed.api.connectBroadcast<Right, number, string, number>(right.api, broadcastFn),
  );
  same(keyed.cls.updatingAggregate(count), keyed.api.updatingAggregate(count));
  same(
    keyed.cls.updatingAggregate(count, { mode: 'upsert' }),
    keyed.api.updatingAggregate(count, { mode: 'upsert' }),
  );
  same(keyed.cls.deduplicate({ keep: 'first' }), keyed.api.deduplicate({ keep: 'first' }));
  same(keyed.cls.deduplicate({ keep: 'last' }), keyed.api.deduplicate({ keep: 'last' }));
  same(
    keyed.cls.windowDeduplicate(tumbling, { keep: 'first', lateDataTag: tag }),
    keyed.api.windowDeduplicate(tumbling, { keep: 'first', lateDataTag: tag }),
  );
  same(keyed.cls.intervalJoin(keyedRight.cls), keyed.api.intervalJoin(keyedRight.api));
  const compare = (a: Left, b: Left) => a.n - b.n;
  same(keyed.cls.topN({ n: 2, compare }), keyed.api.topN({ n: 2, compare }));
  same(
    keyed.cls.topN({ n: 2, compare, rankNumber: true }),
    keyed.api.topN({ n: 2, compare, rankNumber: true }),
  );
  same(
    keyed.cls.windowTopN(tumbling, { n: 2, compare }),
    keyed.api.windowTopN(tumbling, { n: 2, compare }),
  );
  same(
    keyed.cls.reduce((a) => a),
    keyed.api.reduce((a) => a),
  );
  const keyedProcess = { processElement: (l: Left) => void l };
  same(keyed.cls.process<number>(keyedProcess), keyed.api.process<number>(keyedProcess));
  same(keyed.cls.window(tumbling), keyed.api.window(tumbling));
  same(keyed.cls.countWindow(3), keyed.api.countWindow(3));
  same(keyed.cls.countWindow(3, 1), keyed.api.countWindow(3, 1));

  // WindowedStream
  const trigger = {} as Parameters<WindowedStream<Left, string>['trigger']>[0];
  same(windowed.cls.trigger(trigger), windowed.api.trigger(trigger));
  same(windowed.cls.allowedLateness(1), windowed.api.allowedLateness(1));
  same(windowed.cls.closeByProcessingTime(1), windowed.api.closeByProcessingTime(1));
  same(windowed.cls.sideOutputLateData(tag), windowed.api.sideOutputLateData(tag));
  same(
    windowed.cls.reduce((a) => a),
    windowed.api.reduce((a) => a),
  );
  const windowFn = { process: (key: string) => void key };
  same(
    windowed.cls.reduce<number>((a) => a, windowFn),
    windowed.api.reduce<number>((a) => a, windowFn),
  );
  same(windowed.cls.aggregate(count), windowed.api.aggregate(count));
  same(
    windowed.cls.aggregate<number, number, string>(count, windowFn),
    windowed.api.aggregate<number, number, string>(count, windowFn),
  );
  same(windowed.cls.aggregateChanges(count), windowed.api.aggregateChanges(count));
  same(
    windowed.cls.aggregateChanges(count, 'upsert'),
    windowed.api.aggregateChanges(count, 'upsert'),
  );
  same(
    windowed.cls.reduceChanges((a) => a, 'retract'),
    windowed.api.reduceChanges((a) => a, 'retract'),
  );
  same(windowed.cls.process<number>(windowFn), windowed.api.process<number>(windowFn));

  // ChangelogStream (and what it inherits)
  same(changelog.cls.mode, changelog.api.mode);
  same(changelog.cls.upsertKey, changelog.api.upsertKey);
  same(
    changelog.cls.filter((c) => c.kind === '+I'),
    changelog.api.filter((c) => c.kind === '+I'),
  );
  same(
    changelog.cls.filterRows((l) => l.n > 0),
    changelog.api.filterRows((l) => l.n > 0),
  );
  same(
    changelog.cls.mapRows((l) => l.id),
    changelog.api.mapRows((l) => l.id),
  );
  same(
    changelog.cls.mapRows(
      (l) => l.id,
      (id) => id,
    ),
    changelog.api.mapRows(
      (l) => l.id,
      (id) => id,
    ),
  );
  same(changelog.cls.union(changelog.cls), changelog.api.union(changelog.api));
  same(
    changelog.cls.map((c) => c.kind),
    changelog.api.map((c) => c.kind),
  );
  for (const type of ['inner', 'left', 'right', 'full'] as const) {
    const on = { type, leftKey: (l: Left) => l.id, rightKey: (r: Right) => r.ref, ttl: 1 };
    same(
      changelog.cls.regularJoin(changelogRight.cls, on),
      changelog.api.regularJoin(changelogRight.api, on),
    );
  }
  const grouped = {
    cls: changelog.cls.groupBy((l) => l.n),
    api: changelog.api.groupBy((l) => l.n),
  };
  same(grouped.cls, grouped.api);
  same(grouped.cls.updatingAggregate(count), grouped.api.updatingAggregate(count));
  same(
    changelog.cls.materialize((l) => l.id, { ttl: 1 }),
    changelog.api.materialize((l) => l.id, { ttl: 1 }),
  );

  // TableView
  same(view.cls.primaryKey, view.api.primaryKey);
  same(view.cls.toUpsertStream(), view.api.toUpsertStream());
  same(view.cls.toRetractStream(), view.api.toRetractStream());
  same(view.cls.toInsertStream(), view.api.toInsertStream());

  // Window joins and co-groups
  for (const mode of ['join', 'coGroup'] as const) {
    const two = { cls: ds.cls[mode](right.cls), api: ds.api[mode](right.api) };
    const where = { cls: two.cls.where((l) => l.id), api: two.api.where((l) => l.id) };
    same(where.cls, where.api);
    const equal = { cls: where.cls.equalTo((r) => r.ref), api: where.api.equalTo((r) => r.ref) };
    same(equal.cls, equal.api);
    same(equal.cls.window(tumbling), equal.api.window(tumbling));
  }
  const windowJoin = {
    cls: ds.cls
      .join(right.cls)
      .where((l) => l.id)
      .equalTo((r) => r.ref)
      .window(tumbling),
    api: ds.api
      .join(right.api)
      .where((l) => l.id)
      .equalTo((r) => r.ref)
      .window(tumbling),
  };
  same(windowJoin.cls.sideOutputLeftLateData(tag), windowJoin.api.sideOutputLeftLateData(tag));
  same(
    windowJoin.cls.sideOutputRightLateData(rightTag),
    windowJoin.api.sideOutputRightLateData(rightTag),
  );
  same(
    windowJoin.cls.apply((l, r) => l.n + r.at),
    windowJoin.api.apply((l, r) => l.n + r.at),
  );
  const coGroup = {
    cls: ds.cls
      .coGroup(right.cls)
      .where((l) => l.id)
      .equalTo((r) => r.ref)
      .window(tumbling),
    api: ds.api
      .coGroup(right.api)
      .where((l) => l.id)
      .equalTo((r) => r.ref)
      .window(tumbling),
  };
  same(coGroup.cls.sideOutputLeftLateData(tag), coGroup.api.sideOutputLeftLateData(tag));
  same(
    coGroup.cls.sideOutputRightLateData(rightTag),
    coGroup.api.sideOutputRightLateData(rightTag),
  );
  same(
    coGroup.cls.apply<number>((ls, rs, out) => out.collect(ls.length + rs.length)),
    coGroup.api.apply<number>((ls, rs, out) => out.collect(ls.length + rs.length)),
  );

  // Interval joins
  const interval = {
    cls: keyed.cls.intervalJoin(keyedRight.cls).between(-1, 1),
    api: keyed.api.intervalJoin(keyedRight.api).between(-1, 1),
  };
  same(interval.cls, interval.api);
  same(interval.cls.lowerBoundExclusive(), interval.api.lowerBoundExclusive());
  same(interval.cls.upperBoundExclusive(), interval.api.upperBoundExclusive());
  same(interval.cls.sideOutputLeftLateData(tag), interval.api.sideOutputLeftLateData(tag));
  same(
    interval.cls.sideOutputRightLateData(rightTag),
    interval.api.sideOutputRightLateData(rightTag),
  );
  same(
    interval.cls.join((l, r) => [l, r] as const),
    interval.api.join((l, r) => [l, r] as const),
  );
  same(
    interval.cls.process<string>((l, _r, ctx, out) => out.collect(l.id + ctx.key)),
    interval.api.process<string>((l, _r, ctx, out) => out.collect(l.id + ctx.key)),
  );

  // StreamEnvironment
  same(env.cls.parallelism, env.api.parallelism);
  same(env.cls.maxParallelism, env.api.maxParallelism);
  same(env.cls.workerCount, env.api.workerCount);
  same(env.cls.fromArray([1]), env.api.fromArray([1]));
  same(env.cls.fromArray<Left>([], 'a'), env.api.fromArray<Left>([], 'a'));
  const generator = { generate: (i: number) => ({ id: String(i), n: i }), count: 1 };
  same(env.cls.fromGenerator(generator), env.api.fromGenerator(generator));
  const source = {} as Parameters<StreamEnvironmentApi['fromSource']>[0];
  same(env.cls.fromSource(source), env.api.fromSource(source));
  const format = {} as Parameters<StreamEnvironmentApi['fromFile']>[1];
  same(env.cls.fromFile(['a'], format, {}), env.api.fromFile(['a'], format, {}));
  same(env.cls.watchDirectory('d', format), env.api.watchDirectory('d', format));
  same(env.cls.execute('job', {}), env.api.execute('job', {}));
  same(env.cls.executeAsync('job'), env.api.executeAsync('job'));
}

describe('each API class matches its public interface', () => {
  it('every interface member exists on its class', () => {
    expectTypeOf<Missing<DataStreamClass<Left>, DataStream<Left>>>().toEqualTypeOf<never>();
    expectTypeOf<
      Missing<KeyedStreamClass<Left, string>, KeyedStream<Left, string>>
    >().toEqualTypeOf<never>();
    expectTypeOf<
      Missing<WindowedStreamClass<Left, string>, WindowedStream<Left, string>>
    >().toEqualTypeOf<never>();
    expectTypeOf<
      Missing<ChangelogStreamClass<Left>, ChangelogStream<Left>>
    >().toEqualTypeOf<never>();
    expectTypeOf<
      Missing<GroupedChangelogStreamClass<Left, string>, GroupedChangelogStream<Left, string>>
    >().toEqualTypeOf<never>();
    expectTypeOf<
      Missing<TableViewClass<Left, string>, TableView<Left, string>>
    >().toEqualTypeOf<never>();
    expectTypeOf<
      Missing<TwoStreamsClass<Left, Right, 'join'>, TwoStreams<Left, Right, 'join'>>
    >().toEqualTypeOf<never>();
    expectTypeOf<
      Missing<
        TwoStreamsWhereClass<Left, Right, string, 'join'>,
        TwoStreamsWhere<Left, Right, string, 'join'>
      >
    >().toEqualTypeOf<never>();
    expectTypeOf<
      Missing<
        TwoStreamsEqualToClass<Left, Right, string, 'join'>,
        TwoStreamsEqualTo<Left, Right, string, 'join'>
      >
    >().toEqualTypeOf<never>();
    expectTypeOf<
      Missing<WindowJoinClass<Left, Right, string>, WindowJoin<Left, Right, string>>
    >().toEqualTypeOf<never>();
    expectTypeOf<
      Missing<WindowCoGroupClass<Left, Right, string>, WindowCoGroup<Left, Right, string>>
    >().toEqualTypeOf<never>();
    expectTypeOf<
      Missing<IntervalJoinClass<Left, Right, string>, IntervalJoin<Left, Right, string>>
    >().toEqualTypeOf<never>();
    expectTypeOf<
      Missing<IntervalJoinedClass<Left, Right, string>, IntervalJoined<Left, Right, string>>
    >().toEqualTypeOf<never>();
    expectTypeOf<Missing<StreamEnvironmentClass, StreamEnvironmentApi>>().toEqualTypeOf<never>();
  });

  it('the interfaces hide exactly the internal members', () => {
    type StreamInternals = 'builder' | 'refs' | 'addTwoInputOperator' | 'changelogMode';
    expectTypeOf<
      Hidden<DataStreamClass<Left>, DataStream<Left>>
    >().toEqualTypeOf<StreamInternals>();
    expectTypeOf<Hidden<ChangelogStreamClass<Left>, ChangelogStream<Left>>>().toEqualTypeOf<
      StreamInternals | 'retractable'
    >();
    expectTypeOf<Hidden<KeyedStreamClass<Left, string>, KeyedStream<Left, string>>>().toEqualTypeOf<
      'addTwoPhaseKeyedOperator' | 'addKeyedOperator' | 'asJoinInput'
    >();
    expectTypeOf<
      Hidden<TableViewClass<Left, string>, TableView<Left, string>>
    >().toEqualTypeOf<'input'>();
    expectTypeOf<Hidden<StreamEnvironmentClass, StreamEnvironmentApi>>().toEqualTypeOf<
      | 'graph'
      | 'changelogs'
      | 'localAggregation'
      | 'setJobModule'
      | 'collectInto'
      | 'executeForCollect'
      | 'plan'
    >();
    // The rest keep their internals private already.
    expectTypeOf<
      Hidden<WindowedStreamClass<Left, string>, WindowedStream<Left, string>>
    >().toEqualTypeOf<never>();
    expectTypeOf<
      Hidden<GroupedChangelogStreamClass<Left, string>, GroupedChangelogStream<Left, string>>
    >().toEqualTypeOf<never>();
    expectTypeOf<
      Hidden<TwoStreamsClass<Left, Right, 'join'>, TwoStreams<Left, Right, 'join'>>
    >().toEqualTypeOf<never>();
    expectTypeOf<
      Hidden<
        TwoStreamsWhereClass<Left, Right, string, 'join'>,
        TwoStreamsWhere<Left, Right, string, 'join'>
      >
    >().toEqualTypeOf<never>();
    expectTypeOf<
      Hidden<
        TwoStreamsEqualToClass<Left, Right, string, 'join'>,
        TwoStreamsEqualTo<Left, Right, string, 'join'>
      >
    >().toEqualTypeOf<never>();
    expectTypeOf<
      Hidden<WindowJoinClass<Left, Right, string>, WindowJoin<Left, Right, string>>
    >().toEqualTypeOf<never>();
    expectTypeOf<
      Hidden<WindowCoGroupClass<Left, Right, string>, WindowCoGroup<Left, Right, string>>
    >().toEqualTypeOf<never>();
    expectTypeOf<
      Hidden<IntervalJoinClass<Left, Right, string>, IntervalJoin<Left, Right, string>>
    >().toEqualTypeOf<never>();
    expectTypeOf<
      Hidden<IntervalJoinedClass<Left, Right, string>, IntervalJoined<Left, Right, string>>
    >().toEqualTypeOf<never>();
  });

  it('every overload gives the same result on a class and on its interface', () => {
    expectTypeOf(correspondence).toBeFunction();
  });
});

describe('implOf', () => {
  it('returns the implementation, and names the method given an imitation', () => {
    const env = new StreamEnvironmentClass();
    const stream = env.fromArray([1]);
    const api: DataStream<number> = stream as unknown as DataStream<number>;
    expect(implOf(api, DataStreamImpl, 'union')).toBe(stream);
    expect(() => implOf({ map: () => api }, DataStreamImpl, 'union')).toThrow(
      /union\(\) needs a stream built by this environment's API/,
    );
  });
});
