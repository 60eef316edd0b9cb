/**
 * Records Flink SQL's rows for the window operator cases (test/sql/window-operators/cases.ts)
 * by running them on the Flink peer, into the golden file the test compares Weir with.
 * Run: npm run goldens:window-operators (needs java and the built peer; about a minute).
 */
import { writeFileSync } from 'node:fs';
import { runOnFlink } from '../test/sql/match-recognize/run-cases.js';
import { windowCases } from '../test/sql/window-operators/cases.js';
import { WINDOW_GOLDEN_FILE } from '../test/sql/window-operators/golden.js';

const cases = windowCases();
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
writeFileSync(WINDOW_GOLDEN_FILE, `${lines.join('\n')}\n`);
console.log(`${lines.length} cases -> ${WINDOW_GOLDEN_FILE}`);
