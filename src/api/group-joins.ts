import type { LogicalNode } from '../plan/logical/nodes.js';

/**
 * Operators with two keyed inputs that run across the processes of a group:
 * both inputs go through the operator's one repartition topic (each record
 * tagged with its input), so the task of a partition holds both sides of
 * its key groups, and the broker assigns that task as one unit. Their state
 * (both sides' rows, interval and window timers) is keyed, so it moves with
 * the task's key groups, and the partition's watermark is the minimum over
 * the producing tasks of both inputs, which is the join's own watermark (the
 * minimum of its two inputs').
 */
const JOINS_ACROSS_PROCESSES: ReadonlySet<LogicalNode['kind']> = new Set([
  'regular-join',
  'interval-join',
  'window-join',
]);

/** The number of distinct inputs of `node` that arrive through a keyed exchange. */
export function keyedInputCount(node: LogicalNode): number {
  return new Set(
    node.inputs.filter((e) => e.partitioning.kind === 'keyed').map((e) => e.input ?? 0),
  ).size;
}

/**
 * Why `node`, an operator with two keyed inputs, cannot run in a partitioned
 * group; undefined when it can (a regular, interval or window join).
 */
export function twoKeyedInputsRefusal(node: LogicalNode): string | undefined {
  if (keyedInputCount(node) < 2 || JOINS_ACROSS_PROCESSES.has(node.kind)) return undefined;
  return `it has two keyed inputs (${node.kind}); across the processes of a group only regular, interval and window joins are built (run it in one process)`;
}
