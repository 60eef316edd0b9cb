/**
 * The logical graph and the physical plan of a job as text: what the user
 * described, and what the planner made of it (operators, parallelism,
 * tasks, exchanges, two-phase windows).
 */
import type { RecordWindows } from '../core/windows.js';
import type { Partitioning } from '../runtime/execution/execution-plan.js';
import { describeAssigner } from './logical/describe.js';
import type { LogicalGraph } from './logical/logical-graph.js';
import type { LogicalNode, WindowNode } from './logical/nodes.js';
import type { KeyedWindows } from './logical/specs.js';
import type { PlannedJob, PlannedNode } from './physical/physical-node.js';

/** Both plans, one line per node (details indented below it), ending with a newline. */
export function explainPlan(graph: LogicalGraph, plan: PlannedJob): string {
  const lines = ['Logical plan'];
  for (const node of graph.nodes) lines.push(...logicalLines(node));
  lines.push(`Physical plan (max parallelism ${plan.maxParallelism})`);
  for (const node of plan.nodes) lines.push(...physicalLines(plan, node));
  return `${lines.join('\n')}\n`;
}

function logicalLines(node: LogicalNode): string[] {
  const flags = [
    node.uid === undefined ? '' : ` uid=${node.uid}`,
    node.parallelism === undefined ? '' : ` parallelism=${node.parallelism}`,
    node.changelog === undefined ? '' : ` changelog=${node.changelog}`,
  ].join('');
  const inputs = node.inputs.map((e) =>
    describeInput(e.from, e.tag, e.partitioning, e.input ?? 0, '#'),
  );
  const head = `  #${node.id} ${node.kind} "${node.name}"${flags}${inputs.length === 0 ? '' : ` <- ${inputs.join(', ')}`}`;
  const details = detailsOf(node);
  return details === undefined ? [head] : [head, `      ${details}`];
}

function physicalLines(plan: PlannedJob, node: PlannedNode): string[] {
  const op = node.operator;
  const choice =
    op.kind === 'direct'
      ? op.node.kind
      : op.kind === 'slice-window'
        ? `slice-window${op.twoPhase ? `, two-phase ${op.localFolding ? 'folding' : 'not folding'}` : ''}`
        : op.kind === 'local-window-combiner'
          ? `local-window-combiner, ${op.folding ? 'folding' : 'passing records through'}`
          : op.kind === 'local-group-aggregate'
            ? op.folding
              ? 'LocalGroupAggregate (folds each bundle per key before the exchange)'
              : 'LocalGroupAggregate, passing rows through (nothing crosses to another subtask)'
            : op.kind === 'global-group-aggregate'
              ? op.folding
                ? 'GlobalGroupAggregate (merges the partials)'
                : 'GlobalGroupAggregate, not folding (aggregates the rows)'
              : op.kind;
  const task = plan.nodes[node.chainHead]!.operatorId;
  const inputs = plan.edges
    .filter((e) => e.to === node.id)
    .map(
      (e) =>
        `${describeInput(e.from, e.tag, e.partitioning, e.input, '[')}${e.chained ? ' chained' : ''}${e.fused === true ? ' fused' : ''}`,
    );
  // The local half of a two-phase GROUP BY sends partial accumulators or its input, not its node's changes.
  const changelog =
    op.node.changelog === undefined || op.kind === 'local-group-aggregate'
      ? ''
      : ` changelog=${op.node.changelog}`;
  return [
    `  [${node.id}] ${node.operatorId}: ${choice} (from #${node.logicalId}) parallelism=${node.parallelism} task=${task}${changelog}${inputs.length === 0 ? '' : ` <- ${inputs.join(', ')}`}`,
  ];
}

function describeInput(
  from: number,
  tag: string | undefined,
  partitioning: Partitioning,
  input: number,
  style: '#' | '[',
): string {
  const source = style === '#' ? `#${from}` : `[${from}]`;
  const side = tag === undefined ? '' : ` side=${tag}`;
  const second = input === 0 ? '' : ` input=${input}`;
  const how = partitioning.kind === 'keyed' ? `keyed(${partitioning.name})` : partitioning.kind;
  return `${source}${side} ${how}${second}`;
}

/** What distinguishes a node of its kind, where there is more than its name. */
function detailsOf(node: LogicalNode): string | undefined {
  switch (node.kind) {
    case 'source':
      return `${node.source.bounded ? 'bounded' : 'unbounded'}, ${node.source.parallelizable ? 'parallel' : 'not parallel'}`;
    case 'window':
      return describeWindow(node);
    case 'async':
      return `${node.spec.order}, capacity ${node.spec.capacity}, timeout ${node.spec.timeoutMs}ms`;
    case 'lookup-join':
      return `table ${node.table.name}, ${node.spec.join}`;
    case 'window-join':
      return `${node.apply.kind}, ${'gap' in node.windows ? `session ${node.windows.gap}ms` : describeWindows('size' in node.windows ? node.windows : node.windows.left)}`;
    case 'interval-join':
      return `between ${node.spec.lower}ms and ${node.spec.upper}ms`;
    case 'time-interval-join': {
      const { type, lower, upper, timeDomain } = node.spec;
      // As Flink shows its bounds: on the left time minus the right one.
      if (timeDomain === 'processing-time')
        return `${type} join, processing time, left proctime - right proctime between ${-upper}ms and ${-lower}ms`;
      return `${type} join, left rowtime - right rowtime between ${-upper}ms and ${-lower}ms, watermark held back ${Math.max(upper, -lower, 0)}ms`;
    }
    case 'deduplicate':
      return `keep ${node.spec.keep} by ${node.spec.order}`;
    case 'window-deduplicate':
      return `keep ${node.keep}, ${describeWindows(node.windows)}`;
    case 'top-n':
      return `n=${node.spec.n}${node.spec.rankNumber ? ', rank numbers' : ''}`;
    case 'window-top-n':
      return `n=${node.n}, ${describeWindows(node.windows)}`;
    case 'as-changelog':
    case 'window-changelog':
      return `mode ${node.mode}`;
    case 'table-view':
      return `output ${node.output}`;
    case 'regular-join': {
      const { spec } = node;
      const sides = [
        ...(spec.leftRetainUntil === undefined ? [] : ['left']),
        ...(spec.rightRetainUntil === undefined ? [] : ['right']),
      ];
      return sides.length === 0
        ? `${spec.type} join`
        : `${spec.type} join, ${sides.join(' and ')} rows until the watermark`;
    }
    case 'updating-aggregate': {
      const { miniBatch, fn, twoPhase } = node.spec;
      const parts = [
        ...(twoPhase === true ? ['two-phase: LocalGroupAggregate, GlobalGroupAggregate'] : []),
        ...(miniBatch === undefined
          ? []
          : [`mini-batch: ${miniBatch.size} rows, ${miniBatch.allowLatencyMs}ms`]),
        ...(fn.explain === undefined ? [] : [fn.explain]),
      ];
      return parts.length === 0 ? undefined : parts.join(', ');
    }
    case 'temporal-join':
      return `${node.joinType} join`;
    case 'broadcast-join':
      return `${node.spec.kind}${node.spec.waitForSide ? ', waits for the side' : ''}`;
    default:
      return undefined;
  }
}

function describeWindow(node: WindowNode): string {
  const aggregation =
    node.aggregation.kind === 'aggregate' && node.aggregation.fn.merge !== undefined
      ? 'aggregate with merge'
      : node.aggregation.kind === 'list'
        ? 'all records'
        : node.aggregation.kind;
  const firing =
    node.firing.kind === 'result'
      ? 'emits results'
      : `calls a window function${node.firing.incremental ? ' with the aggregate' : ''}`;
  return [
    describeAssigner(node.assigner),
    `trigger ${node.triggerLabel ?? 'default'}`,
    `lateness ${node.allowedLateness}ms`,
    ...(node.lateDataTag === undefined ? [] : [`late data to ${node.lateDataTag.id}`]),
    ...(node.processingTimeCloseMs === undefined
      ? []
      : [`closes by processing time after ${node.processingTimeCloseMs}ms`]),
    ...(node.queryable ? ['queryable'] : []),
    ...(node.evictor === undefined ? [] : ['an evictor (keeps every record)']),
    aggregation,
    firing,
  ].join(', ');
}

/** Fixed windows by size and slide; record windows as the records' own. */
function describeWindows(windows: KeyedWindows | RecordWindows<never>): string {
  return 'size' in windows
    ? `windows ${windows.size}ms/${windows.slide}ms`
    : 'windows of the records (window_start, window_end)';
}
