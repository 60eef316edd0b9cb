import type { Out } from '../cli/fixtures/group-keyed-windows.js';
import { waitFor } from '../kafka/helpers.js';
import { heldTasks } from './group-member.js';

/**
 * The input and batch computation of the keyed window tests of process
 * groups (the job: test/cli/fixtures/group-keyed-windows.ts).
 */

/** Input partitions; the last one never gets a record (an idle task). */
export const PARTITIONS = 4;
export const KEYS = Array.from({ length: 9 }, (_, i) => `k${i}`);
export const WINDOW = 10_000;
const LATENESS = 15_000;
const OUT_OF_ORDERNESS = 100_000;
/** Ticks that take the watermark past every on-time window (multiples of 3: see `ticks`). */
export const TICK = 201_000;
export const END = 402_000;

export interface Ev {
  readonly k: string;
  readonly t: number;
  readonly v: number;
}

/** A deterministic stream of numbers in [0, 1). */
export function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Every key's records go to one partition (0..2), so their order holds end to end; ticks go to all three. */
export const partitionOf = (e: Ev): number => (e.k === 'tick' ? e.t % 3 : Number(e.k.slice(1)) % 3);

/**
 * The input in phases: a tick in each partition, so every producing task
 * has spoken before the data; on-time records up to 90 s (each key has one
 * at 85 s); ticks at 200 s that take the watermark (100 s behind) to 100 s;
 * late records (those in [80 s, 90 s) update their window, earlier ones are
 * too late for it); ticks at 400 s that fire the last window.
 */
export function input(seed: number) {
  const next = random(seed);
  const onTime: Ev[] = [];
  for (const k of KEYS) {
    onTime.push({ k, t: 85_000, v: 1 });
    for (let i = 0; i < 40; i++)
      onTime.push({ k, t: Math.floor(next() * 90_000), v: Math.floor(next() * 100) });
  }
  const late: Ev[] = KEYS.flatMap((k) =>
    Array.from({ length: 4 }, () => ({
      k,
      t: Math.floor(next() * 90_000),
      v: Math.floor(next() * 100),
    })),
  );
  // t: a multiple of 3, so tick t + p goes to partition p.
  const ticks = (t: number): Ev[] => [0, 1, 2].map((p) => ({ k: 'tick', t: t + p, v: 0 }));
  return { onTime, late, ticks };
}

/** The batch computation: what the job must write, as a sorted list of lines. */
export function oracle(
  onTime: readonly Ev[],
  late: readonly Ev[],
  ticks: (t: number) => Ev[],
): string[] {
  return oracleOutputs(onTime, late, ticks).map(line).sort();
}

/** The batch computation as the job writes it, in order (first results, then updates). */
export function oracleOutputs(
  onTime: readonly Ev[],
  late: readonly Ev[],
  ticks: (t: number) => Ev[],
): Out[] {
  const out: Out[] = [];
  const acc = new Map<string, { k: string; start: number; n: number; sum: number }>();
  const add = (e: Ev) => {
    const start = Math.floor(e.t / WINDOW) * WINDOW;
    const id = `${e.k}@${start}`;
    const a = acc.get(id) ?? { k: e.k, start, n: 0, sum: 0 };
    a.n++;
    a.sum += e.v;
    acc.set(id, a);
    return a;
  };
  // Everything before the ticks at TICK fires when they pass.
  for (const e of [...ticks(0), ...onTime]) add(e);
  for (const a of acc.values()) out.push({ kind: 'window', ...a, update: false });
  const watermark = TICK + 2 - OUT_OF_ORDERNESS - 1;
  for (const e of late) {
    const start = Math.floor(e.t / WINDOW) * WINDOW;
    if (start + WINDOW - 1 + LATENESS <= watermark) out.push({ kind: 'late', ...e });
    else out.push({ kind: 'window', ...add({ ...e }), update: true });
  }
  // The ticks' own window fires when the ticks at END pass.
  out.push({ kind: 'window', k: 'tick', start: 200_000, n: 3, sum: 0, update: false });
  return out;
}

/**
 * The final result of an output: per (key, window) the last value written
 * (updates replace earlier results), and each record too late for its
 * window once; sorted lines.
 */
export function lastWins(outs: readonly Out[]): string[] {
  const windows = new Map<string, string>();
  const late = new Set<string>();
  for (const o of outs) {
    if (o.kind === 'late') late.add(line(o));
    else windows.set(`${o.k}@${o.start}`, `window ${o.k} ${o.start} n=${o.n} sum=${o.sum}`);
  }
  return [...windows.values(), ...late].sort();
}

/** Per (key, window) of `events`: how many, and the largest value. */
export function countAndMax(events: readonly Ev[]): Map<string, { n: number; max: number }> {
  const out = new Map<string, { n: number; max: number }>();
  for (const e of events) {
    const id = `${e.k}@${Math.floor(e.t / WINDOW) * WINDOW}`;
    const a = out.get(id) ?? { n: 0, max: Number.NEGATIVE_INFINITY };
    a.n++;
    a.max = Math.max(a.max, e.v);
    out.set(id, a);
  }
  return out;
}

/** `events` in `parts` consecutive slices (each key's order holds). */
export function chunks<T>(events: readonly T[], parts: number): T[][] {
  const size = Math.ceil(events.length / parts);
  return Array.from({ length: parts }, (_, i) => events.slice(i * size, (i + 1) * size));
}

export function line(o: Out): string {
  return o.kind === 'window'
    ? `window ${o.k} ${o.start} n=${o.n} sum=${o.sum}${o.update ? ' update' : ''}`
    : `late ${o.k} ${o.t} v=${o.v}`;
}

/**
 * Waits until the members hold `total` tasks between them, each some (each
 * of a member's readers reports a line of `weir_kafka_source_partitions`).
 */
export async function settled(
  members: readonly { readonly port: number }[],
  total: number,
  diagnose: () => string,
): Promise<void> {
  await waitFor(
    'the group to settle',
    async () => {
      const held = await Promise.all(members.map((m) => heldTasks(m.port)));
      const sums = held.map((h) => h.reduce((a, b) => a + b, 0));
      return (
        sums.reduce((a, b) => a + b, 0) === total &&
        held.every((h) => h.length === 2) &&
        sums.every((n) => n > 0)
      );
    },
    90_000,
    diagnose,
  );
}
