/**
 * Records Flink SQL's answers for the queries of the SQL differential suite
 * (test/sql/differential/) by running them on the Flink peer, into the golden file the test
 * compares Weir with. Run: npm run goldens:sql-differential (needs java and mvn). Answers whose
 * query and input are unchanged (same hash) are kept; `-- --all` runs every query again (tens of
 * minutes on a busy 2-core machine: each query is one Flink job).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { type FlinkLine, runOnFlink } from '../test/sql/differential/run-engines.js';
import { caseHash, GOLDEN_FILE, suiteCases, suiteTables } from '../test/sql/differential/suite.js';

const tables = suiteTables();
const cases = suiteCases();
const kept = new Map<string, FlinkLine>();
if (!process.argv.includes('--all') && existsSync(GOLDEN_FILE)) {
  for (const text of readFileSync(GOLDEN_FILE, 'utf8').split('\n')) {
    if (text.trim() === '') continue;
    const line = JSON.parse(text) as FlinkLine;
    kept.set(line.name, line);
  }
}
const fresh = (c: (typeof cases)[number]) => kept.get(c.name)?.hash === caseHash(c, tables);
const toRun = cases.filter((c) => !fresh(c));
console.log(`${cases.length - toRun.length} answers kept, ${toRun.length} queries to run on Flink`);
const answers = toRun.length === 0 ? new Map() : await runOnFlink(toRun, tables, 3 * 60 * 60_000);
const lines = cases.map((c) => {
  if (fresh(c)) return JSON.stringify(kept.get(c.name));
  const a = answers.get(c.name);
  if (a === undefined) throw new Error(`no answer for ${c.name}`);
  const hash = caseHash(c, tables);
  return JSON.stringify(
    'error' in a
      ? { name: c.name, hash, error: a.error }
      : {
          name: c.name,
          hash,
          updating: a.updating,
          rows: a.rows.map((r: string) => JSON.parse(r) as unknown),
        },
  );
});
writeFileSync(GOLDEN_FILE, `${lines.join('\n')}\n`);
console.log(`${lines.length} queries -> ${GOLDEN_FILE}`);
