/**
 * EXCEPT ALL and the retracting Top-N through a savepoint: stopped part-way over a changing
 * input (GROUP BYs underneath) and restored, the job ends with the final rows of an
 * uninterrupted run and of a batch computation (parallelism 2).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { materialize } from '../../bench/nexmark/weir-job.js';
import { committedChanges, keyValueQueriesJob, stoppedAndRestored } from './savepoint-helpers.js';

const EVENTS = 400;
/** Records per second in the run that is stopped: far longer than a first checkpoint takes. */
const FIRST_RUN_RATE = 60;
const eventAt = (i: number): [number, number] => [i % 5, (i * 7) % 13];

const QUERIES = [
  `SELECT c FROM (SELECT k, COUNT(*) AS c FROM t GROUP BY k)
   EXCEPT ALL SELECT c FROM (SELECT v, COUNT(*) AS c FROM t GROUP BY v)`,
  `SELECT k, v, n, rn FROM (
     SELECT k, v, n, ROW_NUMBER() OVER (PARTITION BY k ORDER BY n DESC, v) AS rn
     FROM (SELECT k, v, COUNT(*) AS n FROM t GROUP BY k, v)) WHERE rn <= 2`,
];

function countsBy(rows: readonly [number, number][], key: (r: [number, number]) => string) {
  const m = new Map<string, number>();
  for (const r of rows) m.set(key(r), (m.get(key(r)) ?? 0) + 1);
  return m;
}

/** Each query's final rows computed in batch, as sorted JSON texts. */
function oracle(): string[][] {
  const rows = Array.from({ length: EVENTS }, (_, i) => eventAt(i));
  const left = [...countsBy(rows, ([k]) => String(k)).values()];
  const right = [...countsBy(rows, ([, v]) => String(v)).values()];
  const except: string[] = [];
  for (const c of new Set(left)) {
    const copies = left.filter((x) => x === c).length - right.filter((x) => x === c).length;
    for (let i = 0; i < copies; i++) except.push(JSON.stringify([c]));
  }
  const pairs = countsBy(rows, ([k, v]) => JSON.stringify([k, v]));
  const byK = new Map<number, [number, number, number][]>();
  for (const [text, n] of pairs) {
    const [k, v] = JSON.parse(text) as [number, number];
    byK.set(k, [...(byK.get(k) ?? []), [k, v, n]]);
  }
  const top: string[] = [];
  for (const group of byK.values()) {
    group.sort((a, b) => b[2] - a[2] || a[1] - b[1]);
    group.slice(0, 2).forEach((r, i) => {
      top.push(JSON.stringify([...r, i + 1]));
    });
  }
  return [except.sort(), top.sort()];
}

const job = keyValueQueriesJob(QUERIES, EVENTS, eventAt);

const committed = committedChanges;

const finalRows = async (out: string) =>
  Promise.all(
    QUERIES.map(async (_, i) =>
      materialize(await committed(join(out, `q${i}`)), (row) => JSON.stringify(row)).sort(),
    ),
  );

describe('set operations and the retracting Top-N through a savepoint', () => {
  it('restored part-way, end as an uninterrupted run and a batch computation (parallelism 2)', async () => {
    const run = await stoppedAndRestored('weir-set-rank-', job, FIRST_RUN_RATE, 'q1', finalRows);
    expect(run.before).toBeGreaterThan(0);
    expect(run.after).toBeGreaterThan(run.before);
    expect(run.restored).toEqual(oracle());
    expect(run.uninterrupted).toEqual(run.restored);
  }, 120_000);
});
