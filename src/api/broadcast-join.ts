/** The broadcast join of data streams: validation and the logical nodes. */
import { invalidArgument } from '../core/errors.js';
import type { Key } from '../core/key-groups.js';
import type { LogicalGraph } from '../plan/logical/logical-graph.js';
import type { BroadcastJoinSpec } from '../plan/logical/specs.js';
import type { BroadcastJoinOptions } from './options.js';
import { addNodeRefs, addTwoInputNode, type StreamParts } from './stream-builder.js';
import type { DataStream } from './streams.js';

/** Whether every source that feeds `nodes` is bounded. */
function allSourcesBounded(graph: LogicalGraph, nodes: readonly number[]): boolean {
  const seen = new Set<number>();
  const stack = [...nodes];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const node = graph.node(id);
    if (node.kind === 'source') {
      if (!node.source.bounded) return false;
    } else for (const edge of node.inputs) stack.push(edge.from);
  }
  return true;
}

/** Builds `DataStream.broadcastJoin` and `broadcastJoinChangelog`. */
export function broadcastJoin<T, S, BK extends Key, OUT>(
  main: StreamParts,
  side: StreamParts,
  options: BroadcastJoinOptions<T, S, BK, OUT>,
  sideChanges: boolean,
): DataStream<OUT> {
  const what = sideChanges ? 'broadcastJoinChangelog()' : 'broadcastJoin()';
  for (const field of ['mainKey', 'sideKey', 'join'] as const) {
    if (typeof options?.[field] !== 'function') {
      throw invalidArgument(`${what} needs a function for ${field}`);
    }
  }
  const kind = options.kind ?? 'inner';
  if (kind !== 'inner' && kind !== 'left') {
    throw invalidArgument(`${what}: kind must be 'inner' or 'left', got '${String(kind)}'`);
  }
  const graph = main.builder.graph;
  const waitForSide =
    options.waitForSide ??
    allSourcesBounded(
      graph,
      side.refs.map((r) => r.node),
    );
  // The side passes through a marker step on its own subtasks, which tells the join when it ended.
  const marked: StreamParts = {
    builder: main.builder,
    refs: addNodeRefs(main.builder, { kind: 'broadcast-side-end' }, 'side end marker', side.refs, {
      kind: 'forward',
    }),
  };
  const spec = {
    mainKey: options.mainKey,
    sideKey: options.sideKey,
    join: options.join as (main: T, side: S | undefined) => OUT,
    kind,
    sideChanges,
    waitForSide,
  };
  return addTwoInputNode<OUT>(
    main,
    marked,
    {
      kind: 'broadcast-join',
      spec: spec as unknown as BroadcastJoinSpec<unknown, unknown, Key, unknown>,
    },
    sideChanges ? 'broadcast join (changelog side)' : 'broadcast join',
    [{ kind: 'forward' }, { kind: 'broadcast' }],
    { stateful: true },
  );
}
