/**
 * ORDER BY and LIMIT in streaming Weir SQL: a temporal sort (ORDER BY the rowtime, ties by
 * further keys) of shuffled rows equals the batch sort, a Top-N (ORDER BY ... LIMIT n) leaves
 * the batch's first n rows once its changes are applied, LIMIT alone gives n of the input's
 * rows; what Flink refuses is refused.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { materialize } from '../../bench/nexmark/weir-job.js';
import type { Change } from '../../src/core/changelog.js';
import { CollectSink, StreamEnvironment, TableEnvironment } from '../../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'weir-sql-sort-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

interface Reading {
  id: number;
  sensor: number;
  value: number;
  ts: number;
}

/** Readings with distinct ids, shuffled; timestamps repeat so ties are sorted by the further key. */
const readingsArb = fc
  .uniqueArray(
    fc.record({
      id: fc.integer({ min: 0, max: 100_000 }),
      sensor: fc.integer({ min: 0, max: 4 }),
      value: fc.integer({ min: -50, max: 50 }),
      ts: fc.integer({ min: 0, max: 30 }).map((s) => 1_767_225_600_000 + s * 1000),
    }),
    { selector: (r) => r.id, minLength: 1, maxLength: 60 },
  )
  .chain((rows) => fc.shuffledSubarray(rows, { minLength: rows.length }));

function table(rows: readonly Reading[]): string {
  const path = join(dir, `r${files++}.csv`);
  const stamp = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
  writeFileSync(path, rows.map((r) => `${r.id},${r.sensor},${r.value},${stamp(r.ts)}\n`).join(''));
  // The watermark trails by more than the input's whole span: no row is late.
  return `CREATE TABLE readings (
      id INT, sensor INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' HOUR
    ) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'csv');`;
}

async function rows(ddl: string, select: string, parallelism: number): Promise<string[]> {
  const env = new StreamEnvironment({ parallelism });
  const tEnv = TableEnvironment.create(env);
  tEnv.executeSql(ddl);
  const t = tEnv.sqlQuery(select);
  const sink = new CollectSink<Change<unknown[]>>();
  t.toChangelogStream().sinkTo(sink);
  await env.execute('sort limit');
  return materialize(sink.values, (row) => JSON.stringify(row));
}

describe('ORDER BY and LIMIT', () => {
  for (const parallelism of [1, 2]) {
    it(`ORDER BY the rowtime, then id DESC, equals the batch sort (parallelism ${parallelism})`, async () => {
      await fc.assert(
        fc.asyncProperty(readingsArb, async (input) => {
          const env = new StreamEnvironment({ parallelism });
          const tEnv = TableEnvironment.create(env);
          tEnv.executeSql(table(input));
          const sink = new CollectSink<unknown[]>();
          tEnv
            .sqlQuery('SELECT id, ts FROM readings WHERE v > -40 ORDER BY ts, id DESC')
            .toDataStream()
            .sinkTo(sink);
          await env.execute('temporal sort');
          const expected = input
            .filter((r) => r.value > -40)
            .sort((a, b) => a.ts - b.ts || b.id - a.id)
            .map((r) => [r.id, r.ts]);
          expect(sink.values).toEqual(expected);
        }),
        { numRuns: 10 },
      );
    }, 120_000);

    it(`ORDER BY ... LIMIT 3 leaves the batch's first three rows (parallelism ${parallelism})`, async () => {
      await fc.assert(
        fc.asyncProperty(readingsArb, async (input) => {
          const actual = await rows(
            table(input),
            'SELECT id, v FROM readings ORDER BY v DESC, id LIMIT 3',
            parallelism,
          );
          const expected = [...input]
            .sort((a, b) => b.value - a.value || a.id - b.id)
            .slice(0, 3)
            .map((r) => JSON.stringify([r.id, r.value]));
          expect(actual.sort()).toEqual(expected.sort());
        }),
        { numRuns: 10 },
      );
    }, 120_000);
  }

  it('LIMIT alone gives that many of the input rows', async () => {
    const input = Array.from({ length: 40 }, (_, i) => ({
      id: i,
      sensor: i % 3,
      value: i,
      ts: 1_767_225_600_000 + i,
    }));
    const actual = await rows(table(input), 'SELECT id FROM readings LIMIT 7', 2);
    expect(actual).toHaveLength(7);
    expect(new Set(actual).size).toBe(7);
    for (const row of actual) expect(JSON.parse(row)[0]).toBeLessThan(40);
  });

  it('refuses the sorts Flink refuses in streaming, naming the position', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    tEnv.executeSql(table([]));
    expect(() => tEnv.sqlQuery('SELECT * FROM readings ORDER BY v')).toThrow(
      'line 1, column 33: Sort on a non-time-attribute field is not supported in streaming',
    );
    expect(() => tEnv.sqlQuery('SELECT * FROM readings ORDER BY ts DESC')).toThrow(
      'line 1, column 33: Sort on a time attribute descending is not supported in streaming',
    );
    expect(() => tEnv.sqlQuery('SELECT * FROM readings LIMIT 1 + 1')).toThrow(
      'LIMIT must be a whole number literal >= 0',
    );
    expect(() =>
      tEnv.sqlQuery('SELECT sensor, COUNT(*) FROM readings GROUP BY sensor ORDER BY sensor'),
    ).toThrow('ORDER BY needs an insert-only input');
  });
});
