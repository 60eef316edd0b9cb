import type { Json } from '../../../core/snapshot.js';
import type { StateSerializer } from '../../../core/state.js';
import { emptyKeyNfaState, type KeyNfaState, type PartialMatch } from './nfa-runner.js';
import { NO_MATCH, type PartialMatchRows } from './partial-match-rows.js';
import { type EventRef, NO_NODE, type NodeRef, type SharedBuffer } from './shared-buffer.js';

/**
 * Ids for the nodes a key's matches reach, oldest first along each chain (a
 * node's predecessor always has a smaller id), so a reader can link nodes in
 * one pass.
 */
function numberNodes<T>(
  partial: readonly PartialMatch[],
  completed: readonly PartialMatch[],
  buffer: SharedBuffer<T>,
): Map<NodeRef, number> {
  const ids = new Map<NodeRef, number>();
  const chain: NodeRef[] = [];
  for (const list of [partial, completed]) {
    for (const m of list) {
      chain.length = 0;
      for (let n = m.node; n !== NO_NODE && !ids.has(n); n = buffer.prevOf(n)) chain.push(n);
      for (let i = chain.length - 1; i >= 0; i--) ids.set(chain[i]!, ids.size);
    }
  }
  return ids;
}

/** A key's partial matches read out of their rows, in order (snapshots only). */
function partialMatchesOf<T>(s: KeyNfaState<T>, rows: PartialMatchRows): PartialMatch[] {
  const list: PartialMatch[] = [];
  for (let r = s.firstMatch; r !== NO_MATCH; r = rows.nextOf(r)) {
    list.push({
      state: rows.stateOf(r),
      node: rows.nodeOf(r),
      startTs: rows.startTsOf(r),
      startId: rows.startIdOf(r),
    });
  }
  return list;
}

function matchesToJson(list: readonly PartialMatch[], ids: ReadonlyMap<NodeRef, number>): number[] {
  const flat: number[] = [];
  for (const m of list) {
    flat.push(m.state, m.node === NO_NODE ? -1 : ids.get(m.node)!, m.startTs, m.startId);
  }
  return flat;
}

function matchesFromJson(
  flat: readonly number[],
  nodes: ReadonlyMap<number, NodeRef>,
): PartialMatch[] {
  const list: PartialMatch[] = [];
  for (let i = 0; i < flat.length; i += 4) {
    const id = flat[i + 1]!;
    list.push({
      state: flat[i]!,
      node: id === -1 ? NO_NODE : nodes.get(id)!,
      startTs: flat[i + 2]!,
      startId: flat[i + 3]!,
    });
  }
  return list;
}

/**
 * Encodes one key's NFA state: partial and held matches as flat number
 * lists, the shared buffer's events (through `events`) and nodes with their
 * reference counts, and the events still waiting for the watermark. In
 * memory nodes and events are rows of `buffer`; here they have ids of their
 * own, so the format does not depend on where the rows were. Decoding puts
 * the key's rows into `buffer` and its partial matches into `rows`: a
 * decoded state must be run (or released), not dropped.
 */
export function keyNfaStateSerializer<T>(
  events: StateSerializer<T>,
  buffer: SharedBuffer<T>,
  rows: PartialMatchRows,
): StateSerializer<KeyNfaState<T>> {
  return {
    id: `weir.cep.nfa-state(${events.id})`,
    version: 1,
    toJson(s: KeyNfaState<T>): Json {
      const partial = partialMatchesOf(s, rows);
      const ids = numberNodes(partial, s.completed, buffer);
      const bufferedEvents: Json[] = [];
      const seen = new Set<EventRef>();
      const nodes: number[] = [];
      for (const [n, id] of ids) {
        const e = buffer.eventOf(n);
        const eventId = buffer.eventId(e);
        if (!seen.has(e)) {
          seen.add(e);
          bufferedEvents.push([
            eventId,
            events.toJson(buffer.value(e)),
            buffer.eventTimestamp(e),
            buffer.eventRefCount(e),
          ]);
        }
        const prev = buffer.prevOf(n);
        nodes.push(
          id,
          eventId,
          buffer.stageOf(n),
          prev === NO_NODE ? -1 : ids.get(prev)!,
          buffer.refsOf(n),
        );
      }
      const waiting: Json[] = s.waitingRecords.map((v) => events.toJson(v));
      return {
        partial: matchesToJson(partial, ids),
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
      const byId = new Map<number, EventRef>();
      for (const entry of o.events as Json[][]) {
        const [id, value, timestamp, refs] = entry as [number, Json, number, number];
        byId.set(id, buffer.event(id, events.fromJson(value, events.version), timestamp, refs));
      }
      const flat = o.nodes as number[];
      const nodes = new Map<number, NodeRef>();
      for (let i = 0; i < flat.length; i += 5) {
        nodes.set(
          flat[i]!,
          buffer.node(byId.get(flat[i + 1]!)!, flat[i + 2]!, NO_NODE, flat[i + 4]!),
        );
      }
      for (let i = 0; i < flat.length; i += 5) {
        const prev = flat[i + 3]!;
        if (prev !== -1) buffer.link(nodes.get(flat[i]!)!, nodes.get(prev)!);
      }
      // Rows linked in the order written.
      let last = NO_MATCH;
      for (const m of matchesFromJson(o.partial as number[], nodes)) {
        const r = rows.add(m.state, m.node, m.startTs, m.startId);
        if (last === NO_MATCH) s.firstMatch = r;
        else rows.setNext(last, r);
        last = r;
        s.matchCount++;
      }
      s.completed = matchesFromJson(o.completed as number[], nodes);
      s.bufferSize = byId.size + nodes.size;
      s.nextEventId = o.nextEventId as number;
      s.waitingTimes = [...(o.waitingTimes as number[])];
      s.waitingRecords = (o.waiting as Json[]).map((v) => events.fromJson(v, events.version));
      return s;
    },
  };
}
