/**
 * The Nexmark SQL texts Weir SQL covers, run verbatim (the peer's source.sql and
 * queries/*.sql; only the generator options differ), at parallelism 1 and 2:
 * - q0, q1, q2 and q11 give the same rows as Flink SQL on the same events (the Flink peer,
 *   built with Maven on first use) and as Weir's hand-written DataStream queries. Set
 *   WEIR_SKIP_FLINK=1 to leave out the comparison with Flink (it needs java and mvn).
 * - the relational texts (joins, updating aggregations, Top-N and deduplication), q13's lookup
 *   join of a CSV side input, q14's UDF and CASE, and q21/q22's string functions leave the
 *   same final rows as Flink SQL, recorded as a golden file (row count and digest of the
 *   sorted rows; `npx tsx bench/nexmark/flink-sql-golden.ts` regenerates it). An updating
 *   query's changes are applied to a multiset, as the peer does with Flink's.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FlinkPeer } from '../../bench/nexmark/flink-peer.js';
import {
  GOLDEN_CONFIG,
  GOLDEN_FILE,
  GOLDEN_QUERIES,
  type GoldenAnswer,
  multisetDigest,
} from '../../bench/nexmark/flink-sql-golden.js';
import { nexmarkQuery } from '../../bench/nexmark/queries/index.js';
import { collectOnWeir } from '../../bench/nexmark/weir-job.js';
import type { NexmarkConfig } from '../../src/connectors/nexmark/index.js';
import { multisetDiff } from '../nexmark/multiset.js';
import { collectSqlsOnWeir } from './nexmark-sql.js';

const QUERIES = ['q0', 'q1', 'q2', 'q11'];
const CONFIG: Partial<NexmarkConfig> = { maxEvents: 20_000, eventsPerSecond: 200, seed: 3 };
const PARALLELISMS = [1, 2];

/**
 * The SQL texts' rows at a parallelism: all of QUERIES as one job, run once for both
 * comparisons (with the DataStream queries and with Flink).
 */
const sqlRuns = new Map<number, Promise<Map<string, string[]>>>();
async function sqlRows(name: string, parallelism: number): Promise<string[]> {
  let run = sqlRuns.get(parallelism);
  if (run === undefined) {
    run = collectSqlsOnWeir(QUERIES, CONFIG, parallelism);
    sqlRuns.set(parallelism, run);
  }
  return (await run).get(name) ?? [];
}

function same(expected: readonly string[], actual: readonly string[]): void {
  expect(expected.length).toBeGreaterThan(0);
  expect(multisetDiff(expected, actual)).toEqual({
    expectedRows: expected.length,
    actualRows: expected.length,
    missing: [],
    unexpected: [],
  });
}

describe('Nexmark SQL texts on Weir SQL', () => {
  for (const parallelism of PARALLELISMS) {
    for (const name of QUERIES) {
      it(`${name} equals the hand-written DataStream query (parallelism ${parallelism})`, async () => {
        const sql = await sqlRows(name, parallelism);
        const hand = await collectOnWeir(nexmarkQuery(name), { config: CONFIG, parallelism });
        same(hand, sql);
      }, 120_000);
    }
  }
});

describe.skipIf(process.env.WEIR_SKIP_FLINK === '1')(
  'Nexmark SQL texts: Weir SQL equals Flink SQL',
  () => {
    const outDir = mkdtempSync(join(tmpdir(), 'weir-sql-flink-'));

    beforeAll(async () => {
      const peer = await FlinkPeer.build({ timeoutMs: 10 * 60_000 });
      await peer.runJobs(
        PARALLELISMS.map((parallelism) => ({
          query: QUERIES.join('+'),
          mode: 'collect' as const,
          parallelism,
          out: join(outDir, `p${parallelism}`),
          config: CONFIG,
        })),
        // Short jobs: the C1 compiler alone and the serial collector take less CPU.
        {
          timeoutMs: 5 * 60_000,
          jvmOptions: ['-Xmx1g', '-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'],
        },
      );
    }, 15 * 60_000);

    afterAll(() => rmSync(outDir, { recursive: true, force: true }));

    for (const parallelism of PARALLELISMS) {
      for (const name of QUERIES) {
        it(`${name} at parallelism ${parallelism}`, async () => {
          const flink = readFileSync(join(outDir, `p${parallelism}`, `${name}.jsonl`), 'utf8')
            .split('\n')
            .filter((line) => line !== '');
          same(flink, await sqlRows(name, parallelism));
        }, 120_000);
      }
    }
  },
);

describe('Nexmark SQL texts: Weir SQL equals Flink SQL (golden)', () => {
  const golden = JSON.parse(readFileSync(GOLDEN_FILE, 'utf8')) as {
    config: typeof GOLDEN_CONFIG;
    answers: Record<string, GoldenAnswer>;
  };

  it('the golden file was recorded over the events the test generates', () => {
    expect(golden.config).toEqual(GOLDEN_CONFIG);
    expect(Object.keys(golden.answers).sort()).toEqual([...GOLDEN_QUERIES].sort());
  });

  for (const parallelism of PARALLELISMS) {
    describe(`parallelism ${parallelism}`, () => {
      // All queries in one job: the events are generated once.
      let results: Map<string, string[]>;
      beforeAll(async () => {
        results = await collectSqlsOnWeir(GOLDEN_QUERIES, GOLDEN_CONFIG, parallelism);
      }, 240_000);

      for (const name of GOLDEN_QUERIES) {
        it(name, () => {
          const rows = results.get(name) as string[];
          const expected = golden.answers[name] as GoldenAnswer;
          expect(expected.rows).toBeGreaterThan(0);
          expect(multisetDigest(rows)).toEqual(expected);
        });
      }
    });
  }
});
