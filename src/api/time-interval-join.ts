/**
 * SQL's event-time interval join of two keyed streams, with Flink SQL's semantics (any join
 * type, late rows still joined, the watermark held back). The SQL planner builds it; it is not
 * part of the DataStream API, whose `intervalJoin` keeps Flink DataStream's semantics.
 */
import type { Key } from '../core/key-groups.js';
import type { TimeIntervalJoinNode } from '../plan/logical/nodes.js';
import type { TimeIntervalJoinSpec } from '../plan/logical/specs.js';
import { implOf } from './impl-of.js';
import { KeyedStreamImpl } from './keyed-stream.js';
import { addTwoInputNode } from './stream-builder.js';
import type { DataStream, KeyedStream } from './streams.js';

/** Joins `left` and `right` (keyed alike) as `spec` says, in a node named `name`. */
export function timeIntervalJoin<L, R, K extends Key, OUT>(
  left: KeyedStream<L, K>,
  right: KeyedStream<R, K>,
  spec: TimeIntervalJoinSpec<L, R, OUT>,
  name: string,
): DataStream<OUT> {
  const l = implOf(left, KeyedStreamImpl, 'timeIntervalJoin');
  const r = implOf(right, KeyedStreamImpl, 'timeIntervalJoin');
  return addTwoInputNode<OUT>(
    l,
    r,
    {
      kind: 'time-interval-join',
      spec: spec as unknown as TimeIntervalJoinNode['spec'],
    },
    name,
    [l.partitioning, r.partitioning],
    { keyed: true, stateful: true },
  );
}
