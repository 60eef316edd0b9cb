/**
 * Interactive queries of window results: `GET /jobs/:id/state/:uid/:key`
 * over queryable tumbling, sliding, session and count windows
 * (`WindowedStream.queryable()`), with the heap and disk backends, on this
 * thread and on worker threads. The oracle is a batch computation of every
 * key's windows over the input: once the input is processed, every key
 * answers exactly the windows the last watermark leaves in state (open ones,
 * and fired ones kept for the allowed lateness), with their batch results;
 * while it is processed, a tumbling or sliding window's answer is always the
 * first records of the key in that window (never part of a batch).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  COUNT_WINDOW,
  OUT_OF_ORDERNESS_MS,
  SESSIONS,
  SLIDING,
  type TimedEvent,
  TUMBLING,
  windowEvents,
} from './fixtures/queryable-windows.js';
import { QUERY_CASES, queriedJobs } from './queried-jobs.js';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'queryable-windows.ts');
const COUNT = 6000;

interface Window {
  readonly start: number | null;
  readonly end: number | null;
  readonly value: Record<string, unknown>;
  readonly fired: boolean;
}

/** A key's events in source order. */
function byKey(input: readonly TimedEvent[]): Map<string, TimedEvent[]> {
  const keys = new Map<string, TimedEvent[]>();
  for (const e of input) {
    const list = keys.get(e.key) ?? [];
    list.push(e);
    keys.set(e.key, list);
  }
  return keys;
}

const total = (events: readonly TimedEvent[]) => ({
  n: events.length,
  sum: events.reduce((s, e) => s + e.amount, 0),
});

/** Fixed windows [start, start + size) containing `ts`, every `slide`. */
function fixedStarts(ts: number, size: number, slide: number): number[] {
  const starts: number[] = [];
  for (let s = Math.floor(ts / slide) * slide; s > ts - size; s -= slide) starts.push(s);
  return starts;
}

/** Each key's fixed windows: their events in source order, by start. */
function fixedWindows(events: readonly TimedEvent[], size: number, slide: number) {
  const windows = new Map<number, TimedEvent[]>();
  for (const e of events)
    for (const start of fixedStarts(e.ts, size, slide)) {
      const list = windows.get(start) ?? [];
      list.push(e);
      windows.set(start, list);
    }
  return windows;
}

/** Sessions of one key: events whose windows [ts, ts + gap] touch share one. */
function sessions(events: readonly TimedEvent[], gap: number) {
  const sorted = [...events].sort((a, b) => a.ts - b.ts);
  const found: { start: number; end: number; events: TimedEvent[] }[] = [];
  for (const e of sorted) {
    const last = found[found.length - 1];
    if (last !== undefined && e.ts <= last.end) {
      last.end = Math.max(last.end, e.ts + gap);
      last.events.push(e);
    } else found.push({ start: e.ts, end: e.ts + gap, events: [e] });
  }
  return found;
}

/** What each queryable window operator holds per key once the last watermark has passed. */
function expected(input: readonly TimedEvent[]): Map<string, Map<string, Window[]>> {
  const maxTs = Math.max(...input.map((e) => e.ts));
  const watermark = maxTs - OUT_OF_ORDERNESS_MS - 1;
  const answers = new Map<string, Map<string, Window[]>>(
    ['tumbling', 'sliding', 'sessions', 'counts'].map((uid) => [uid, new Map()]),
  );
  for (const [key, events] of byKey(input)) {
    const fixed = (uid: string, size: number, slide: number, lateness: number) => {
      const windows: Window[] = [];
      for (const [start, members] of fixedWindows(events, size, slide)) {
        const end = start + size;
        if (end - 1 + lateness <= watermark) continue;
        windows.push({ start, end, value: total(members), fired: end - 1 <= watermark });
      }
      windows.sort((a, b) => a.start! - b.start!);
      if (windows.length > 0) answers.get(uid)!.set(key, windows);
    };
    fixed('tumbling', TUMBLING.size, TUMBLING.size, TUMBLING.lateness);
    fixed('sliding', SLIDING.size, SLIDING.slide, 0);
    const open = sessions(events, SESSIONS.gap)
      .filter((s) => s.end - 1 + SESSIONS.lateness > watermark)
      .map((s) => ({
        start: s.start,
        end: s.end,
        value: { key, ...total(s.events) },
        fired: s.end - 1 <= watermark,
      }));
    if (open.length > 0) answers.get('sessions')!.set(key, open);
    const rest = events.length % COUNT_WINDOW;
    if (rest > 0)
      answers
        .get('counts')!
        .set(key, [
          { start: null, end: null, value: { key, ...total(events.slice(-rest)) }, fired: false },
        ]);
  }
  return answers;
}

describe.each(QUERY_CASES)('queryable windows ($name)', (c) => {
  const jobs = queriedJobs(c);
  const input = windowEvents(COUNT);
  const keys = byKey(input);
  const answers = expected(input);

  it('answers every key with the windows the batch computation leaves open, and only whole prefixes on the way', async () => {
    // The oracle covers each kind of window, fired ones kept for lateness included.
    const all = [...answers.values()].flatMap((m) => [...m.values()].flat());
    expect(all.some((w) => w.fired)).toBe(true);
    expect(all.some((w) => !w.fired)).toBe(true);
    for (const m of answers.values()) expect(m.size).toBeGreaterThan(0);

    const { client, get } = await jobs.start(FIXTURE, [String(COUNT)]);
    // Every tumbling and sliding window of a key, by start: its events in source order.
    const prefixes = new Map<string, Map<number, number[]>>();
    for (const [uid, size, slide] of [
      ['tumbling', TUMBLING.size, TUMBLING.size],
      ['sliding', SLIDING.size, SLIDING.slide],
    ] as const)
      for (const [key, events] of keys) {
        const sums = new Map<number, number[]>();
        for (const [start, members] of fixedWindows(events, size, slide)) {
          const p = [0];
          for (const e of members) p.push(p[p.length - 1]! + e.amount);
          sums.set(start, p);
        }
        prefixes.set(`${uid}/${key}`, sums);
      }
    try {
      const pending = new Set(
        [...answers.keys()].flatMap((uid) => [...keys.keys()].map((key) => `${uid}/${key}`)),
      );
      const last = new Map<string, string>();
      const deadline = Date.now() + 120_000;
      while (pending.size > 0) {
        if (Date.now() > deadline)
          throw new Error(
            `answers never reached the batch computation: ${[...pending].map((p) => `${p} (last ${last.get(p)})`).join('; ')}`,
          );
        for (const item of [...pending]) {
          const [uid, key] = item.split('/') as [string, string];
          const answer = await get(uid, key);
          last.set(item, `${answer.status} ${answer.body}`);
          if (answer.status === 503) continue; // not started yet
          const want = answers.get(uid)!.get(key);
          if (answer.status === 404) {
            // No window yet, or (at the end) none left.
            if (want === undefined) pending.delete(item);
            continue;
          }
          expect(answer.status, answer.body).toBe(200);
          const body = JSON.parse(answer.body) as { uid: string; key: string; value: Window[] };
          expect(body.uid).toBe(uid);
          expect(body.key).toBe(key);
          const windows = body.value;
          const sums = prefixes.get(item);
          if (sums !== undefined)
            for (const w of windows) {
              // A whole prefix of the window's records, never part of a batch's update.
              const { n, sum } = w.value as { n: number; sum: number };
              expect(sum, `${item} [${w.start}, ${w.end})`).toBe(sums.get(w.start!)![n]);
              expect(w.end! - w.start!).toBe(uid === 'tumbling' ? TUMBLING.size : SLIDING.size);
            }
          if (want !== undefined && JSON.stringify(windows) === JSON.stringify(want)) {
            pending.delete(item);
          }
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      // A key the input never had, and a window operator that is not queryable.
      expect((await get('tumbling', 'no-such-key')).status).toBe(404);
      const plain = await get('plain', 'k1');
      expect(plain.status).toBe(400);
      expect(JSON.parse(plain.body).error).toContain('plain');
    } finally {
      await client.cancel();
    }
  }, 180_000);
});
