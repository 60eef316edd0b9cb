import type { Clock } from '../../core/clock.js';
import type { Key } from '../../core/key-groups.js';
import type { Blocking, Operator, OperatorContext, Output } from '../../core/operator.js';
import type { SourceContext } from '../../core/source.js';
import type { MetricRegistry } from '../../metrics/registry.js';
import type { StateBackendOptions } from '../../state/create-backend.js';
import type { CheckpointData } from '../checkpoint/checkpoint-data.js';
import { restoredStateFor, sourcePositionFor, sourcePositionsOf } from '../checkpoint/restore.js';
import { ObservedChainedOutput, OPERATOR_METRICS } from '../instrumentation/operator-probe.js';
import { operatorLabels, PlanInstrumentation } from '../instrumentation/plan-instrumentation.js';
import { FusedStatelessRun, type FusedStep, isFusible } from '../operators/basic/fused-run.js';
import { Channel, type ChannelEnd } from '../task/channel.js';
import {
  BroadcastWriter,
  CustomPartitionWriter,
  type ExchangeWriter,
  ForwardWriter,
  GlobalWriter,
  KeyedWriter,
  RebalanceWriter,
  RescaleWriter,
  ShuffleWriter,
} from '../task/exchange.js';
import { ChainedOutput, DISCARDING_OUTPUT, FanOutOutput, OperatorOutput } from '../task/outputs.js';
import {
  type ChainMember,
  InputTask,
  SourceTask,
  type Task,
  type TaskWiring,
} from '../task/task.js';
import type { ProcessingTimeScheduler } from '../task/timers.js';
import {
  chainOf,
  type ExecutionEdge,
  type ExecutionPlan,
  type ExecutionVertex,
} from './execution-plan.js';

export interface TaskBuildOptions {
  readonly jobName: string;
  readonly batchSize: number;
  readonly channelCapacity: number;
  /** Buffer debloating: the time (ms) a channel's queued records may take to drain; off when undefined. */
  readonly debloatTargetMs?: number | undefined;
  readonly clock: Clock;
  readonly timers: ProcessingTimeScheduler;
  readonly metrics: MetricRegistry;
  /** Keyed state backend of stateful operators. */
  readonly stateBackend?: StateBackendOptions;
  /** The checkpoint to restore operator state and source positions from. */
  readonly restoreFrom?: CheckpointData;
  /** Time task steps, count records in, track watermarks and sink latency. Default true. */
  readonly instrumentation?: boolean;
  /** Build only some subtasks, on this thread (worker mode); all of them when omitted. */
  readonly placement?: TaskPlacement;
}

/**
 * Which subtasks this thread runs, and how it reaches the others. A channel
 * with both ends here is a plain {@link Channel}; one with a single end here
 * gets that end from `remoteEnd`.
 */
export interface TaskPlacement {
  owns(subtask: number): boolean;
  /** `edge` indexes `plan.edges`; `from` and `to` are the producer and consumer subtasks. */
  remoteEnd(
    edge: number,
    from: number,
    to: number,
    side: 'sender' | 'receiver',
    capacity: number,
  ): ChannelEnd<unknown>;
}

/** Every (chain, subtask) of a plan, in the order {@link buildTasks} creates tasks. */
export function taskSlots(
  plan: ExecutionPlan,
): { readonly head: number; readonly subtask: number; readonly isSource: boolean }[] {
  const slots: { head: number; subtask: number; isSource: boolean }[] = [];
  for (const v of plan.vertices) {
    if (v.chainHead !== v.id) continue;
    for (let s = 0; s < v.parallelism; s++)
      slots.push({ head: v.id, subtask: s, isSource: v.kind === 'source' });
  }
  return slots;
}

function isBlocking(op: unknown): op is Blocking {
  return typeof (op as Partial<Blocking>).blocked === 'function';
}

/**
 * Instantiates a physical plan: one operator object per (operator, subtask),
 * channels for every non-chained edge, and one task per (chain, subtask).
 * Returned in topological order (producers first).
 */
export function buildTasks(plan: ExecutionPlan, options: TaskBuildOptions): Task[] {
  const vertex = (id: number): ExecutionVertex => plan.vertices[id]!;
  const par = (id: number) => vertex(id).parallelism;

  const placement = options.placement;
  const owns = (subtask: number) => placement === undefined || placement.owns(subtask);
  // Channels of non-chained edges, by edge index, producer and consumer subtask.
  const channels = new Map<string, ChannelEnd<unknown>>();
  const edgeIndex = new Map(plan.edges.map((e, i) => [e, i]));
  const channel = (edge: ExecutionEdge, from: number, to: number): ChannelEnd<unknown> => {
    const e = edgeIndex.get(edge)!;
    const id = `${e}/${from}/${to}`;
    let c = channels.get(id);
    if (c === undefined) {
      const capacity = options.channelCapacity;
      if (owns(from) && owns(to)) c = new Channel(capacity);
      else c = placement!.remoteEnd(e, from, to, owns(from) ? 'sender' : 'receiver', capacity);
      channels.set(id, c);
    }
    return c;
  };
  const row = (edge: ExecutionEdge, from: number): ChannelEnd<unknown>[] => {
    const out: ChannelEnd<unknown>[] = [];
    for (let b = 0; b < par(edge.to); b++) out.push(channel(edge, from, b));
    return out;
  };

  const probes =
    options.instrumentation === false
      ? undefined
      : new PlanInstrumentation(plan, options.metrics, options.clock);

  // Fused edges (stateless steps in one loop): the next step of each producer, and who is fed by one.
  const fusedNext = new Map<number, number>();
  const fusedInto = new Set<number>();
  for (const e of plan.edges) {
    if (e.fused !== true) continue;
    fusedNext.set(e.from, e.to);
    fusedInto.add(e.to);
  }
  // The operators as created, and the fused runs that stand in for the first of their steps.
  const created = new Map<string, Operator<unknown, unknown>>();
  const runs: {
    readonly run: FusedStatelessRun;
    readonly head: number;
    readonly subtask: number;
  }[] = [];
  const instances = new Map<string, Operator<unknown, unknown>>();
  const instance = (nodeId: number, subtask: number): Operator<unknown, unknown> => {
    const k = `${nodeId}/${subtask}`;
    let op = instances.get(k);
    if (op === undefined) {
      const v = vertex(nodeId);
      if (v.kind !== 'operator') throw new Error(`vertex ${nodeId} is not an operator`);
      op = v.createOperator();
      created.set(k, op);
      if (fusedNext.has(nodeId) && !fusedInto.has(nodeId)) {
        const run = new FusedStatelessRun(op);
        runs.push({ run, head: nodeId, subtask });
        op = run;
      }
      instances.set(k, op);
    }
    return op;
  };

  const writersByHead = new Map<string, ExchangeWriter<unknown>[]>();
  const outputFor = (nodeId: number, subtask: number): Output<unknown> => {
    const head = vertex(nodeId).chainHead;
    const writers = writersByHead.get(`${head}/${subtask}`) ?? [];
    writersByHead.set(`${head}/${subtask}`, writers);
    const targetFor = (edge: ExecutionEdge): Output<unknown> => {
      if (edge.chained) {
        const next = instance(edge.to, subtask);
        return probes === undefined
          ? new ChainedOutput(next)
          : new ObservedChainedOutput(next, probes.probe(edge.to, subtask));
      }
      const p = edge.partitioning;
      let writer: ExchangeWriter<unknown>;
      switch (p.kind) {
        case 'forward':
          writer = new ForwardWriter([channel(edge, subtask, subtask)]);
          break;
        case 'rebalance':
          writer = new RebalanceWriter(row(edge, subtask), subtask);
          break;
        case 'broadcast':
          writer = new BroadcastWriter(row(edge, subtask));
          break;
        case 'rescale':
          writer = new RescaleWriter(row(edge, subtask), subtask, vertex(nodeId).parallelism);
          break;
        case 'shuffle':
          writer = new ShuffleWriter(row(edge, subtask));
          break;
        case 'global':
          writer = new GlobalWriter(row(edge, subtask));
          break;
        case 'custom':
          writer = new CustomPartitionWriter(
            row(edge, subtask),
            p.selectKey as (value: unknown) => unknown,
            p.partition as (key: unknown, numPartitions: number) => number,
            p.name,
          );
          break;
        case 'keyed':
          writer = new KeyedWriter(
            row(edge, subtask),
            p.selectKey as (value: unknown) => Key,
            plan.maxParallelism,
            p.name,
          );
          break;
      }
      writers.push(writer);
      return writer;
    };
    const combine = (targets: Output<unknown>[]): Output<unknown> =>
      targets.length === 0
        ? DISCARDING_OUTPUT
        : targets.length === 1
          ? targets[0]!
          : new FanOutOutput(targets);
    const outgoing = plan.edges.filter((e) => e.from === nodeId);
    const main = combine(outgoing.filter((e) => e.tag === undefined).map(targetFor));
    const sides = new Map<string, Output<unknown>>();
    const tags = new Set(outgoing.filter((e) => e.tag !== undefined).map((e) => e.tag!));
    for (const tag of tags) {
      sides.set(tag, combine(outgoing.filter((e) => e.tag === tag).map(targetFor)));
    }
    const recordsOut = options.metrics
      .group(operatorLabels(vertex(nodeId).operatorId, subtask))
      .counter('weir_operator_records_out_total', 'Records emitted by the operator');
    return new CountingOutput(new OperatorOutput(main, sides), recordsOut);
  };

  const contextFor = (nodeId: number, subtask: number): OperatorContext => {
    const { operatorId, name } = vertex(nodeId);
    return {
      operatorId,
      operatorName: name,
      subtaskIndex: subtask,
      parallelism: par(nodeId),
      maxParallelism: plan.maxParallelism,
      processingTime: options.timers,
      metrics: options.metrics.group(operatorLabels(operatorId, subtask)),
      stateBackend: options.stateBackend,
      restored: options.restoreFrom !== undefined,
    };
  };

  // Set up every operator (consumers before producers is not needed: outputs are lazy objects).
  const outputs = new Map<string, Output<unknown>>();
  for (const node of plan.vertices) {
    for (let s = 0; s < node.parallelism; s++) {
      if (!owns(s)) continue;
      const out = outputFor(node.id, s);
      outputs.set(`${node.id}/${s}`, out);
      if (node.kind !== 'operator') continue;
      const op = instance(node.id, s);
      op.setup(contextFor(node.id, s), out);
      if (options.restoreFrom !== undefined) {
        const restored = restoredStateFor(
          options.restoreFrom,
          node.operatorId,
          s,
          node.parallelism,
        );
        if (restored !== undefined) op.initializeState(restored);
      }
    }
  }

  for (const { run, head, subtask } of runs) {
    const steps: FusedStep[] = [];
    let id: number | undefined = head;
    let last = head;
    for (; id !== undefined; id = fusedNext.get(id)) {
      instance(id, subtask);
      const op = created.get(`${id}/${subtask}`);
      if (!isFusible(op)) throw new Error(`operator of vertex ${id} cannot run in a fused loop`);
      const { operatorId } = vertex(id);
      const probe = id === head ? undefined : probes?.probe(id, subtask);
      steps.push({
        operatorId,
        step: op.statelessStep(),
        recordsIn: probe === undefined ? undefined : { inc: (n) => probe.countIn(n) },
        recordsOut: options.metrics
          .group(operatorLabels(operatorId, subtask))
          .counter(OPERATOR_METRICS.recordsOut, 'Records emitted by the operator'),
      });
      last = id;
    }
    run.connect(steps, outputs.get(`${last}/${subtask}`)!);
  }

  const tasks: Task[] = [];
  for (const node of plan.vertices) {
    if (node.chainHead !== node.id) continue;
    const members = chainOf(plan, node.id);
    for (let s = 0; s < node.parallelism; s++) {
      if (!owns(s)) continue;
      const chain: ChainMember[] = members
        .filter((m) => m.kind === 'operator')
        .map((m) => ({ uid: m.operatorId, operator: instance(m.id, s) }));
      const wiring: TaskWiring = {
        name: `${node.name} (${s + 1}/${par(node.id)})`,
        subtask: s,
        maxParallelism: plan.maxParallelism,
        members: chain,
        writers: writersByHead.get(`${node.id}/${s}`) ?? [],
        blockers: chain
          .map((m) => m.operator)
          .filter((o): o is Operator<unknown, unknown> & Blocking => isBlocking(o)),
        stepTimer: probes?.timer(node.id, s),
        input: node.kind === 'source' ? undefined : probes?.probe(node.id, s),
        debloatTargetMs: node.kind === 'source' ? undefined : options.debloatTargetMs,
      };
      if (node.kind === 'source') {
        const ctx = contextFor(node.id, s);
        const restoreFrom = options.restoreFrom;
        // A rescalable source gets every old position; its own only at an unchanged parallelism.
        const allPositions =
          restoreFrom !== undefined && node.source.rescalable === true
            ? sourcePositionsOf(restoreFrom, ctx.operatorId)
            : undefined;
        const sourceContext: SourceContext = {
          subtaskIndex: s,
          parallelism: par(node.id),
          batchSize: options.batchSize,
          clock: options.clock,
          metrics: ctx.metrics,
          operatorId: ctx.operatorId,
          restoredPosition:
            restoreFrom === undefined ||
            (allPositions !== undefined && allPositions.length !== par(node.id))
              ? undefined
              : sourcePositionFor(restoreFrom, ctx.operatorId, s),
          ...(allPositions === undefined || allPositions.length === 0
            ? {}
            : { restoredPositions: allPositions }),
        };
        const reader = node.source.createReader(sourceContext);
        const recordsOut = ctx.metrics.counter(
          'weir_source_records_total',
          'Records read by the source',
        );
        tasks.push(
          new SourceTask(
            wiring,
            ctx.operatorId,
            reader,
            outputs.get(`${node.id}/${s}`)!,
            recordsOut,
          ),
        );
      } else {
        const gate: ChannelEnd<unknown>[] = [];
        const inputs: number[] = [];
        for (const edge of plan.edges) {
          if (edge.to !== node.id || edge.chained) continue;
          const feeding: ChannelEnd<unknown>[] = [];
          if (edge.partitioning.kind === 'forward') feeding.push(channel(edge, s, s));
          else for (let a = 0; a < par(edge.from); a++) feeding.push(channel(edge, a, s));
          for (const c of feeding) {
            gate.push(c);
            inputs.push(edge.input);
          }
        }
        tasks.push(new InputTask(wiring, gate, instance(node.id, s), inputs));
      }
    }
  }
  return tasks;
}

/** Counts records per batch on their way out of an operator. */
class CountingOutput<T> implements Output<T> {
  constructor(
    private readonly inner: Output<T>,
    private readonly counter: { inc(n: number): void },
  ) {}
  emit(batch: import('../../core/record-batch.js').RecordBatch<T>): void {
    this.counter.inc(batch.values.length);
    this.inner.emit(batch);
  }
  emitWatermark(time: number): void {
    this.inner.emitWatermark(time);
  }
  emitIdle(): void {
    this.inner.emitIdle();
  }
  emitSide<S>(
    tag: import('../../core/output-tag.js').OutputTag<S>,
    batch: import('../../core/record-batch.js').RecordBatch<S>,
  ): void {
    this.inner.emitSide(tag, batch);
  }
  end(): void {
    this.inner.end();
  }
}
