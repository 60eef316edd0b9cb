/**
 * Records Flink SQL's rows for every MATCH_RECOGNIZE case (test/sql/match-recognize/cases.ts)
 * by running them on the Flink peer, into the golden file the test compares Weir with.
 * Run: npm run goldens:match-recognize (needs java and mvn; a few minutes).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { matchRecognizeCases } from '../test/sql/match-recognize/cases.js';
import { GOLDEN_FILE } from '../test/sql/match-recognize/golden.js';
import { runOnFlink } from '../test/sql/match-recognize/run-cases.js';

const cases = matchRecognizeCases();
const results = await runOnFlink(cases, 20 * 60_000);
const lines = cases.map((c) => {
  const r = results.get(c.name);
  if (r === undefined) throw new Error(`no result for ${c.name}`);
  return JSON.stringify(
    'error' in r
      ? { name: c.name, error: r.error }
      : { name: c.name, rows: r.rows.map((row) => JSON.parse(row) as unknown) },
  );
});
writeFileSync(GOLDEN_FILE, `${lines.join('\n')}\n`);
console.log(`${lines.length} cases -> ${join(GOLDEN_FILE)}`);
