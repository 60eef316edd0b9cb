import type { CepConditionContext, MatchEvents, SkipStrategySpec } from '../../../core/cep.js';
import { invalidArgument } from '../../../core/errors.js';
import {
  KEY_STRIDE,
  KeyStateColumns,
  KS_BUFFER,
  KS_COMPLETED,
  KS_COUNT,
  KS_FIRST,
  KS_NEXT_ID,
} from './key-state-columns.js';
import { type Nfa, type NfaEdge, negationOf } from './nfa-compiler.js';
import { NO_MATCH, type PartialMatch, PartialMatchRows } from './partial-match-rows.js';
import { type EventRef, NO_NODE, type NodeRef, SharedBuffer } from './shared-buffer.js';

export type { PartialMatch } from './partial-match-rows.js';

/**
 * Everything the NFA keeps for one key, as snapshots write and read it.
 * Between snapshots the runner keeps these fields in its
 * {@link KeyStateColumns}, by the key's slot.
 */
export interface KeyNfaState<T> {
  /**
   * The key's partial matches: the first of its rows in the runner's
   * {@link PartialMatchRows} (NO_MATCH if none), the rest linked from it, in
   * the order the NFA made them; and how many there are.
   */
  firstMatch: number;
  matchCount: number;
  /** Completed matches held back until no earlier-started partial match remains (skip strategies). */
  completed: PartialMatch[];
  /**
   * Events and nodes of the shared buffer this key's matches hold. The nodes
   * themselves are reached from the matches; the runner's one buffer object
   * counts them while it runs the key (no buffer object per key to miss in cache).
   */
  bufferSize: number;
  nextEventId: number;
  /**
   * Event time, only while a snapshot is written or read: records waiting
   * for the watermark, in arrival order, and their timestamps (in between,
   * they wait in the operator's queue).
   */
  waitingTimes: readonly number[];
  waitingRecords: readonly T[];
}

/** The lists a state has while they are empty: shared, and frozen so that nobody adds to them. */
const NONE: readonly never[] = Object.freeze([]);

export function emptyKeyNfaState<T>(): KeyNfaState<T> {
  return {
    firstMatch: NO_MATCH,
    matchCount: 0,
    completed: NONE as never[],
    bufferSize: 0,
    nextEventId: 0,
    waitingTimes: NONE,
    waitingRecords: NONE,
  };
}

/** Forgets the waiting records a snapshot wrote into `s`. */
export function dropWaiting<T>(s: KeyNfaState<T>): void {
  s.waitingTimes = NONE;
  s.waitingRecords = NONE;
}

export function isIdle<T>(s: KeyNfaState<T>): boolean {
  return s.matchCount === 0 && s.completed.length === 0 && s.waitingTimes.length === 0;
}

/** Where the runner sends what it finds. */
export interface NfaListener<T> {
  match(events: MatchEvents<T>): void;
  /** Absent when nobody wants timed-out matches (their events are then not gathered). */
  timedOut?(events: MatchEvents<T>, timeoutTimestamp: number): void;
  /** A partial match began at `startTs` (so a timeout can be scheduled); absent if nobody schedules. */
  started?(startTs: number): void;
}

/** The start state is not stored: every event may begin a match. */
const START_ID = -1;

/**
 * Runs a compiled NFA over the events of one key at a time (the caller
 * supplies the key's {@link KeyNfaState}). For every partial match and the
 * start, an event follows proceed edges (epsilon moves) to collect the take
 * and ignore edges whose conditions hold; takes extend the match in the shared
 * buffer, ignores keep it waiting, and reaching the stop state discards it.
 */
export class NfaRunner<T> {
  private readonly stageIndex = new Map<string, number>();
  private readonly stageOfState: Int32Array;
  private readonly visited: Int32Array;
  private visitMark = 0;
  /** States still to visit; each is pushed at most once per walk. */
  private readonly stack: Int32Array;
  /**
   * Per state, per edge: `2 * i + negated` when the edge's test is the test of
   * the state's earlier edge `i` (or its negation), so its result is reused
   * rather than computed again; -1 otherwise.
   */
  private readonly reuse: Int16Array[];
  /** Test results of the edges of the state being walked. */
  private readonly passed: Uint8Array;
  /**
   * Per state, 1 if it has a proceed edge: only then can an event taken into
   * it also complete a match there (see {@link reachesFinal}); most states of
   * most patterns have none, and the walk is skipped.
   */
  private readonly proceeds: Uint8Array;
  // The edges `collectEdges` found; reused, with counts instead of resizing per event.
  private readonly takes: NfaEdge<T>[] = [];
  private readonly takeStages: number[] = [];
  private takeCount = 0;
  private readonly ignores: NfaEdge<T>[] = [];
  private ignoreCount = 0;
  /** The slot of the key being run, in {@link keys}. */
  private slot = 0;
  /** The per-key state of every key this runner runs, by slot. */
  readonly keys = new KeyStateColumns();
  /**
   * The shared buffer of every key this runner runs; while a key is run its
   * `size` is the key's `bufferSize`.
   */
  readonly buffer = new SharedBuffer<T>();
  /** The partial matches of every key this runner runs. */
  readonly rows = new PartialMatchRows();
  private readonly ctx: ConditionView<T>;
  // The list of partial matches `process` builds: first and last row, length.
  private nextFirst = NO_MATCH;
  private nextLast = NO_MATCH;
  private nextCount = 0;

  constructor(
    private readonly nfa: Nfa<T>,
    private readonly skip: SkipStrategySpec,
    private readonly listener: NfaListener<T>,
  ) {
    for (const [i, n] of nfa.stageNames.entries()) this.stageIndex.set(n, i);
    this.stageOfState = Int32Array.from(nfa.states, (s) => this.stageIndex.get(s.stage) ?? -1);
    this.visited = new Int32Array(nfa.states.length);
    this.stack = new Int32Array(nfa.states.length);
    this.reuse = nfa.states.map((s) => reusedResults(s.edges));
    this.passed = new Uint8Array(Math.max(1, ...nfa.states.map((s) => s.edges.length)));
    this.proceeds = Uint8Array.from(nfa.states, (s) =>
      s.edges.some((e) => e.action === 'proceed') ? 1 : 0,
    );
    this.ctx = new ConditionView(this.stageIndex, this.buffer);
  }

  /**
   * Feeds one event (in time order) to the key's NFA: each partial match in
   * turn, then the start state (every event may begin a match). The
   * continuations form the key's new list; a partial match's first
   * continuation reuses its row.
   */
  process(slot: number, value: T, timestamp: number): void {
    this.slot = slot;
    const { buffer, rows } = this;
    // The columns do not grow while a key runs: the array read here stays the columns'.
    const cols = this.keys.data;
    const at = slot * KEY_STRIDE;
    buffer.size = cols[at + KS_BUFFER]!;
    this.ctx.timestamp = timestamp;
    const eventId = cols[at + KS_NEXT_ID]!;
    cols[at + KS_NEXT_ID] = eventId + 1;
    // The event enters the buffer only if some match takes it.
    let event: EventRef = -1;
    this.nextFirst = NO_MATCH;
    this.nextLast = NO_MATCH;
    this.nextCount = 0;
    let found = false;
    let r = cols[at + KS_FIRST]!;
    for (;;) {
      const isStart = r === NO_MATCH;
      // Read into locals: the row is reused by the first continuation.
      const pmState = isStart ? this.nfa.start : rows.stateOf(r);
      const pmNode = isStart ? NO_NODE : rows.nodeOf(r);
      const pmStartTs = isStart ? 0 : rows.startTsOf(r);
      const pmStartId = isStart ? START_ID : rows.startIdOf(r);
      const following = isStart ? NO_MATCH : rows.nextOf(r);
      let reusable = !isStart;
      this.ctx.node = pmNode;
      if (!this.collectEdges(pmState, value)) {
        // A negation matched: the partial match ends here.
        if (!isStart) {
          buffer.release(pmNode);
          rows.recycle(r);
        }
      } else {
        // Takes first, so newer choices queue behind older ones (the order ties are emitted in).
        const { takes, takeStages, ignores, takeCount, ignoreCount } = this;
        for (let t = 0; t < takeCount; t++) {
          const edge = takes[t]!;
          const stage = takeStages[t]!;
          if (this.takenBefore(t, edge.target, stage)) continue;
          if (event < 0) event = buffer.event(eventId, value, timestamp);
          const node = buffer.append(event, stage, pmNode);
          const startTs = isStart ? timestamp : pmStartTs;
          const startId = isStart ? eventId : pmStartId;
          if (edge.target === this.nfa.final) {
            found = this.complete(node, startTs, startId) || found;
            // A node nobody else holds dies with this release only if complete() kept no reference.
            this.dropIfUnheld(node);
            continue;
          }
          buffer.retain(node);
          this.append(
            this.continuation(reusable ? r : NO_MATCH, edge.target, node, startTs, startId),
          );
          reusable = false;
          if (isStart) this.listener.started?.(startTs);
          if (this.proceeds[edge.target] === 1) {
            this.ctx.node = node;
            if (this.reachesFinal(edge.target, value)) {
              found = this.complete(node, startTs, startId) || found;
            }
            this.ctx.node = pmNode;
          }
        }
        if (!isStart) {
          for (let g = 0; g < ignoreCount; g++) {
            const edge = ignores[g]!;
            if (this.ignoredBefore(g, edge.target)) continue;
            if (edge.target === this.nfa.final) {
              found = this.complete(pmNode, pmStartTs, pmStartId) || found;
              continue;
            }
            buffer.retain(pmNode);
            const row = this.continuation(
              reusable ? r : NO_MATCH,
              edge.target,
              pmNode,
              pmStartTs,
              pmStartId,
            );
            this.append(row);
            reusable = false;
          }
          buffer.release(pmNode);
          if (reusable) rows.recycle(r);
        }
      }
      if (isStart) break;
      r = following;
    }
    cols[at + KS_FIRST] = this.nextFirst;
    cols[at + KS_COUNT] = this.nextCount;
    if (found || cols[at + KS_COMPLETED]! > 0) this.emitCompleted();
    cols[at + KS_BUFFER] = buffer.size;
  }

  /** The row of a continuation: `reused` (a partial match's own row) moved on, or a new row. */
  private continuation(
    reused: number,
    state: number,
    node: NodeRef,
    startTs: number,
    startId: number,
  ): number {
    if (reused === NO_MATCH) return this.rows.add(state, node, startTs, startId);
    this.rows.moveTo(reused, state, node);
    return reused;
  }

  /** Appends a row to the end of the list `process` builds. */
  private append(row: number): void {
    const rows = this.rows;
    rows.setNext(row, NO_MATCH);
    if (this.nextLast === NO_MATCH) this.nextFirst = row;
    else rows.setNext(this.nextLast, row);
    this.nextLast = row;
    this.nextCount++;
  }

  /**
   * Times out partial matches that began `within` or longer before `time`,
   * and those waiting in a state with a per-stage window that long or longer
   * after the event they took last; false if the state is unchanged (nothing
   * timed out, nothing was emitted).
   */
  advanceTime(slot: number, time: number): boolean {
    this.slot = slot;
    const keys = this.keys;
    this.buffer.size = keys.get(slot, KS_BUFFER);
    const within = this.nfa.withinMs;
    const rows = this.rows;
    let changed = false;
    const first = keys.get(slot, KS_FIRST);
    if (
      (within > 0 || this.nfa.stateWindows) &&
      keys.get(slot, KS_COUNT) > 0 &&
      this.anyTimedOut(first, time, within)
    ) {
      changed = true;
      // Unlinked in place: the rows that remain keep their order.
      let prev = NO_MATCH;
      for (let r = first; r !== NO_MATCH; ) {
        const following = rows.nextOf(r);
        const startTs = rows.startTsOf(r);
        const stateTimedOut = this.nfa.stateWindows && this.stateTimedOut(r, time);
        if (stateTimedOut || (within > 0 && time - startTs >= within)) {
          const node = rows.nodeOf(r);
          // A trailing notFollowedBy that saw no matching event in the window is a match.
          if (this.nfa.states[rows.stateOf(r)]!.kind === 'pending') {
            this.complete(node, startTs, rows.startIdOf(r));
          } else {
            // Flink stamps a per-stage timeout with that window's end, even if the other ended first.
            this.listener.timedOut?.(
              this.extract(node),
              stateTimedOut ? this.stateWindowEnd(r) : startTs + within,
            );
          }
          this.dropMatch(prev, r);
        } else {
          prev = r;
        }
        r = following;
      }
    }
    if (keys.get(slot, KS_COMPLETED) > 0) {
      changed = true;
      this.emitCompleted();
    }
    keys.set(slot, KS_BUFFER, this.buffer.size);
    return changed;
  }

  /** Ends partial match `r` (after `prev` in the key's list): releases its node, unlinks and frees its row. */
  private dropMatch(prev: number, r: number): void {
    const { rows, keys, slot } = this;
    this.buffer.release(rows.nodeOf(r));
    const following = rows.nextOf(r);
    if (prev === NO_MATCH) keys.set(slot, KS_FIRST, following);
    else rows.setNext(prev, following);
    keys.set(slot, KS_COUNT, keys.get(slot, KS_COUNT) - 1);
    rows.recycle(r);
  }

  /** The earliest start time of the key's partial matches; +Infinity if it has none. */
  earliestStart(slot: number): number {
    const rows = this.rows;
    let earliest = Number.POSITIVE_INFINITY;
    for (let r = this.keys.get(slot, KS_FIRST); r !== NO_MATCH; r = rows.nextOf(r)) {
      const t = rows.startTsOf(r);
      if (t < earliest) earliest = t;
    }
    return earliest;
  }

  /** Checked first, so that the common case (nothing times out) allocates nothing. */
  private anyTimedOut(first: number, time: number, within: number): boolean {
    const rows = this.rows;
    const stateWindows = this.nfa.stateWindows;
    for (let r = first; r !== NO_MATCH; r = rows.nextOf(r)) {
      if (within > 0 && time - rows.startTsOf(r) >= within) return true;
      if (stateWindows && this.stateTimedOut(r, time)) return true;
    }
    return false;
  }

  /** Whether the per-stage window of the state partial match `r` waits in has passed at `time`. */
  private stateTimedOut(r: number, time: number): boolean {
    const windowMs = this.nfa.states[this.rows.stateOf(r)]!.windowMs;
    if (windowMs === 0) return false;
    const buffer = this.buffer;
    return time - buffer.eventTimestamp(buffer.eventOf(this.rows.nodeOf(r))) >= windowMs;
  }

  /**
   * When the per-stage window of the state partial match `r` waits in ends:
   * the time of the event it took last plus the window; +Infinity if none.
   */
  private stateWindowEnd(r: number): number {
    const windowMs = this.nfa.states[this.rows.stateOf(r)]!.windowMs;
    if (windowMs === 0) return Number.POSITIVE_INFINITY;
    const buffer = this.buffer;
    return buffer.eventTimestamp(buffer.eventOf(this.rows.nodeOf(r))) + windowMs;
  }

  /**
   * The earliest time a partial match of the key times out (by `within` or a
   * per-stage window); +Infinity if none can.
   */
  nextTimeout(slot: number): number {
    const rows = this.rows;
    const within = this.nfa.withinMs;
    let earliest = Number.POSITIVE_INFINITY;
    for (let r = this.keys.get(slot, KS_FIRST); r !== NO_MATCH; r = rows.nextOf(r)) {
      if (within > 0) earliest = Math.min(earliest, rows.startTsOf(r) + within);
      earliest = Math.min(earliest, this.stateWindowEnd(r));
    }
    return earliest;
  }

  /** Whether take `t` repeats an earlier take into the same state by the same stage. */
  private takenBefore(t: number, target: number, stage: number): boolean {
    for (let i = 0; i < t; i++) {
      if (this.takes[i]!.target === target && this.takeStages[i] === stage) return true;
    }
    return false;
  }

  private ignoredBefore(g: number, target: number): boolean {
    for (let i = 0; i < g; i++) if (this.ignores[i]!.target === target) return true;
    return false;
  }

  /**
   * Follows proceed edges from `from`, collecting the take and ignore edges
   * whose conditions hold for `value`; false if the stop state was reached.
   */
  private collectEdges(from: number, value: T): boolean {
    const { states, stop } = this.nfa;
    const { stack, visited, takes, takeStages, ignores, ctx, reuse, passed } = this;
    const mark = ++this.visitMark;
    let takeCount = 0;
    let ignoreCount = 0;
    let top = 0;
    stack[top++] = from;
    visited[from] = mark;
    let reachedStop = false;
    while (top > 0 && !reachedStop) {
      const id = stack[--top]!;
      const edges = states[id]!.edges;
      const reused = reuse[id]!;
      for (let e = 0; e < edges.length; e++) {
        const edge = edges[e]!;
        const r = reused[e]!;
        const pass =
          r >= 0
            ? (passed[r >> 1] === 1) !== ((r & 1) === 1)
            : edge.test === undefined || edge.test(value, ctx);
        passed[e] = pass ? 1 : 0;
        if (!pass) continue;
        if (edge.action === 'proceed') {
          if (edge.target === stop) {
            reachedStop = true;
            break;
          }
          if (visited[edge.target] !== mark) {
            visited[edge.target] = mark;
            stack[top++] = edge.target;
          }
        } else if (edge.action === 'take') {
          takes[takeCount] = edge;
          takeStages[takeCount++] = this.stageOfState[id]!;
        } else {
          ignores[ignoreCount++] = edge;
        }
      }
    }
    this.takeCount = takeCount;
    this.ignoreCount = ignoreCount;
    return !reachedStop;
  }

  /** Whether proceed edges lead from `from` to the final state for `value`. */
  private reachesFinal(from: number, value: T): boolean {
    const { states, final } = this.nfa;
    const mark = ++this.visitMark;
    const { stack, visited } = this;
    let top = 0;
    stack[top++] = from;
    visited[from] = mark;
    while (top > 0) {
      const id = stack[--top]!;
      for (const edge of states[id]!.edges) {
        if (edge.action !== 'proceed' || visited[edge.target] === mark) continue;
        if (edge.test !== undefined && !edge.test(value, this.ctx)) continue;
        if (edge.target === final) return true;
        visited[edge.target] = mark;
        stack[top++] = edge.target;
      }
    }
    return false;
  }

  private complete(node: NodeRef, startTs: number, startId: number): boolean {
    const { keys, slot } = this;
    const completed = keys.completed(slot);
    for (const c of completed) if (c.node === node) return false;
    this.buffer.retain(node);
    const held: PartialMatch = { state: this.nfa.final, node, startTs, startId };
    if (completed.length === 0) {
      keys.setCompleted(slot, [held]);
    } else {
      completed.push(held);
      keys.setCompleted(slot, completed);
    }
    return true;
  }

  private dropIfUnheld(node: NodeRef): void {
    const buffer = this.buffer;
    if (buffer.refsOf(node) === 0) {
      buffer.retain(node);
      buffer.release(node);
    }
  }

  /**
   * Emits completed matches in order of their first event. With a skip
   * strategy a match waits while a partial match that began earlier is still
   * running, and every emitted match prunes what the strategy discards.
   */
  private emitCompleted(): void {
    const { keys, slot } = this;
    const completed = keys.completed(slot);
    if (completed.length > 1) completed.sort((a, b) => a.startId - b.startId);
    if (this.skip.kind === 'no-skip') {
      for (const c of completed) {
        this.listener.match(this.extract(c.node));
        this.buffer.release(c.node);
      }
      keys.clearCompleted(slot);
      return;
    }
    let held = completed;
    while (held.length > 0) {
      const m = held[0]!;
      let earliest = Number.POSITIVE_INFINITY;
      const rows = this.rows;
      for (let r = keys.get(slot, KS_FIRST); r !== NO_MATCH; r = rows.nextOf(r)) {
        if (rows.startIdOf(r) < earliest) earliest = rows.startIdOf(r);
      }
      if (m.startId > earliest) break;
      held.shift();
      keys.setCompleted(slot, held);
      this.listener.match(this.extract(m.node));
      const prune = this.pruneBefore(m);
      this.buffer.release(m.node);
      if (prune !== undefined) {
        this.prunePartial(prune.id, prune.inclusive);
        held = this.pruned(held, prune.id, prune.inclusive);
      }
    }
    keys.setCompleted(slot, held);
  }

  /** The event id before (or up to) which partial matches must start to be discarded. */
  private pruneBefore(m: PartialMatch): { id: number; inclusive: boolean } | undefined {
    const skip = this.skip;
    const buffer = this.buffer;
    switch (skip.kind) {
      case 'no-skip':
        return undefined;
      case 'skip-to-next':
        return { id: m.startId, inclusive: true };
      case 'skip-past-last-event':
        return { id: buffer.eventId(buffer.eventOf(m.node)), inclusive: true };
      case 'skip-to-first':
      case 'skip-to-last': {
        const stage = this.stageIndex.get(skip.stage)!;
        let id = -1;
        buffer.forEachBack(m.node, (eventId, s) => {
          if (s !== stage) return;
          // Walking backwards: the last one seen is the first; the first seen is the last.
          if (skip.kind === 'skip-to-first' || id === -1) id = eventId;
        });
        if (id === -1) {
          if (skip.throwOnMiss) {
            throw invalidArgument(`skip strategy: stage '${skip.stage}' is not in the match`);
          }
          return undefined;
        }
        if (skip.throwOnMiss && id === m.startId) {
          // As Flink CEP: the next match would start where this one did, and find it again.
          throw invalidArgument(
            `skip strategy: skipping to '${skip.stage}' would restart at the match's first event`,
          );
        }
        return { id, inclusive: false };
      }
    }
  }

  /** Ends the key's partial matches that began before (or at) event `id`. */
  private prunePartial(id: number, inclusive: boolean): void {
    const rows = this.rows;
    let prev = NO_MATCH;
    for (let r = this.keys.get(this.slot, KS_FIRST); r !== NO_MATCH; ) {
      const following = rows.nextOf(r);
      const startId = rows.startIdOf(r);
      if (startId < id || (inclusive && startId === id)) {
        this.dropMatch(prev, r);
      } else {
        prev = r;
      }
      r = following;
    }
  }

  private pruned(list: PartialMatch[], id: number, inclusive: boolean): PartialMatch[] {
    const kept: PartialMatch[] = [];
    for (const pm of list) {
      if (pm.startId < id || (inclusive && pm.startId === id)) this.buffer.release(pm.node);
      else kept.push(pm);
    }
    return kept;
  }

  /** The events of the match ending at `node`, by stage, oldest first; every stage present. */
  private extract(node: NodeRef): MatchEvents<T> {
    const names = this.nfa.stageNames;
    const out: Record<string, T[]> = {};
    for (const n of names) out[n] = [];
    this.buffer.forEachBack(node, (_, stage, value) => {
      out[names[stage]!]!.push(value);
    });
    for (const n of names) out[n]!.reverse();
    return out;
  }
}

/** See `NfaRunner.reuse`. */
function reusedResults<T>(edges: readonly NfaEdge<T>[]): Int16Array {
  const out = new Int16Array(edges.length).fill(-1);
  for (let e = 0; e < edges.length; e++) {
    const test = edges[e]!.test;
    if (test === undefined) continue;
    const negated = negationOf(test);
    for (let i = 0; i < e; i++) {
      const earlier = edges[i]!.test;
      if (earlier === test) out[e] = 2 * i;
      else if (negated !== undefined && earlier === negated) out[e] = 2 * i + 1;
      else continue;
      break;
    }
  }
  return out;
}

/** The condition context of the partial match being tried; reused for every event. */
class ConditionView<T> implements CepConditionContext<T> {
  node: NodeRef = NO_NODE;
  timestamp = 0;

  constructor(
    private readonly stageIndex: ReadonlyMap<string, number>,
    private readonly buffer: SharedBuffer<T>,
  ) {}

  eventsFor(stage: string): readonly T[] {
    const index = this.stageIndex.get(stage);
    if (index === undefined || this.node === NO_NODE) return [];
    const buffer = this.buffer;
    // Counted first, so that the list is allocated once at its size (conditions run per event).
    let count = 0;
    for (let n = this.node; n !== NO_NODE; n = buffer.prevOf(n)) {
      if (buffer.stageOf(n) === index) count++;
    }
    const found = new Array<T>(count);
    for (let n = this.node; n !== NO_NODE; n = buffer.prevOf(n)) {
      if (buffer.stageOf(n) === index) found[--count] = buffer.value(buffer.eventOf(n));
    }
    return found;
  }
}
