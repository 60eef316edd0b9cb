/**
 * MATCH_RECOGNIZE gives the same rows as Flink SQL 2.2.1: every case of cases.ts (Flink's
 * documented examples over our ticker, refusals, and seeded generated queries) is compared
 * with the rows Flink gave on the same input, recorded in fixtures/match-recognize-flink.jsonl
 * by `npm run goldens:match-recognize`; one case also runs on the live Flink peer (skipped with
 * WEIR_SKIP_FLINK=1). Refusals are compared as refusals: where Flink rejects a query, Weir
 * rejects it too (at planning, with a position), and the other way round.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
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

/**
 * Cases where Weir's CEP engine and Flink CEP disagree (not the SQL layer: the pattern Weir
 * builds is the one Flink's planner builds). Flink's greedy quantifiers guard their way out
 * with the next variable's condition as well, so a greedy `{n,m}` or `*` ahead of another
 * variable ends differently; and Flink fails the job when SKIP TO FIRST would restart at the
 * match's own first row. `it.fails` keeps them honest: once the engine agrees, these fail.
 */
const ENGINE_DIFFERENCES = new Set(['gen-15', 'gen-17', 'gen-20', 'gen-22', 'gen-27', 'gen-29']);

const cases = matchRecognizeCases();
const golden = parseFlinkLines(readFileSync(GOLDEN_FILE, 'utf8'));

function expectSame(flink: CaseResult | undefined, weir: CaseResult): void {
  expect(flink).toBeDefined();
  if (flink !== undefined && 'error' in flink) {
    expect('error' in weir ? 'refused' : weir.rows).toBe('refused');
    if ('error' in weir) expect(weir.error).toMatch(/^line \d+, column \d+: /);
  } else expect(weir).toEqual(flink);
}

async function onWeir(c: MatchCase, parallelism: number): Promise<CaseResult> {
  try {
    return await runOnWeir(c, parallelism);
  } catch (e) {
    // A job that fails at run time counts as a refusal (Flink fails such jobs too).
    return { error: (e as Error).message };
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
    const test = ENGINE_DIFFERENCES.has(c.name) ? it.fails : it;
    test(`${c.name}`, async () => {
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
