/**
 * Turns a physical plan into the runtime's {@link ExecutionPlan}: each step
 * gets a factory of its operator (one instance per subtask). The only module
 * of the planner that knows the runtime's operator classes.
 */
import type { Change, ChangelogMode } from '../../core/changelog.js';
import type { KeyedProcessFunction } from '../../core/functions.js';
import type { Key } from '../../core/key-groups.js';
import type { Operator } from '../../core/operator.js';
import { Triggers } from '../../core/triggers.js';
import type { WindowAssigner } from '../../core/windows.js';
import type { ExecutionPlan, ExecutionVertex } from '../../runtime/execution/execution-plan.js';
import { AsyncWaitOperator } from '../../runtime/operators/async/async-wait.js';
import { LookupJoinFunction } from '../../runtime/operators/async/lookup-join-function.js';
import { SyncLookupJoinOperator } from '../../runtime/operators/async/sync-lookup-join.js';
import { BroadcastProcessOperator } from '../../runtime/operators/basic/broadcast-process.js';
import { CoProcessOperator, coFunctionRunner } from '../../runtime/operators/basic/co-process.js';
import { FilterOperator } from '../../runtime/operators/basic/filter.js';
import { FlatMapOperator } from '../../runtime/operators/basic/flat-map.js';
import { MapOperator } from '../../runtime/operators/basic/map.js';
import { ProcessOperator } from '../../runtime/operators/basic/process.js';
import { SinkOperator } from '../../runtime/operators/basic/sink.js';
import { TimestampsAndWatermarksOperator } from '../../runtime/operators/basic/timestamps-and-watermarks.js';
import { CepOperator } from '../../runtime/operators/cep/cep-operator.js';
import {
  LocalGroupAggregateOperator,
  type MergeableAggregateFunction,
  mergingAggregate,
} from '../../runtime/operators/changelog/local-group-aggregate.js';
import { MiniBatchAggregateOperator } from '../../runtime/operators/changelog/mini-batch-aggregate.js';
import { RegularJoinFunction } from '../../runtime/operators/changelog/regular-join.js';
import { tableViewFunction } from '../../runtime/operators/changelog/table-view.js';
import { TemporalJoinFunction } from '../../runtime/operators/changelog/temporal-join.js';
import { updatingAggregateFunction } from '../../runtime/operators/changelog/updating-aggregate.js';
import { windowChangelogFunction } from '../../runtime/operators/changelog/window-changelog.js';
import {
  BroadcastJoinOperator,
  SideEndMarkerOperator,
} from '../../runtime/operators/joins/broadcast-join.js';
import {
  IntervalJoinFunction,
  JOIN_LATE_METRIC,
} from '../../runtime/operators/joins/interval-join.js';
import {
  TimeIntervalJoinFunction,
  TimeIntervalJoinOperator,
  watermarkDelayOf,
} from '../../runtime/operators/joins/time-interval-join.js';
import {
  type CoGroupWindowFunction,
  innerJoinPairs,
  SessionJoinFunction,
  WindowJoinFunction,
} from '../../runtime/operators/joins/window-join.js';
import {
  DeduplicateFunction,
  WINDOW_LATE_METRIC,
  WindowDeduplicateFunction,
} from '../../runtime/operators/keyed/deduplicate.js';
import { KeyedBroadcastProcessOperator } from '../../runtime/operators/keyed/keyed-broadcast-process.js';
import {
  KeyedCoProcessOperator,
  LateCountingKeyedOperator,
} from '../../runtime/operators/keyed/keyed-co-process.js';
import { KeyedProcessOperator } from '../../runtime/operators/keyed/keyed-process.js';
import { RollingReduceOperator } from '../../runtime/operators/keyed/rolling-reduce.js';
import { TopNFunction, WindowTopNFunction } from '../../runtime/operators/keyed/top-n.js';
import { evictingContents } from '../../runtime/windowing/evicting-contents.js';
import { LocalWindowCombiner } from '../../runtime/windowing/local-window-combiner.js';
import { gcd, SliceWindowOperator } from '../../runtime/windowing/slice-window-operator.js';
import {
  aggregateAggregation,
  evictingAggregation,
  listAggregation,
  processFiring,
  reduceAggregation,
  resultFiring,
  type WindowAggregation,
  type WindowFiring,
} from '../../runtime/windowing/window-aggregation.js';
import { WindowOperator } from '../../runtime/windowing/window-operator.js';
import type {
  UpdatingAggregateNode,
  WindowAggregationSpec,
  WindowFiringSpec,
  WindowNode,
} from '../logical/nodes.js';
import type { UpdatingAggregateSpec } from '../logical/specs.js';
import { changeChecker } from './change-checker.js';
import type { DirectNode, PlannedJob, PlannedNode } from './physical-node.js';

/** Accumulators a two-phase window's local half holds before it flushes them all. */
const LOCAL_COMBINER_MAX_ENTRIES = 65_536;

/** An operator factory with its types erased: the plan wires operators by position, not by type. */
type Factory = () => Operator<unknown, unknown>;

/** Settings of the job, not of any one node, that operators are built with. */
export interface TranslateOptions {
  /**
   * The periodic watermark interval (ms) for watermark steps whose strategy
   * sets none; undefined: generators are asked after each batch only.
   */
  readonly autoWatermarkIntervalMs?: number | undefined;
}

/** What the runtime runs for `plan`. */
export function toExecutionPlan(plan: PlannedJob, options: TranslateOptions = {}): ExecutionPlan {
  const vertices = plan.nodes.map((node): ExecutionVertex => {
    const base = {
      id: node.id,
      operatorId: node.operatorId,
      name: node.name,
      parallelism: node.parallelism,
      chainHead: node.chainHead,
    };
    const op = node.operator;
    if (op.kind === 'source') return { ...base, kind: 'source', source: op.node.source };
    const sink = op.kind === 'direct' && op.node.kind === 'sink' ? op.node.sink : undefined;
    return { ...base, kind: 'operator', createOperator: operatorFactory(node, options), sink };
  });
  return { vertices, edges: plan.edges, maxParallelism: plan.maxParallelism };
}

function operatorFactory(node: PlannedNode, options: TranslateOptions): Factory {
  const op = node.operator;
  switch (op.kind) {
    case 'source':
      throw new Error('a source has no operator');
    case 'direct':
      return directFactory(op.node, options);
    case 'sync-lookup-join': {
      const { table, spec } = op.node;
      return () => new SyncLookupJoinOperator(table, spec) as Operator<unknown, unknown>;
    }
    case 'async-lookup-join': {
      const { table, spec } = op.node;
      return () =>
        new AsyncWaitOperator(new LookupJoinFunction(table, spec), spec.async) as Operator<
          unknown,
          unknown
        >;
    }
    case 'slice-window':
      return sliceWindowFactory(op.node, op.twoPhase ? op.localFolding : undefined);
    case 'local-window-combiner':
      return localCombinerFactory(op.node, op.folding, node);
    case 'general-window':
      return generalWindowFactory(op.node);
    case 'local-group-aggregate':
      return op.folding ? localGroupAggregateFactory(op.node, op.selectKey) : passThrough();
    case 'global-group-aggregate':
      return op.folding
        ? globalGroupAggregateFactory(op.node)
        : erase(() => new MiniBatchAggregateOperator(op.node.spec));
  }
}

/** An operator that passes its records on unchanged. */
function passThrough(): Factory {
  return erase(() => new MapOperator<unknown, unknown>((v) => v));
}

/** The local half of a two-phase GROUP BY: the bundle is the mini-batch's. */
function localGroupAggregateFactory(
  node: UpdatingAggregateNode,
  selectKey: (value: never) => Key,
): Factory {
  const { fn, miniBatch } = node.spec;
  if (miniBatch === undefined) throw new Error(`two-phase '${node.name}' has no mini-batch`);
  return erase(
    () => new LocalGroupAggregateOperator(selectKey as (value: unknown) => Key, fn, miniBatch),
  );
}

/** The global half: the node's mini-batch aggregation, merging partials instead of adding rows. */
function globalGroupAggregateFactory(node: UpdatingAggregateNode): Factory {
  const { fn } = node.spec;
  if (typeof fn.merge !== 'function')
    throw new Error(`two-phase '${node.name}' has an aggregate function without merge`);
  const spec = {
    ...node.spec,
    fn: mergingAggregate(fn as MergeableAggregateFunction<unknown, unknown, unknown>),
  } as UpdatingAggregateSpec<unknown, unknown, unknown>;
  return erase(() => new MiniBatchAggregateOperator(spec));
}

/** Operators that need no choice: one per logical kind. */
function directFactory(node: DirectNode, options: TranslateOptions): Factory {
  switch (node.kind) {
    case 'map':
      return erase(() => new MapOperator(node.fn as (value: unknown) => unknown));
    case 'filter':
      return erase(() => new FilterOperator(node.predicate as (value: unknown) => boolean));
    case 'flat-map':
      return erase(() => new FlatMapOperator(node.fn));
    case 'process':
      return erase(() => new ProcessOperator(node.fn));
    case 'async':
      return erase(() => new AsyncWaitOperator(node.fn, node.spec));
    case 'timestamps-watermarks':
      return erase(
        () =>
          new TimestampsAndWatermarksOperator(node.spec, {
            periodicIntervalMs: options.autoWatermarkIntervalMs,
          }),
      );
    case 'rebalance':
    case 'broadcast':
      // The partitioning is on the edge; the records pass unchanged.
      return passThrough();
    case 'keyed-process':
      return erase(() => new KeyedProcessOperator(node.fn));
    case 'rolling-reduce': {
      const queryable = node.queryable === true;
      return erase(() => new RollingReduceOperator(node.fn, queryable));
    }
    case 'cep': {
      const spec = node.spec;
      return erase(() => new CepOperator(spec));
    }
    case 'window-join': {
      const { windows, leftLateTag, rightLateTag, ownLateness } = node;
      const apply = (
        node.apply.kind === 'join' ? innerJoinPairs(node.apply.fn) : node.apply.fn
      ) as CoGroupWindowFunction<Key, unknown, unknown, unknown>;
      const lateTags = { leftLateTag, rightLateTag };
      const createFunction =
        'gap' in windows
          ? () => new SessionJoinFunction({ gap: windows.gap, apply, ...lateTags })
          : () => new WindowJoinFunction({ windows, apply, ...lateTags, ownLateness });
      return erase(() => new KeyedCoProcessOperator(createFunction(), JOIN_LATE_METRIC));
    }
    case 'interval-join':
      return erase(
        () => new KeyedCoProcessOperator(new IntervalJoinFunction(node.spec), JOIN_LATE_METRIC),
      );
    case 'time-interval-join': {
      const { spec } = node;
      return erase(
        () =>
          new TimeIntervalJoinOperator(new TimeIntervalJoinFunction(spec), watermarkDelayOf(spec)),
      );
    }
    case 'co-process': {
      const { apply } = node;
      return erase(() => new CoProcessOperator(coFunctionRunner(apply)));
    }
    case 'keyed-co-process': {
      const { apply } = node;
      return erase(() => new KeyedCoProcessOperator(coFunctionRunner(apply), undefined));
    }
    case 'keyed-broadcast-process':
      return erase(() => new KeyedBroadcastProcessOperator(node.fn));
    case 'broadcast-process':
      return erase(() => new BroadcastProcessOperator(node.fn));
    case 'broadcast-side-end':
      return erase(() => new SideEndMarkerOperator<unknown>());
    case 'broadcast-join':
      return erase(() => new BroadcastJoinOperator(node.spec));
    case 'deduplicate':
      return erase(
        () => new KeyedProcessOperator(new DeduplicateFunction<Key, unknown>(node.spec)),
      );
    case 'window-deduplicate':
      return erase(
        () =>
          new LateCountingKeyedOperator(
            new WindowDeduplicateFunction<Key, unknown>(
              node.windows,
              node.keep,
              node.lateDataTag,
              node.timeOf as ((record: unknown) => number) | undefined,
            ),
            WINDOW_LATE_METRIC,
          ),
      );
    case 'top-n':
      return erase(() => new KeyedProcessOperator(new TopNFunction<Key, unknown>(node.spec)));
    case 'window-top-n':
      return erase(
        () =>
          new LateCountingKeyedOperator(
            new WindowTopNFunction<Key, unknown>(
              node.windows,
              node.n,
              node.compare,
              node.lateDataTag,
            ),
            WINDOW_LATE_METRIC,
          ),
      );
    case 'to-changelog':
      return erase(
        () => new MapOperator<unknown, Change<unknown>>((value) => ({ kind: '+I', value })),
      );
    case 'as-changelog':
      return asChangelogFactory(node.mode);
    case 'updating-aggregate':
      if (node.spec.miniBatch !== undefined) {
        const spec = node.spec;
        return erase(() => new MiniBatchAggregateOperator(spec));
      }
      return erase(
        () =>
          new KeyedProcessOperator(
            updatingAggregateFunction<Key, unknown, unknown, unknown>(
              node.spec,
            ) as KeyedProcessFunction<Key, unknown, unknown>,
          ),
      );
    case 'table-view':
      return erase(
        () =>
          new KeyedProcessOperator(
            tableViewFunction<Key, unknown>(node.output, node.ttl, node.serializer),
          ),
      );
    case 'regular-join':
      return erase(
        () =>
          new KeyedCoProcessOperator(
            new RegularJoinFunction<Key, unknown, unknown>(node.spec),
            undefined,
          ),
      );
    case 'temporal-join':
      return erase(
        () =>
          new KeyedCoProcessOperator(
            new TemporalJoinFunction<Key, unknown, unknown>(
              node.joinType === 'left',
              node.serializers,
            ),
            undefined,
          ),
      );
    case 'window-changelog':
      return erase(
        () =>
          new KeyedProcessOperator(
            windowChangelogFunction<Key, unknown>(node.mode, node.allowedLateness),
          ),
      );
    case 'sink':
      return erase(() => new SinkOperator(node.sink));
  }
}

/** Checks every record is a change of `mode` (a declared changelog), failing the job on one that is not. */
function asChangelogFactory(mode: ChangelogMode): Factory {
  const check = changeChecker(mode);
  return erase(() => new MapOperator<unknown, unknown>(check));
}

function erase<I, O>(create: () => Operator<I, O>): Factory {
  return create as unknown as Factory;
}

function windowAggregation(
  spec: WindowAggregationSpec,
): WindowAggregation<unknown, unknown, unknown> {
  switch (spec.kind) {
    case 'reduce':
      return reduceAggregation(spec.fn) as WindowAggregation<unknown, unknown, unknown>;
    case 'aggregate':
      return aggregateAggregation(spec.fn);
    case 'list':
      return listAggregation<unknown>() as WindowAggregation<unknown, unknown, unknown>;
  }
}

/** A new firing per operator instance: a process firing holds its own instance of the user's function. */
function windowFiring(spec: WindowFiringSpec): WindowFiring<Key, unknown, unknown> {
  return spec.kind === 'result'
    ? (resultFiring<Key, unknown>() as WindowFiring<Key, unknown, unknown>)
    : processFiring<Key, unknown, unknown>(spec.fn, spec.incremental);
}

/** Slice length and offset of a tumbling or sliding assigner. */
function slicesOf(assigner: WindowAssigner<unknown>): {
  size: number;
  slide: number;
  offset: number;
} {
  if (assigner.kind === 'tumbling') {
    return { size: assigner.size, slide: assigner.size, offset: assigner.offset };
  }
  if (assigner.kind === 'sliding') {
    return { size: assigner.size, slide: assigner.slide, offset: assigner.offset };
  }
  throw new Error(`${assigner.kind} windows have no slices`);
}

function sliceWindowFactory(node: WindowNode, localFolding: boolean | undefined): Factory {
  const aggregation = windowAggregation(node.aggregation);
  const { size, slide, offset } = slicesOf(node.assigner);
  const { allowedLateness, lateDataTag, processingTimeCloseMs, firing } = node;
  return erase(
    () =>
      new SliceWindowOperator({
        size,
        slide,
        offset,
        allowedLateness,
        lateDataTag,
        aggregation,
        firing: windowFiring(firing),
        processingTimeCloseMs,
        queryable: node.queryable,
        ...(localFolding === undefined ? {} : { localFolding }),
      }),
  );
}

function localCombinerFactory(node: WindowNode, folding: boolean, step: PlannedNode): Factory {
  const aggregation = windowAggregation(node.aggregation);
  const { size, slide, offset } = slicesOf(node.assigner);
  // The combiner keys records as the exchange after it would (the window's key selector).
  const keyed = node.inputs[0]?.partitioning;
  if (keyed?.kind !== 'keyed') throw new Error(`'${step.name}' precedes no keyed exchange`);
  const selectKey = keyed.selectKey as (value: unknown) => Key;
  return erase(
    () =>
      new LocalWindowCombiner({
        pane: gcd(size, slide),
        offset,
        aggregation,
        selectKey,
        folding,
        maxEntries: LOCAL_COMBINER_MAX_ENTRIES,
      }),
  );
}

function generalWindowFactory(node: WindowNode): Factory {
  const { assigner, allowedLateness, lateDataTag, processingTimeCloseMs, keepLast, evictor } = node;
  const aggregation = windowAggregation(node.aggregation);
  const contents =
    evictor !== undefined
      ? evictingContents(aggregation, evictor)
      : keepLast === undefined
        ? aggregation
        : evictingAggregation(aggregation, keepLast);
  const trigger = node.trigger ?? defaultTrigger(assigner);
  return erase(
    () =>
      new WindowOperator({
        assigner,
        trigger,
        allowedLateness,
        lateDataTag,
        aggregation: contents as WindowAggregation<unknown, unknown, unknown>,
        firing: windowFiring(node.firing),
        processingTimeCloseMs,
        queryable: node.queryable,
      }),
  );
}

function defaultTrigger(assigner: WindowAssigner<unknown>) {
  if (assigner.kind === 'global') return Triggers.never<unknown>();
  return assigner.timeDomain === 'event-time'
    ? Triggers.eventTime<unknown>()
    : Triggers.processingTime<unknown>();
}
