import { invalidArgument } from '../core/errors.js';
import type { Key } from '../core/key-groups.js';
import type { LogicalGraph } from '../plan/logical/logical-graph.js';
import type { BroadcastJoinSpec } from '../plan/logical/specs.js';
import { addNode, type DataStream } from './data-stream.js';

/** How main records meet the broadcast side table. */
interface BroadcastJoinBase<T, S, BK extends Key> {
  /** The table key a main record looks up. */
  readonly mainKey: (main: T) => BK;
  /** The key of a side row in the table (a later row with the same key replaces it). */
  readonly sideKey: (side: S) => BK;
  /**
   * Hold main records (and the watermark) until the side input has ended, so
   * every main record sees the complete table. Default: true when every
   * source of the side stream is bounded, false otherwise (main records then
   * join the table as it is when they arrive).
   */
  readonly waitForSide?: boolean;
}

/** Inner: a main record without a side row produces nothing. */
export interface InnerBroadcastJoinOptions<T, S, BK extends Key, OUT>
  extends BroadcastJoinBase<T, S, BK> {
  readonly kind?: 'inner';
  readonly join: (main: T, side: S) => OUT;
}

/** Left: a main record without a side row is joined with `undefined`. */
export interface LeftBroadcastJoinOptions<T, S, BK extends Key, OUT>
  extends BroadcastJoinBase<T, S, BK> {
  readonly kind: 'left';
  readonly join: (main: T, side: S | undefined) => OUT;
}

export type BroadcastJoinOptions<T, S, BK extends Key, OUT> =
  | InnerBroadcastJoinOptions<T, S, BK, OUT>
  | LeftBroadcastJoinOptions<T, S, BK, OUT>;

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

/** @internal Builds `DataStream.broadcastJoin` and `broadcastJoinChangelog`. */
export function broadcastJoin<T, S, BK extends Key, OUT>(
  main: DataStream<T>,
  side: { readonly refs: DataStream<unknown>['refs'] },
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
  const marked = addNode(
    main.builder,
    { kind: 'broadcast-side-end' },
    'side end marker',
    side.refs,
    {
      kind: 'forward',
    },
  );
  const spec = {
    mainKey: options.mainKey,
    sideKey: options.sideKey,
    join: options.join as (main: T, side: S | undefined) => OUT,
    kind,
    sideChanges,
    waitForSide,
  };
  return main.addTwoInputNode<OUT>(
    {
      kind: 'broadcast-join',
      spec: spec as unknown as BroadcastJoinSpec<unknown, unknown, Key, unknown>,
    },
    sideChanges ? 'broadcast join (changelog side)' : 'broadcast join',
    marked,
    [{ kind: 'forward' }, { kind: 'broadcast' }],
    { stateful: true },
  );
}
