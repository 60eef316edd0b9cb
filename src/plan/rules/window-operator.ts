/**
 * Which operator runs a window: decided from the window's description alone
 * (assigner, trigger, aggregation), before parallelism is known.
 */
import type { WindowAggregationSpec, WindowNode } from '../logical/nodes.js';

/** Whether two accumulators of the aggregation can be combined into one. */
export function canMerge(aggregation: WindowAggregationSpec): boolean {
  return aggregation.kind !== 'aggregate' || aggregation.fn.merge !== undefined;
}

/**
 * Whether records may be folded into partial accumulators before the keyed
 * exchange: `reduce`, or `aggregate` with `merge` (a list of all records
 * would move as much as the records themselves).
 */
export function foldsLocally(aggregation: WindowAggregationSpec): boolean {
  return aggregation.kind !== 'list' && canMerge(aggregation);
}

/**
 * Whether the slice operator runs the window: tumbling or sliding event-time
 * windows with the default trigger share per-slice partial aggregates
 * (sliding windows need `merge` to combine slices). Everything else
 * (sessions, global and count windows, processing time, custom triggers,
 * evictors, window functions with `clear`) runs on the general window operator.
 */
export function usesSlices(node: WindowNode): boolean {
  const { assigner, firing } = node;
  return (
    node.trigger === undefined &&
    node.keepLast === undefined &&
    // Evictors keep every record; a window function's clear() is called per key and window
    // cleaned up, which only the general operator tracks.
    node.evictor === undefined &&
    !(firing.kind === 'process' && typeof firing.fn.clear === 'function') &&
    assigner.timeDomain === 'event-time' &&
    (assigner.kind === 'tumbling' || (assigner.kind === 'sliding' && canMerge(node.aggregation)))
  );
}

/**
 * Whether the window runs in two halves, a local combiner before the keyed
 * exchange and the slice operator after it. Not with a wall-clock close,
 * which could fire a window before a partial reaches it, nor for a
 * queryable window, whose answers would miss what the local half still
 * holds. Whether the halves actually fold is decided later, from the
 * parallelism (./two-phase.ts).
 */
export function isTwoPhase(node: WindowNode): boolean {
  return (
    usesSlices(node) &&
    foldsLocally(node.aggregation) &&
    node.processingTimeCloseMs === undefined &&
    !node.queryable
  );
}
