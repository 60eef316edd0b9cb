/**
 * The planner: pure functions from a logical graph (data) to a physical plan
 * (data). Rules run once, in order: operator choice (./rules/expand.ts),
 * operator ids, parallelism, two-phase folding, chaining. Nothing is
 * mutated and nothing runs per record.
 */
import { WeirError } from '../core/errors.js';
import type { ExecutionPlan } from '../runtime/execution/execution-plan.js';
import type { LogicalGraph } from './logical/logical-graph.js';
import type { PlannedJob, PlannedNode } from './physical/physical-node.js';
import { toExecutionPlan } from './physical/translate.js';
import { chain } from './rules/chaining.js';
import { expandToPhysical } from './rules/expand.js';
import { fuseStatelessSteps } from './rules/fusion.js';
import { checkUniqueIds, deriveOperatorIds } from './rules/operator-ids.js';
import { decideParallelism } from './rules/parallelism.js';
import { decideLocalFolding } from './rules/two-phase.js';

/** What the planner needs of the environment. */
export interface PlanOptions {
  /** Default parallelism of every operator. */
  readonly parallelism: number;
  readonly maxParallelism: number;
  /** Run single-input forward operators in their producer's task. */
  readonly chaining: boolean;
  /**
   * Run chained stateless steps (map, filter, flatMap) as one loop per batch.
   * Default true; only chained steps fuse.
   */
  readonly fusion?: boolean;
  /** Let two-phase windows fold records before their exchange. Default true. */
  readonly localAggregation?: boolean;
  /**
   * The environment's auto-watermark interval (ms): the periodic interval of
   * watermark steps whose strategy sets none. Default: none.
   */
  readonly autoWatermarkIntervalMs?: number;
}

/** Plans the job: every physical choice, as data. Fails on an invalid job (duplicate ids, no input, bad parallelism). */
export function planJob(graph: LogicalGraph, options: PlanOptions): PlannedJob {
  const shaped = expandToPhysical(graph.nodes);
  const operatorIds = deriveOperatorIds(shaped);
  checkUniqueIds(shaped, operatorIds);
  for (const node of graph.nodes) {
    if (node.kind !== 'source' && node.inputs.length === 0) {
      throw new WeirError('INVALID_JOB', `operator '${node.name}' has no input`);
    }
  }
  const parallelism = decideParallelism(shaped, options);
  const decided = decideLocalFolding(shaped, parallelism, options.localAggregation ?? true);
  const chained = chain(decided, parallelism, options.chaining);
  const { chainHeads } = chained;
  const edges = fuseStatelessSteps(decided, chained.edges, options.fusion ?? true);
  const nodes = decided.map(
    (node, i): PlannedNode => ({
      ...node,
      operatorId: operatorIds[i]!,
      parallelism: parallelism[i]!,
      chainHead: chainHeads[i]!,
    }),
  );
  return { nodes, edges, maxParallelism: options.maxParallelism };
}

/** Plans the job and hands back what the runtime executes. */
export function buildPhysicalPlan(graph: LogicalGraph, options: PlanOptions): ExecutionPlan {
  return toExecutionPlan(planJob(graph, options), {
    autoWatermarkIntervalMs: options.autoWatermarkIntervalMs,
  });
}

/** The operator id of every logical node's output step, without planning parallelism. */
export function operatorIdsOf(graph: LogicalGraph): Map<number, string> {
  const shaped = expandToPhysical(graph.nodes);
  const ids = deriveOperatorIds(shaped);
  const byNode = new Map<number, string>();
  // A node with two steps (a two-phase window) is known by its last, which emits its output.
  shaped.forEach((step, i) => {
    byNode.set(step.logicalId, ids[i]!);
  });
  return byNode;
}
