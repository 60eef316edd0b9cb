import type { Json } from '../../../core/snapshot.js';
import type { StateSerializer } from '../../../core/state.js';
import { emptyKeyNfaState, type KeyNfaState, type PartialMatch } from './nfa-runner.js';

function matchesToJson(list: readonly PartialMatch[]): number[] {
  const flat: number[] = [];
  for (const m of list) flat.push(m.state, m.node, m.startTs, m.startId);
  return flat;
}

function matchesFromJson(flat: readonly number[]): PartialMatch[] {
  const list: PartialMatch[] = [];
  for (let i = 0; i < flat.length; i += 4) {
    list.push({
      state: flat[i]!,
      node: flat[i + 1]!,
      startTs: flat[i + 2]!,
      startId: flat[i + 3]!,
    });
  }
  return list;
}

/**
 * Encodes one key's NFA state: partial and held matches as flat number
 * lists, the shared buffer's events (through `events`) and nodes with their
 * reference counts, and the events still waiting for the watermark.
 */
export function keyNfaStateSerializer<T>(
  events: StateSerializer<T>,
): StateSerializer<KeyNfaState<T>> {
  return {
    id: `weir.cep.nfa-state(${events.id})`,
    version: 1,
    toJson(s: KeyNfaState<T>): Json {
      const bufferedEvents: Json[] = [];
      for (const [id, e] of s.buffer.events) {
        bufferedEvents.push([id, events.toJson(e.value), e.timestamp, e.refs]);
      }
      const nodes: number[] = [];
      for (const [id, n] of s.buffer.nodes) nodes.push(id, n.event, n.stage, n.prev, n.refs);
      const waiting: Json[] = s.waitingRecords.map((v) => events.toJson(v));
      return {
        partial: matchesToJson(s.partial),
        completed: matchesToJson(s.completed),
        events: bufferedEvents,
        nodes,
        nextEventId: s.nextEventId,
        nextNode: s.buffer.nextNode,
        waitingTimes: s.waitingTimes,
        waiting,
      };
    },
    fromJson(json: Json): KeyNfaState<T> {
      const o = json as { [key: string]: Json };
      const s = emptyKeyNfaState<T>();
      s.partial = matchesFromJson(o.partial as number[]);
      s.completed = matchesFromJson(o.completed as number[]);
      for (const entry of o.events as Json[][]) {
        const [id, value, timestamp, refs] = entry as [number, Json, number, number];
        s.buffer.events.set(id, { value: events.fromJson(value, events.version), timestamp, refs });
      }
      const nodes = o.nodes as number[];
      for (let i = 0; i < nodes.length; i += 5) {
        s.buffer.nodes.set(nodes[i]!, {
          event: nodes[i + 1]!,
          stage: nodes[i + 2]!,
          prev: nodes[i + 3]!,
          refs: nodes[i + 4]!,
        });
      }
      s.nextEventId = o.nextEventId as number;
      s.buffer.nextNode = o.nextNode as number;
      s.waitingTimes = [...(o.waitingTimes as number[])];
      s.waitingRecords = (o.waiting as Json[]).map((v) => events.fromJson(v, events.version));
      return s;
    },
  };
}
