/**
 * A window aggregation over a random changelog (inserts, updates that may move a row to another
 * key or time, deletes), its changes arriving out of order but never later than the watermark
 * delay, gives per window the batch aggregation of the rows left at the end (fast-check).
 * TUMBLE, HOP and CUMULATE: a SESSION window does not shrink when its rows are retracted, so
 * its bounds are not those of the final rows.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { cumulativeWindowsOf, windowStart } from '../../src/core/windows.js';
import { runScenario } from './flink-scenario-runner.js';
import {
  registerValues,
  registerValuesConnector,
  type ValuesChange,
} from './flink-values-connector.js';
import { normalized } from './flink-window-data.js';

beforeAll(registerValuesConnector);

/** The WATERMARK delay: no change is older than the newest time seen less this. */
const DELAY = 3000;
const START = 1_000_000;

type Live = { k: number; v: number; t: number };
type OpValue = { kind: number; pick: number; k: number; v: number; dt: number };

/** An operation: 0 insert, 1 update, 2 delete; the others pick a row, a key, a value, a time. */
const op = fc.record({
  kind: fc.integer({ min: 0, max: 2 }),
  pick: fc.nat(),
  k: fc.integer({ min: 0, max: 2 }),
  v: fc.integer({ min: -9, max: 9 }),
  // Tenths of a second from the oldest time still on time to a little past the newest.
  dt: fc.integer({ min: 0, max: 40 }),
});

/** The changes of `ops` in arrival order, each on time for every window of its row. */
function changelog(ops: readonly OpValue[]): {
  changes: ValuesChange[];
  rows: Live[];
} {
  let max = START;
  const live = new Map<number, Live>();
  const changes: ValuesChange[] = [];
  let id = 0;
  const emit = (kind: ValuesChange[0], r: Live) => {
    changes.push([kind, r.k, r.v, r.t]);
    max = Math.max(max, r.t);
  };
  const fresh = (o: OpValue): Live => ({ k: o.k, v: o.v, t: max - DELAY + 100 + o.dt * 100 });
  for (const o of ops) {
    // Rows still on time: their retraction is not late for any of their windows.
    const open = [...live].filter(([, r]) => r.t > max - DELAY);
    const target = open.length === 0 ? undefined : open[o.pick % open.length];
    if (o.kind === 0 || target === undefined) {
      const r = fresh(o);
      live.set(id++, r);
      emit('+I', r);
    } else if (o.kind === 1) {
      const [key, old] = target;
      emit('-U', old);
      const r = fresh(o);
      live.set(key, r);
      emit('+U', r);
    } else {
      const [key, old] = target;
      live.delete(key);
      emit('-D', old);
    }
  }
  return { changes, rows: [...live.values()] };
}

type Kind = 'TUMBLE' | 'HOP' | 'CUMULATE';
const SIZE = 4000;
const SLIDE = 2000;

const windowsOf = (kind: Kind, t: number): [number, number][] => {
  if (kind === 'TUMBLE') {
    const s = windowStart(t, 0, SIZE);
    return [[s, s + SIZE]];
  }
  if (kind === 'HOP') {
    const out: [number, number][] = [];
    for (let s = windowStart(t, 0, SLIDE); s > t - SIZE; s -= SLIDE) out.push([s, s + SIZE]);
    return out;
  }
  return cumulativeWindowsOf(t, SIZE, SLIDE, 0).map((w) => [w.start, w.end]);
};

const time = (ms: number) => new Date(ms).toISOString().slice(0, 23);

/** The batch aggregation of the final rows, per key and window, as the query prints it. */
function oracle(kind: Kind, rows: readonly Live[]): string[] {
  const groups = new Map<string, number[]>();
  for (const r of rows)
    for (const [s, e] of windowsOf(kind, r.t)) {
      const key = `${r.k},${time(s)},${time(e)}`;
      groups.set(key, [...(groups.get(key) ?? []), r.v]);
    }
  return normalized(
    [...groups].map(([key, vs]) =>
      [
        key,
        vs.length,
        vs.reduce((a, b) => a + b, 0),
        Math.min(...vs),
        Math.max(...vs),
        new Set(vs).size,
      ].join(','),
    ),
  );
}

const tvf = (kind: Kind) =>
  kind === 'TUMBLE'
    ? "TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '4' SECOND)"
    : `${kind}(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '4' SECOND)`;

async function streamed(kind: Kind, changes: readonly ValuesChange[]): Promise<string[]> {
  const setup = `CREATE TABLE t (k INT, v INT, ts TIMESTAMP(3),
      WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
    ) WITH ('connector' = 'flink-values', 'changelog-mode' = 'I,UA,UB,D',
      'data-id' = '${registerValues(changes)}');`;
  const [result] = await runScenario(
    setup,
    [
      `SELECT k, window_start, window_end, COUNT(*), SUM(v), MIN(v), MAX(v), COUNT(DISTINCT v)
        FROM TABLE(${tvf(kind)}) GROUP BY k, window_start, window_end`,
    ],
    { parallelism: 2, batchSize: 1 },
  );
  expect(result?.changes.every((c) => c.startsWith('+I'))).toBe(true);
  return normalized(result?.rows ?? []);
}

describe('a window aggregation over a random changelog', () => {
  it.each(['TUMBLE', 'HOP', 'CUMULATE'] as const)(
    '%s equals the batch aggregation of the final rows',
    async (kind) => {
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 40 }), async (ops) => {
          const { changes, rows } = changelog(ops);
          expect(await streamed(kind, changes)).toEqual(oracle(kind, rows));
        }),
        { numRuns: 12 },
      );
    },
    60_000,
  );
});
