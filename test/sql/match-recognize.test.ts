/**
 * MATCH_RECOGNIZE gives the same rows as Flink SQL 2.2.1: every case of cases.ts (Flink's
 * documented examples over our ticker, refusals, and seeded generated queries) is compared
 * with the rows Flink gave on the same input, recorded in fixtures/match-recognize-flink.jsonl
 * by `npm run goldens:match-recognize`; one case also runs on the live Flink peer (skipped with
 * WEIR_SKIP_FLINK=1). Refusals are compared as refusals: where Flink rejects a query, Weir
 * rejects it too (at planning, with a position), and the other way round.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { parseScript } from '../../src/sql/parser/parser.js';
import { SqlError } from '../../src/sql/sql-error.js';
import { type MatchCase, matchRecognizeCases } from './match-recognize/cases.js';
import { GOLDEN_FILE } from './match-recognize/golden.js';
import {
  type CaseResult,
  parseFlinkLines,
  runOnFlink,
  runOnWeir,
} from './match-recognize/run-cases.js';

const cases = matchRecognizeCases();
const golden = parseFlinkLines(readFileSync(GOLDEN_FILE, 'utf8'));

function expectSame(flink: CaseResult | undefined, weir: CaseResult): void {
  expect(flink).toBeDefined();
  if (flink !== undefined && 'error' in flink) {
    expect('error' in weir ? 'refused' : weir.rows).toBe('refused');
    // A refusal at planning names its place; a job that fails while running cannot.
    if ('error' in weir) expect(weir.error).toMatch(/^(line \d+, column \d+|run time): /);
  } else expect(weir).toEqual(flink);
}

async function onWeir(c: MatchCase, parallelism: number): Promise<CaseResult> {
  try {
    return await runOnWeir(c, parallelism);
  } catch (e) {
    // A job that fails at run time counts as a refusal (Flink fails such jobs too).
    return { error: `run time: ${(e as Error).message}` };
  }
}

describe('MATCH_RECOGNIZE equals Flink SQL (recorded rows)', () => {
  it('has a recorded result for every case, most of them with rows', () => {
    expect(cases.map((c) => c.name).filter((n) => !golden.has(n))).toEqual([]);
    const withRows = cases.filter((c) => {
      const g = golden.get(c.name);
      return g !== undefined && 'rows' in g && g.rows.length > 0;
    });
    expect(withRows.length).toBeGreaterThanOrEqual(15);
  });

  for (const c of cases) {
    it(`${c.name}`, async () => {
      expectSame(golden.get(c.name), await onWeir(c, 1));
    }, 60_000);
  }

  for (const c of cases.filter((x) => x.name.startsWith('doc-'))) {
    it(`${c.name} at parallelism 2`, async () => {
      expectSame(golden.get(c.name), await onWeir(c, 2));
    }, 60_000);
  }
});

describe('MATCH_RECOGNIZE refusals name their place', () => {
  const clause = (body: string) =>
    `SELECT * FROM Ticker MATCH_RECOGNIZE (PARTITION BY symbol ORDER BY rowtime MEASURES A.price AS p ${body})`;
  const refusal = (sql: string): string => {
    try {
      parseScript(sql);
    } catch (e) {
      if (e instanceof SqlError) return e.message;
      throw e;
    }
    return 'parsed';
  };

  it('refuses what Flink does not run, with line and column', () => {
    expect(refusal(clause('ALL ROWS PER MATCH PATTERN (A) DEFINE A AS A.price > 1'))).toMatch(
      /^line 1, column 98: ALL ROWS PER MATCH is not supported/,
    );
    expect(refusal(clause('PATTERN (A PERMUTE(B, C)) DEFINE A AS A.price > 1'))).toMatch(
      /PERMUTE is not supported/,
    );
    expect(refusal(clause('PATTERN (A {- B -} C) DEFINE A AS A.price > 1'))).toMatch(
      /exclusion .* is not supported/,
    );
    expect(refusal(clause('PATTERN (A B{3,2}) DEFINE A AS A.price > 1'))).toMatch(
      /column \d+: quantifier \{3,2\}: the upper bound is below the lower/,
    );
    expect(refusal(clause('PATTERN (A) SUBSET S = (A) DEFINE A AS A.price > 1'))).toMatch(
      /SUBSET is not supported/,
    );
    expect(refusal(clause('PATTERN (A B DEFINE A AS A.price > 1'))).toMatch(
      /^line 1, column \d+: expected '\)' but found 'DEFINE'/,
    );
  });

  it('parses any PATTERN text into a tree or a SqlError with a position', () => {
    const token = fc.constantFrom(
      'A',
      'B',
      'C',
      '(',
      ')',
      '*',
      '+',
      '?',
      '|',
      '{',
      '}',
      ',',
      '2',
      '-',
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 12 }), (tokens) => {
        const text = refusal(clause(`PATTERN (${tokens.join(' ')}) DEFINE A AS A.price > 1`));
        expect(text === 'parsed' || /^line 1, column \d+: /.test(text)).toBe(true);
      }),
      { numRuns: 300, seed: 15 },
    );
  });

  it('refuses at planning what the pattern or expressions cannot mean', async () => {
    const base = cases.find((c) => c.name === 'doc-v-shape') as MatchCase;
    const plan = async (body: string): Promise<string> => {
      const r = await onWeir({ ...base, name: 'refusal', sql: clause(body) }, 1);
      return 'error' in r ? r.error : 'planned';
    };
    expect(await plan('PATTERN (A B A) DEFINE A AS A.price > 1')).toMatch(/appears twice/);
    expect(await plan('PATTERN (A* B?) DEFINE A AS A.price > 1')).toMatch(/can match no rows/);
    expect(await plan('PATTERN (A B) DEFINE C AS C.price > 1')).toMatch(
      /DEFINE C: no such variable in PATTERN \(A B\)/,
    );
    expect(await plan('PATTERN (A B) DEFINE A AS A.price + 1')).toMatch(
      /DEFINE A must be a BOOLEAN condition, got BIGINT/,
    );
    expect(
      await plan('PATTERN (A B) DEFINE B AS B.price > A.price + B.tax * AVG(A.price + B.tax)'),
    ).toMatch(/AVG must refer to one pattern variable, got A and B/);
    expect(await plan('PATTERN (A B) DEFINE B AS MATCH_ROWTIME() > A.rowtime')).toMatch(
      /MATCH_ROWTIME\(\) is only allowed in MEASURES/,
    );
    expect(await plan('AFTER MATCH SKIP TO FIRST C PATTERN (A B) DEFINE B AS B.price > 1')).toMatch(
      /AFTER MATCH SKIP: C is not a variable of the pattern/,
    );
    expect(await plan("PATTERN (A B) WITHIN INTERVAL '0' SECOND DEFINE B AS B.price > 1")).toMatch(
      /WITHIN must be a positive interval/,
    );
  });
});

describe('MATCH_RECOGNIZE in event time', () => {
  const table = (rows: (string | number)[][]): MatchCase['table'] => ({
    name: 'T',
    columns: [
      ['k', 'STRING'],
      ['v', 'INT'],
      ['ts', 'TIMESTAMP(3)'],
    ],
    watermark: 'ts',
    rows,
  });
  const sql = `SELECT * FROM T MATCH_RECOGNIZE (PARTITION BY k ORDER BY ts
    MEASURES A.v AS a, B.v AS b, MATCH_ROWTIME() AS t
    AFTER MATCH SKIP PAST LAST ROW PATTERN (A B) DEFINE B AS B.v > A.v)`;

  it('matches in rowtime order and drops rows behind the watermark, as Flink', async () => {
    // Arrival: 1@1s 7@4s 5@3s 9@6s 2@5s 3@8s, the watermark following each row. 5@3s comes
    // after the watermark reached 4s and 2@5s after it reached 6s: both are late and dropped.
    // Kept, they would give (1,5) and (2,9); dropped, the rows 1 7 9 3 give (1,7) only.
    const rows = [
      ['x', 1, 1000],
      ['x', 7, 4000],
      ['x', 5, 3000],
      ['x', 9, 6000],
      ['x', 2, 5000],
      ['x', 3, 8000],
    ];
    const inOrder = [
      ['x', 1, 1000],
      ['x', 5, 3000],
      ['x', 7, 4000],
      ['x', 2, 5000],
      ['x', 9, 6000],
      ['x', 3, 8000],
    ];
    const watermarkAt = (r: (string | number)[]) => r[2] as number;
    const late = new Set([2, 4].map((i) => watermarkAt(rows[i] as (string | number)[])));
    const oracle = inOrder.filter((r) => !late.has(watermarkAt(r)));
    const expected = await runOnWeir({ name: 'oracle', table: table(oracle), sql }, 1);
    expect(expected).toEqual({ rows: ['["x",1,7,4000]'] });
    const actual = await runOnWeir({ name: 'late', table: table(rows), sql }, 1, {
      eagerWatermarks: true,
    });
    expect(actual).toEqual(expected);
  }, 60_000);

  it('plans through the TableEnvironment, with MATCH_ROWTIME() as the time attribute', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment({ parallelism: 2 }));
    tEnv.executeSql(`CREATE TABLE T (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
      WITH ('connector' = 'datagen')`);
    const plan = tEnv.explainSql(sql);
    expect(plan).toMatch(/\(k STRING, a INT, b INT, t TIMESTAMP\(3\) NOT NULL \*ROWTIME\*\)/);
    expect(plan).toMatch(/MATCH_RECOGNIZE/);
    expect(tEnv.sqlQuery(sql).columns.map((c) => c.name)).toEqual(['k', 'a', 'b', 't']);
  });
});

describe.skipIf(process.env.WEIR_SKIP_FLINK === '1')(
  'MATCH_RECOGNIZE on the live Flink peer',
  () => {
    it(
      'gives the recorded rows again, and Weir gives them too',
      async () => {
        // One case: the JVM and MiniCluster start dominate the time, and CI time is scarce.
        const sample = cases.filter((c) => c.name === 'doc-v-shape');
        const live = await runOnFlink(sample, 10 * 60_000);
        for (const c of sample) {
          expect(live.get(c.name)).toEqual(golden.get(c.name));
          expectSame(live.get(c.name), await onWeir(c, 1));
        }
      },
      12 * 60_000,
    );
  },
);
