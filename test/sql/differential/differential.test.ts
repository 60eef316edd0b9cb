/**
 * The SQL differential suite: every query of suite.ts (hand-written families and random
 * expressions over generated tables) gives on Weir the answer Flink SQL 2.2.1 gave on the same
 * input, recorded in fixtures/sql-differential-flink.jsonl by `npm run goldens:sql-differential`.
 * Answers are the final rows after applying each changelog, compared as multisets (DOUBLE to 12
 * significant digits, everything else exactly); where Flink refuses a query, Weir must refuse
 * it too. Known differences are listed, with their reasons, in expected-differences.ts. A
 * sample also runs on the live Flink peer (skipped with WEIR_SKIP_FLINK=1).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SqlError, StreamEnvironment, TableEnvironment } from '../../../src/index.js';
import { DeterministicRandom } from '../../../src/util/random.js';
import { EXPECTED_DIFFERENCES } from './expected-differences.js';
import { type FlinkLine, flinkAnswer, runOnFlink, runOnWeir } from './run-engines.js';
import {
  type Answer,
  caseHash,
  GOLDEN_FILE,
  normalRows,
  RANDOM_AGGREGATIONS,
  RANDOM_OPERATOR_QUERIES,
  RANDOM_QUERIES,
  type SuiteCase,
  suiteCases,
  suiteTables,
} from './suite.js';
import type { SuiteTable } from './tables.js';

const tables = suiteTables();
const cases = suiteCases();
const lines = readFileSync(GOLDEN_FILE, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as FlinkLine);
const golden = new Map(lines.map((l) => [l.name, l]));

/** The answer as the comparison sees it: rows, or only that the query was refused. */
function comparable(a: Answer | undefined): unknown {
  if (a === undefined) return 'no answer';
  return 'error' in a ? 'refused' : a.rows;
}

async function weirAnswer(c: SuiteCase, parallelism: number): Promise<Answer> {
  const a = await runOnWeir(c, tables, parallelism);
  // A refusal at planning names its place; only a job failing while it runs may not.
  if ('error' in a) expect(a.error).toMatch(/^(line \d+, column \d+|run time): /);
  return a;
}

function expectAnswer(c: SuiteCase, flink: Answer, weir: Answer): void {
  const reason = EXPECTED_DIFFERENCES.get(c.name);
  if (reason === undefined) expect(comparable(weir), c.sql).toEqual(comparable(flink));
  else
    expect(comparable(weir), `known difference no longer seen: ${reason}`).not.toEqual(
      comparable(flink),
    );
}

describe('SQL differential suite against Flink SQL (recorded answers)', () => {
  it('has at least 300 queries, a third of them random, and an answer for each', () => {
    expect(cases.length).toBeGreaterThanOrEqual(300);
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
    const random = RANDOM_QUERIES + RANDOM_AGGREGATIONS + RANDOM_OPERATOR_QUERIES;
    expect(random * 3).toBeGreaterThanOrEqual(cases.length);
    expect(cases.map((c) => c.name).filter((n) => !golden.has(n))).toEqual([]);
    expect(lines.map((l) => l.name).filter((n) => !cases.some((c) => c.name === n))).toEqual([]);
    for (const name of EXPECTED_DIFFERENCES.keys()) expect(golden.has(name), name).toBe(true);
  });

  it('was recorded for these queries over these tables', () => {
    const stale = cases.filter((c) => golden.get(c.name)?.hash !== caseHash(c, tables));
    expect(
      stale.map((c) => c.name),
      'run npm run goldens:sql-differential',
    ).toEqual([]);
  });

  it('covers rows, updates and refusals', () => {
    const answers = lines.map(flinkAnswer);
    const withRows = answers.filter((a) => 'rows' in a && a.rows.length > 0);
    expect(withRows.length).toBeGreaterThanOrEqual(300);
    expect(answers.filter((a) => 'updating' in a && a.updating).length).toBeGreaterThanOrEqual(25);
    // Casts Flink does not have and a CAST that fails at run time: Weir must refuse them too.
    expect(answers.filter((a) => 'error' in a).length).toBeGreaterThanOrEqual(15);
  });

  for (const c of cases) {
    it(c.name, async () => {
      const line = golden.get(c.name);
      if (line === undefined) throw new Error(`no recorded answer for ${c.name}`);
      expectAnswer(c, flinkAnswer(line), await weirAnswer(c, 1));
    }, 60_000);
  }

  it('TUMBLE with an offset, where Flink emits fewer windows, equals a batch computation', async () => {
    const c = cases.find((x) => x.name === 'window-tumble-offset-all') as SuiteCase;
    expect(c.sql).toContain("INTERVAL '10' SECOND, INTERVAL '3' SECOND");
    const t = tables[0] as SuiteTable;
    const col = (name: string) => t.columns.findIndex(([n]) => n === name);
    const windows = new Map<number, { count: number; max: number | null }>();
    for (const row of t.rows) {
      const ts = row[col('ts')] as number;
      const i = row[col('i')] as number | null;
      const start = ts - ((((ts - 3000) % 10_000) + 10_000) % 10_000);
      const w = windows.get(start) ?? { count: 0, max: null };
      windows.set(start, {
        count: w.count + 1,
        max: i === null ? w.max : w.max === null ? i : Math.max(w.max, i),
      });
    }
    const expected = normalRows([...windows].map(([s, w]) => [s, s + 10_000, w.count, w.max]));
    expect(windows.size).toBe(6);
    expect(comparable(await weirAnswer(c, 1))).toEqual(expected);
  });

  // Every eighth query again over two subtasks: the answers do not depend on parallelism
  // (except where a seeded RAND numbers the rows in the order one subtask sees them).
  const orderDependent = new Set(['math-rand-seeded']);
  // FIRST_VALUE, LAST_VALUE, LISTAGG and ARRAY_AGG follow arrival order, which two subtasks change.
  const isOrderDependent = (name: string) =>
    orderDependent.has(name) || name.startsWith('agg-fn-ordered-');
  for (const c of cases.filter((x, i) => i % 8 === 0 && !isOrderDependent(x.name))) {
    it(`${c.name} at parallelism 2`, async () => {
      const line = golden.get(c.name);
      if (line === undefined) throw new Error(`no recorded answer for ${c.name}`);
      expectAnswer(c, flinkAnswer(line), await weirAnswer(c, 2));
    }, 60_000);
  }
});

/** Token-level damage to a query: a token removed, repeated, or swapped with its neighbour. */
function mutate(sql: string, rnd: DeterministicRandom): string {
  const tokens = sql.match(/'[^']*'|\w+|\S/g) ?? [];
  for (let n = rnd.between(1, 3); n > 0; n--) {
    const i = rnd.int(tokens.length);
    const op = rnd.int(4);
    if (op === 0) tokens.splice(i, 1);
    else if (op === 1) tokens.splice(i, 0, tokens[i] ?? ')');
    else if (op === 2) [tokens[i], tokens[i + 1]] = [tokens[i + 1] ?? '', tokens[i] ?? ''];
    else tokens[i] = rnd.pick(['NULL', 'i', 's', 'ts', "'x'", '1.5', 'CAST', ',', '(', 'AND']);
  }
  return tokens.join(' ');
}

describe('the planner and type checker on damaged queries', () => {
  it('plan every mutated suite query or refuse it with a line and column', () => {
    const rnd = new DeterministicRandom(14);
    const env = new StreamEnvironment({ parallelism: 1 });
    const tEnv = TableEnvironment.create(env);
    tEnv.executeSql(
      tables
        .map(
          (t) =>
            `CREATE TABLE ${t.name} (${t.columns.map(([n, ty]) => `${n} ${ty}`).join(', ')}, WATERMARK FOR ${t.watermark.split(' ')[0]} AS ${t.watermark}) WITH ('connector' = 'datagen');`,
        )
        .join('\n'),
    );
    let refused = 0;
    for (let n = 0; n < 1500; n++) {
      const sql = mutate((cases[rnd.int(cases.length)] as SuiteCase).sql, rnd);
      try {
        tEnv.sqlQuery(sql);
      } catch (e) {
        expect(e, sql).toBeInstanceOf(SqlError);
        expect((e as Error).message, sql).toMatch(/^line \d+, column \d+: /);
        refused++;
      }
    }
    expect(refused).toBeGreaterThan(300);
  });
});

describe.skipIf(process.env.WEIR_SKIP_FLINK === '1')(
  'SQL differential suite on the live Flink peer',
  () => {
    it(
      'gives the recorded answers again, and Weir gives them too',
      async () => {
        // A few queries of different families: the JVM and MiniCluster start dominate the time.
        const names = [
          'arith-decimal',
          'window-hop-by-key-1',
          'join-full-non-equi',
          'top-2-by-i-desc',
          'random-0',
        ];
        const sample = cases.filter((c) => names.includes(c.name));
        expect(sample.length).toBe(names.length);
        const live = await runOnFlink(sample, tables, 10 * 60_000);
        for (const c of sample) {
          const line = golden.get(c.name);
          expect(comparable(live.get(c.name))).toEqual(comparable(line && flinkAnswer(line)));
          expectAnswer(c, live.get(c.name) as Answer, await weirAnswer(c, 1));
        }
      },
      12 * 60_000,
    );
  },
);
