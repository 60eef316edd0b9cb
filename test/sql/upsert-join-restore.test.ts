/**
 * Joins of GROUP BYs keyed by the join key (whose rows the join keeps by that key) through a
 * savepoint: stopped part-way and restored, the job ends with the final rows of an
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
  `SELECT a.k, a.n, b.s FROM (SELECT k, COUNT(*) AS n FROM t GROUP BY k) a
   LEFT JOIN (SELECT v, SUM(k) AS s FROM t WHERE v < 3 GROUP BY v) b ON a.k = b.v`,
  `SELECT a.k, a.n, b.v, b.c FROM (SELECT k, COUNT(*) AS n FROM t GROUP BY k) a
   FULL JOIN (SELECT v, COUNT(*) AS c FROM t GROUP BY v) b ON a.k = b.v`,
];

/** Each query's final rows computed in batch, as sorted JSON texts. */
function oracle(): string[][] {
  const rows = Array.from({ length: EVENTS }, (_, i) => eventAt(i));
  const n = new Map<number, number>();
  const s = new Map<number, number>();
  const c = new Map<number, number>();
  for (const [k, v] of rows) {
    n.set(k, (n.get(k) ?? 0) + 1);
    c.set(v, (c.get(v) ?? 0) + 1);
    if (v < 3) s.set(v, (s.get(v) ?? 0) + k);
  }
  const left = [...n].map(([k, count]) => JSON.stringify([k, count, s.get(k) ?? null]));
  const full = [...new Set([...n.keys(), ...c.keys()])].map((x) =>
    JSON.stringify([n.has(x) ? x : null, n.get(x) ?? null, c.has(x) ? x : null, c.get(x) ?? null]),
  );
  return [left.sort(), full.sort()];
}

const job = keyValueQueriesJob(QUERIES, EVENTS, eventAt);

const plain = (row: unknown[]) =>
  JSON.stringify(row.map((v) => (typeof v === 'bigint' ? Number(v) : v)));

const finalRows = async (out: string) =>
  Promise.all(
    QUERIES.map(async (_, i) =>
      materialize(await committedChanges(join(out, `q${i}`)), plain).sort(),
    ),
  );

describe('joins keeping their inputs by an upsert key through a savepoint', () => {
  it('restored part-way, end as an uninterrupted run and a batch computation (parallelism 2)', async () => {
    const run = await stoppedAndRestored('weir-upsert-join-', job, FIRST_RUN_RATE, 'q1', finalRows);
    expect(run.before).toBeGreaterThan(0);
    expect(run.after).toBeGreaterThan(run.before);
    expect(run.restored).toEqual(oracle());
    expect(run.uninterrupted).toEqual(run.restored);
  }, 120_000);
});
