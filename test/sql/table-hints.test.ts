/**
 * Table hints: `t /*+ OPTIONS('k' = 'v') *\/` after a table's name changes its options for that
 * read or write only (Flink's dynamic table options), checked against the connector; a view,
 * a WITH query or another hint name there is refused, and hints elsewhere (query hints after
 * SELECT) stay comments.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { runScenario } from './flink-scenario-runner.js';

const GEN = `CREATE TABLE gen (x INT) WITH (
  'connector' = 'datagen', 'number-of-rows' = '10', 'fields.x.kind' = 'sequence',
  'fields.x.start' = '1', 'fields.x.end' = '1000');`;

describe('table hints', () => {
  it('OPTIONS change one read of a table; the unhinted read and another hint keep theirs', async () => {
    const [hinted, plain, other] = await runScenario(GEN, [
      "SELECT COUNT(*), MAX(x) FROM gen /*+ OPTIONS('number-of-rows' = '3') */",
      'SELECT COUNT(*), MAX(x) FROM gen',
      "SELECT COUNT(*) FROM gen /*+ OPTIONS('number-of-rows'='5', 'fields.x.start'='100') */ AS g WHERE g.x >= 100",
    ]);
    expect(hinted!.rows).toEqual(['3,3']);
    expect(plain!.rows).toEqual(['10,10']);
    expect(other!.rows).toEqual(['5']);
  });

  it('INSERT INTO t /*+ OPTIONS(...) */ writes with the hinted options', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-hints-'));
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    const result = tEnv.executeSql(`${GEN}
      CREATE TABLE out (x INT) WITH ('connector' = 'filesystem', 'path' = '${join(dir, 'declared')}', 'format' = 'csv');
      INSERT INTO out /*+ OPTIONS('path' = '${join(dir, 'hinted')}') */ SELECT x FROM gen /*+ OPTIONS('number-of-rows' = '4') */;`);
    await result.job?.result;
    expect(readdirSync(dir)).toEqual(['hinted']);
    const text = readdirSync(join(dir, 'hinted'))
      .map((f) => readFileSync(join(dir, 'hinted', f), 'utf8'))
      .join('');
    expect(text.trim().split('\n').sort()).toEqual(['1', '2', '3', '4']);
  });

  it('refuses a hint on a view or WITH query, an unknown hint, and options the connector does not take', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    tEnv.executeSql(`${GEN} CREATE VIEW v AS SELECT x FROM gen;`);
    expect(() => tEnv.sqlQuery("SELECT * FROM v /*+ OPTIONS('number-of-rows' = '1') */")).toThrow(
      "view 'v' cannot be enriched with new options: OPTIONS hints apply to tables only",
    );
    expect(() =>
      tEnv.sqlQuery("WITH w AS (SELECT x FROM gen) SELECT * FROM w /*+ OPTIONS('a' = 'b') */"),
    ).toThrow("'w' is a WITH query: OPTIONS hints apply to tables only");
    expect(() => tEnv.sqlQuery('SELECT *\nFROM gen /*+  BROADCAST(gen) */')).toThrow(
      "line 2, column 15: in the table hint: unknown table hint 'BROADCAST'",
    );
    expect(() => tEnv.sqlQuery("SELECT * FROM gen /*+ OPTIONS('number-of-rows' 3) */")).toThrow(
      /^line 1, column \d+: in the table hint: expected '='/,
    );
    expect(() => tEnv.sqlQuery("SELECT * FROM gen /*+ OPTIONS('no.such.option' = '1') */")).toThrow(
      /no\.such\.option/,
    );
  });

  it('a query hint after SELECT stays a comment', async () => {
    const [rows] = await runScenario(GEN, ['SELECT /*+ BROADCAST(gen) */ COUNT(*) FROM gen']);
    expect(rows!.rows).toEqual(['10']);
  });
});
