import { WeirError } from '../../core/errors.js';
import type { PhysicalNode } from '../physical/physical-node.js';

/** Limits and defaults of the parallelism rule. */
export interface ParallelismOptions {
  readonly parallelism: number;
  readonly maxParallelism: number;
}

/**
 * Each step's parallelism. Explicit settings win. Sources use the default
 * parallelism when they can be split, else 1. Keyed steps and steps with
 * several inputs (or a non-forward one) use the default. Other steps inherit
 * their input's parallelism, so a non-parallel source feeds its
 * transformations without a shuffle and keeps their order.
 */
export function decideParallelism(
  nodes: readonly PhysicalNode[],
  options: ParallelismOptions,
): number[] {
  const decided: number[] = [];
  for (const node of nodes) decided.push(parallelismOf(node, decided, options));
  return decided;
}

function parallelismOf(
  node: PhysicalNode,
  decided: readonly number[],
  options: ParallelismOptions,
): number {
  const explicit = node.explicitParallelism;
  const source = node.operator.kind === 'source' ? node.operator.node.source : undefined;
  if (explicit !== undefined) {
    if (!Number.isInteger(explicit) || explicit < 1) {
      throw new WeirError(
        'INVALID_JOB',
        `parallelism of '${node.name}' must be a positive whole number, got ${explicit}`,
      );
    }
    if (explicit > options.maxParallelism) {
      throw new WeirError(
        'INVALID_JOB',
        `parallelism of '${node.name}' (${explicit}) exceeds maxParallelism (${options.maxParallelism})`,
      );
    }
    if (source !== undefined && explicit > 1 && !source.parallelizable) {
      throw new WeirError(
        'INVALID_JOB',
        `source '${node.name}' cannot be split; its parallelism must be 1, got ${explicit}`,
      );
    }
    return explicit;
  }
  if (source !== undefined) return source.parallelizable ? options.parallelism : 1;
  if (node.keyed || node.inputs.length !== 1) return options.parallelism;
  const input = node.inputs[0]!;
  if (input.partitioning.kind !== 'forward') return options.parallelism;
  return decided[input.from]!;
}
