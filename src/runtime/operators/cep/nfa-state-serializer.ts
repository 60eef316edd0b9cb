import type { Json } from '../../../core/snapshot.js';
import type { StateSerializer } from '../../../core/state.js';
import { emptyKeyNfaState, type KeyNfaState, type PartialMatch } from './nfa-runner.js';
import type { BufferedEvent, BufferNode } from './shared-buffer.js';

/**
 * Ids for the nodes a key's matches reach, oldest first along each chain (a
 * node's predecessor always has a smaller id), so a reader can link nodes in
 * one pass.
 */
function numberNodes<T>(s: KeyNfaState<T>): Map<BufferNode<T>, number> {
  const ids = new Map<BufferNode<T>, number>();
  const chain: BufferNode<T>[] = [];
  for (const list of [s.partial, s.completed]) {
    for (const m of list) {
      chain.length = 0;
      for (let n = m.node; n !== null && !ids.has(n); n = n.prev) chain.push(n);
      for (let i = chain.length - 1; i >= 0; i--) ids.set(chain[i]!, ids.size);
    }
  }
  return ids;
}

function matchesToJson<T>(
  list: readonly PartialMatch<T>[],
  ids: ReadonlyMap<BufferNode<T>, number>,
): number[] {
  const flat: number[] = [];
  for (const m of list) {
    flat.push(m.state, m.node === null ? -1 : ids.get(m.node)!, m.startTs, m.startId);
  }
  return flat;
}

function matchesFromJson<T>(
  flat: readonly number[],
  nodes: ReadonlyMap<number, BufferNode<T>>,
): PartialMatch<T>[] {
  const list: PartialMatch<T>[] = [];
  for (let i = 0; i < flat.length; i += 4) {
    const id = flat[i + 1]!;
    list.push({
      state: flat[i]!,
      node: id === -1 ? null : nodes.get(id)!,
      startTs: flat[i + 2]!,
      startId: flat[i + 3]!,
    });
  }
  return list;
}

/**
 * Encodes one key's NFA state: partial and held matches as flat number
 * lists, the shared buffer's events (through `events`) and nodes with their
 * reference counts, and the events still waiting for the watermark. Nodes
 * and events are linked by reference in memory and by id here.
 */
export function keyNfaStateSerializer<T>(
  events: StateSerializer<T>,
): StateSerializer<KeyNfaState<T>> {
  return {
    id: `weir.cep.nfa-state(${events.id})`,
    version: 1,
    toJson(s: KeyNfaState<T>): Json {
      const ids = numberNodes(s);
      const bufferedEvents: Json[] = [];
      const seen = new Set<BufferedEvent<T>>();
      const nodes: number[] = [];
      for (const [n, id] of ids) {
        const e = n.event;
        if (!seen.has(e)) {
          seen.add(e);
          bufferedEvents.push([e.id, events.toJson(e.value), e.timestamp, e.refs]);
        }
        nodes.push(id, e.id, n.stage, n.prev === null ? -1 : ids.get(n.prev)!, n.refs);
      }
      const waiting: Json[] = s.waitingRecords.map((v) => events.toJson(v));
      return {
        partial: matchesToJson(s.partial, ids),
        completed: matchesToJson(s.completed, ids),
        events: bufferedEvents,
        nodes,
        nextEventId: s.nextEventId,
        nextNode: ids.size,
        waitingTimes: [...s.waitingTimes],
        waiting,
      };
    },
    fromJson(json: Json): KeyNfaState<T> {
      const o = json as { [key: string]: Json };
      const s = emptyKeyNfaState<T>();
      const byId = new Map<number, BufferedEvent<T>>();
      for (const entry of o.events as Json[][]) {
        const [id, value, timestamp, refs] = entry as [number, Json, number, number];
        byId.set(id, { id, value: events.fromJson(value, events.version), timestamp, refs });
      }
      const flat = o.nodes as number[];
      const nodes = new Map<number, BufferNode<T>>();
      for (let i = 0; i < flat.length; i += 5) {
        nodes.set(flat[i]!, {
          event: byId.get(flat[i + 1]!)!,
          stage: flat[i + 2]!,
          prev: null,
          refs: flat[i + 4]!,
        });
      }
      for (let i = 0; i < flat.length; i += 5) {
        const prev = flat[i + 3]!;
        if (prev !== -1) nodes.get(flat[i]!)!.prev = nodes.get(prev)!;
      }
      s.partial = matchesFromJson(o.partial as number[], nodes);
      s.completed = matchesFromJson(o.completed as number[], nodes);
      s.bufferSize = byId.size + nodes.size;
      s.nextEventId = o.nextEventId as number;
      s.waitingTimes = [...(o.waitingTimes as number[])];
      s.waitingRecords = (o.waiting as Json[]).map((v) => events.fromJson(v, events.version));
      return s;
    },
  };
}
