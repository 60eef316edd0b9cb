/**
 * Joins of GROUP BYs keyed by the join key (whose rows the join keeps by that key) through a
 * savepoint: stopped part-way and restored, the job ends with the final rows of an
 * uninterrupted run and of a batch computation (parallelism 2).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { materialize } from '../../bench/nexmark/weir-job.js';
import { ExactlyOnceFileSink } from '../../src/connectors/files/sink/exactly-once-file-sink.js';
import type { Change } from '../../src/core/changelog.js';
import { type Row, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { committedChanges, generatedKeyValues, untilCommitted } from './savepoint-helpers.js';

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

function job(out: string, checkpoints: string, rate: number | undefined): StreamEnvironment {
  const env = new StreamEnvironment({
    parallelism: 2,
    batchSize: 5,
    checkpointing: { directory: checkpoints, intervalMs: 100 },
  });
  const tEnv = TableEnvironment.create(env);
  generatedKeyValues(env, tEnv, EVENTS, eventAt, rate);
  QUERIES.forEach((q, i) => {
    tEnv
      .sqlQuery(q)
      .toChangelogStream()
      .map((c: Change<Row>) => JSON.stringify(c))
      .sinkTo(new ExactlyOnceFileSink<string>({ directory: join(out, `q${i}`), format: (l) => l }))
      .uid(`changes-${i}`);
  });
  return env;
}

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
    const dir = await mkdtemp(join(tmpdir(), 'weir-upsert-join-'));
    try {
      const out = join(dir, 'out');
      const first = job(out, join(dir, 'cp-first'), FIRST_RUN_RATE).executeAsync('first');
      await untilCommitted(join(out, 'q1'));
      const savepoint = await first.stopWithSavepoint(join(dir, 'savepoint'));
      const before = (await committedChanges(join(out, 'q1'))).length;
      await job(out, join(dir, 'cp-second'), undefined).executeAsync('second', {
        restoreFrom: savepoint,
      }).result;
      expect(before).toBeGreaterThan(0);
      expect((await committedChanges(join(out, 'q1'))).length).toBeGreaterThan(before);
      const restored = await finalRows(out);
      expect(restored).toEqual(oracle());

      const clean = join(dir, 'clean');
      await job(clean, join(dir, 'cp-clean'), undefined).execute('clean');
      expect(await finalRows(clean)).toEqual(restored);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
