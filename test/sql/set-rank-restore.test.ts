/**
 * EXCEPT ALL and the retracting Top-N through a savepoint: stopped part-way over a changing
 * input (GROUP BYs underneath) and restored, the job ends with the final rows of an
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

const committed = committedChanges;

const finalRows = async (out: string) =>
  Promise.all(
    QUERIES.map(async (_, i) =>
      materialize(await committed(join(out, `q${i}`)), (row) => JSON.stringify(row)).sort(),
    ),
  );

describe('set operations and the retracting Top-N through a savepoint', () => {
  it('restored part-way, end as an uninterrupted run and a batch computation (parallelism 2)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weir-set-rank-'));
    try {
      const out = join(dir, 'out');
      const first = job(out, join(dir, 'cp-first'), FIRST_RUN_RATE).executeAsync('first');
      await untilCommitted(join(out, 'q1'));
      const savepoint = await first.stopWithSavepoint(join(dir, 'savepoint'));
      const before = (await committed(join(out, 'q1'))).length;
      await job(out, join(dir, 'cp-second'), undefined).executeAsync('second', {
        restoreFrom: savepoint,
      }).result;
      expect(before).toBeGreaterThan(0);
      expect((await committed(join(out, 'q1'))).length).toBeGreaterThan(before);
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
