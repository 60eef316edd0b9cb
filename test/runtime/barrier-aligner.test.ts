/**
 * Barrier alignment as a pure state machine, checked against a reference
 * model on every sequence of barriers and channel ends: all sequences over
 * up to 3 channels and 2 checkpoints (both as a task can read them, and
 * unconstrained), and random longer ones over more channels and checkpoints.
 *
 * The reference model keeps no state of its own but the events since the last
 * completed alignment, and derives everything from them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AlignmentDecision, BarrierAligner } from '../../src/runtime/task/barrier-aligner.js';

type Event =
  | {
      readonly kind: 'barrier';
      readonly channel: number;
      readonly id: number;
      readonly savepoint: boolean;
      readonly stop: boolean;
    }
  | { readonly kind: 'end'; readonly channel: number };

/** Flags vary by channel too, so "the flags of the barrier that began it" is checked. */
const barrier = (channel: number, id: number): Event => ({
  kind: 'barrier',
  channel,
  id,
  savepoint: (channel + id) % 2 === 1,
  stop: channel === id,
});
const end = (channel: number): Event => ({ kind: 'end', channel });

/** The reference: events since the last completed alignment, and the ended channels. */
class Reference {
  private log: Event[] = [];
  private readonly ended = new Set<number>();

  constructor(private readonly channels: number) {}

  /** Barriers of the log that were not stale when they arrived. */
  private current(): Extract<Event, { kind: 'barrier' }>[] {
    const kept: Extract<Event, { kind: 'barrier' }>[] = [];
    let max = Number.NEGATIVE_INFINITY;
    for (const e of this.log) {
      if (e.kind !== 'barrier' || e.id < max) continue;
      max = e.id;
      kept.push(e);
    }
    return kept.filter((e) => e.id === max);
  }

  inProgress(): number | undefined {
    return this.current()[0]?.id;
  }

  blocked(channel: number): boolean {
    return this.current().some((e) => e.channel === channel);
  }

  apply(event: Event): AlignmentDecision {
    const before = this.inProgress();
    if (event.kind === 'end') this.ended.add(event.channel);
    if (event.kind === 'barrier' && before !== undefined && event.id < before) return NONE;
    this.log.push(event);
    const current = this.current();
    const first = current[0];
    if (first === undefined) return NONE;
    // Events may repeat (the same object): compare positions, not identities.
    const started = event.kind === 'barrier' && this.log.indexOf(first) === this.log.length - 1;
    for (let c = 0; c < this.channels; c++) {
      if (!this.ended.has(c) && !current.some((e) => e.channel === c))
        return started ? { kind: 'started' } : NONE;
    }
    this.log = [];
    return {
      kind: 'aligned',
      checkpointId: first.id,
      savepoint: first.savepoint,
      stop: first.stop,
      started,
    };
  }
}

const NONE: AlignmentDecision = { kind: 'none' };

function feed(aligner: BarrierAligner, event: Event): AlignmentDecision {
  return event.kind === 'end'
    ? aligner.channelEnded(event.channel)
    : aligner.barrier(event.channel, event.id, event.savepoint, event.stop);
}

const show = (events: readonly Event[]) =>
  events.map((e) => (e.kind === 'end' ? `end@${e.channel}` : `b${e.id}@${e.channel}`)).join(' ');

/** Runs `events` through both and compares every decision and every channel's blocking. */
function check(channels: number, events: readonly Event[]): AlignmentDecision[] {
  const aligner = new BarrierAligner(channels);
  const reference = new Reference(channels);
  const decisions: AlignmentDecision[] = [];
  for (let i = 0; i < events.length; i++) {
    const got = feed(aligner, events[i]!);
    const want = reference.apply(events[i]!);
    if (JSON.stringify(got) !== JSON.stringify(want)) {
      expect(got, `after ${show(events.slice(0, i + 1))}`).toEqual(want);
    }
    for (let c = 0; c < channels; c++) {
      if (aligner.isBlocked(c) !== reference.blocked(c)) {
        expect(aligner.isBlocked(c), `channel ${c} after ${show(events.slice(0, i + 1))}`).toBe(
          reference.blocked(c),
        );
      }
    }
    if (aligner.checkpointInProgress !== reference.inProgress()) {
      expect(aligner.checkpointInProgress).toBe(reference.inProgress());
    }
    decisions.push(got);
  }
  return decisions;
}

/** Every event of `channels` channels and checkpoints 1..`checkpoints`. */
function alphabet(channels: number, checkpoints: number): Event[] {
  const events: Event[] = [];
  for (let c = 0; c < channels; c++) {
    for (let id = 1; id <= checkpoints; id++) events.push(barrier(c, id));
    events.push(end(c));
  }
  return events;
}

/**
 * Every sequence a task can read: each channel delivers a subsequence of
 * b1, b2, ..., end in that order, and a blocked channel is not read. Calls
 * `visit` with every complete run (one that cannot go on).
 */
function readableRuns(
  channels: number,
  checkpoints: number,
  visit: (events: readonly Event[]) => void,
): void {
  // A channel's script: which checkpoints' barriers it carries (a bitmask) and whether it ends.
  const scripts: Event[][][] = [];
  for (let c = 0; c < channels; c++) {
    const options: Event[][] = [];
    for (let mask = 0; mask < 1 << checkpoints; mask++) {
      for (const ends of [false, true]) {
        const script: Event[] = [];
        for (let id = 1; id <= checkpoints; id++)
          if (mask & (1 << (id - 1))) script.push(barrier(c, id));
        if (ends) script.push(end(c));
        options.push(script);
      }
    }
    scripts.push(options);
  }
  const run = (chosen: Event[][], next: number[], model: Reference, events: Event[]) => {
    let moved = false;
    for (let c = 0; c < channels; c++) {
      const e = chosen[c]![next[c]!];
      if (e === undefined || model.blocked(c)) continue;
      moved = true;
      // The reference has no copy operation: replay the prefix into a fresh one.
      const branch = new Reference(channels);
      for (const p of events) branch.apply(p);
      branch.apply(e);
      next[c]!++;
      run(chosen, next, branch, [...events, e]);
      next[c]!--;
    }
    if (!moved) visit(events);
  };
  const choose = (c: number, chosen: Event[][]) => {
    if (c === channels) {
      run(chosen, new Array<number>(channels).fill(0), new Reference(channels), []);
      return;
    }
    for (const script of scripts[c]!) choose(c + 1, [...chosen, script]);
  };
  choose(0, []);
}

describe('barrier alignment', () => {
  it('decides as the reference on every sequence a task can read (1 to 3 channels, 2 checkpoints)', () => {
    let runs = 0;
    let aligned = 0;
    for (let channels = 1; channels <= 3; channels++) {
      readableRuns(channels, 2, (events) => {
        runs++;
        const decisions = check(channels, events);
        aligned += decisions.filter((d) => d.kind === 'aligned').length;
        // What alignment guarantees: a checkpoint is taken once every channel delivered its barrier or ended.
        decisions.forEach((d, i) => {
          if (d.kind !== 'aligned') return;
          const before = events.slice(0, i + 1);
          for (let c = 0; c < channels; c++) {
            const done = before.some(
              (e) =>
                e.channel === c &&
                (e.kind === 'end' || (e.kind === 'barrier' && e.id === d.checkpointId)),
            );
            expect(done, `channel ${c} in ${show(before)}`).toBe(true);
          }
        });
      });
    }
    // The enumeration is what it claims (a count that changes means it changed).
    expect(runs).toBe(5781);
    expect(aligned).toBe(6702);
  }, 60_000);

  it('decides as the reference on every sequence of up to 6 events (3 channels, 2 checkpoints)', () => {
    const events = alphabet(3, 2);
    let sequences = 0;
    const walk = (prefix: Event[]) => {
      check(3, prefix);
      sequences++;
      if (prefix.length === 6) return;
      for (const e of events) walk([...prefix, e]);
    };
    walk([]);
    expect(sequences).toBe((9 ** 7 - 1) / 8);
  }, 120_000);

  it('decides as the reference on random sequences over more channels and checkpoints', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }).chain((channels) =>
          fc.tuple(
            fc.constant(channels),
            fc.array(
              fc.oneof(
                {
                  weight: 4,
                  arbitrary: fc
                    .tuple(fc.nat(channels - 1), fc.integer({ min: 1, max: 5 }))
                    .map(([c, id]) => barrier(c, id)),
                },
                { weight: 1, arbitrary: fc.nat(channels - 1).map(end) },
              ),
              { maxLength: 40 },
            ),
          ),
        ),
        ([channels, events]) => {
          check(channels, events);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('examples: stale barriers, overtaking, ended channels', () => {
    const a = new BarrierAligner(3);
    expect(a.barrier(0, 1, false, false)).toEqual({ kind: 'started' });
    expect(a.isBlocked(0)).toBe(true);
    // Checkpoint 2 overtakes 1: channel 0 is read again until it delivers 2.
    expect(a.barrier(1, 2, true, false)).toEqual({ kind: 'started' });
    expect(a.isBlocked(0)).toBe(false);
    expect(a.barrier(2, 1, false, false)).toEqual({ kind: 'none' });
    expect(a.channelEnded(2)).toEqual({ kind: 'none' });
    expect(a.barrier(0, 2, false, false)).toEqual({
      kind: 'aligned',
      checkpointId: 2,
      savepoint: true,
      stop: false,
      started: false,
    });
    expect(a.checkpointInProgress).toBeUndefined();
    // Only channel 1 is open now (2 ended): its barrier aligns at once.
    a.channelEnded(0);
    expect(a.barrier(1, 3, false, true)).toEqual({
      kind: 'aligned',
      checkpointId: 3,
      savepoint: false,
      stop: true,
      started: true,
    });
  });
});
