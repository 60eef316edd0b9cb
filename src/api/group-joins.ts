import type { LogicalNode } from '../plan/logical/nodes.js';

/*
 * Operators with two keyed inputs across the processes of a group. Both
 * inputs would go through the operator's one repartition topic (each record
 * tagged with its input, which applyProcessGroup already does), so that the
 * task of a partition holds both sides of its key groups. They stay refused
 * until test/process/process-group-joins.test.ts passes reliably: its stall
 * came from checkpoints queued behind slow task snapshots (fixed), and a
 * member's start is still slow with a producer thread per writer (see
 * docs/deployment.md).
 */

/** The number of distinct inputs of `node` that arrive through a keyed exchange. */
export function keyedInputCount(node: LogicalNode): number {
  return new Set(
    node.inputs.filter((e) => e.partitioning.kind === 'keyed').map((e) => e.input ?? 0),
  ).size;
}

/** Why `node`, an operator with two keyed inputs, cannot run in a partitioned group. */
export function twoKeyedInputsRefusal(node: LogicalNode): string | undefined {
  if (keyedInputCount(node) < 2) return undefined;
  return `it has two keyed inputs (${node.kind}); operators with two keyed inputs (joins) do not run across the processes of a group yet (run it in one process)`;
}
