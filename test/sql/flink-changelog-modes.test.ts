/**
 * Weir's inferred changelog modes against Flink's: for each statement of
 * fixtures/flink-changelog-modes/explained.txt (Flink 2.2.1's EXPLAIN CHANGELOG_MODE, recorded
 * with the program beside it), the modes of the GROUP BY, Top-N / deduplication and join
 * operators, in plan order, equal Weir's (joins of GROUP BYs, inner and outer, with inputs keyed
 * by the join key or not, among them), except where Flink's updatable Top-N needs no
 * update-befores.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { StreamEnvironment, TableEnvironment } from '../../src/index.js';

const FIXTURE = new URL('./fixtures/flink-changelog-modes/explained.txt', import.meta.url);

/** Each statement with its operators' modes, inputs first (Flink prints the sink first). */
function flinkModes(): { statement: string; modes: string[] }[] {
  const out: { statement: string; modes: string[] }[] = [];
  for (const line of readFileSync(FIXTURE, 'utf8').split('\n')) {
    if (line.startsWith('=== ')) out.push({ statement: line.slice(4), modes: [] });
    const m = /(GroupAggregate|Rank|Join)\(.*changelogMode=(\[[^\]]*\])/.exec(line);
    if (m !== null) out[out.length - 1]?.modes.unshift(`${m[1]} ${m[2]}`);
  }
  return out;
}

const FLINK_NAMES: Readonly<Record<string, string>> = {
  'updating-aggregate': 'GroupAggregate',
  'top-n': 'Rank',
  deduplicate: 'Rank',
  'regular-join': 'Join',
};

function weirModes(plan: string): string[] {
  const modes: string[] = [];
  for (const line of plan.slice(plan.indexOf('Physical plan')).split('\n')) {
    const m = /: (\S+) \(from #\d+\).* changelogMode=(\[[^\]]*\])/.exec(line);
    // The Top-N over a changing input is a keyed process function (Flink's Rank too).
    const kind = m?.[1] === 'keyed-process' && line.includes('] top-n-retract-') ? 'top-n' : m?.[1];
    const name = m === null ? undefined : FLINK_NAMES[kind as string];
    if (name !== undefined) modes.push(`${name} ${m?.[2]}`);
  }
  return modes;
}

/** The tables of ExplainModes.java: blackhole sinks (with and without a PRIMARY KEY), print. */
const TABLES = `
  CREATE TABLE sales (id INT, owner STRING, amount INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
    WITH ('connector' = 'datagen');
  CREATE TABLE totals (owner STRING, n BIGINT, total INT, PRIMARY KEY (owner) NOT ENFORCED)
    WITH ('connector' = 'blackhole');
  CREATE TABLE by_total (total INT, owners BIGINT, PRIMARY KEY (total) NOT ENFORCED)
    WITH ('connector' = 'blackhole');
  CREATE TABLE top2 (owner STRING, rn BIGINT, id INT, amount INT, PRIMARY KEY (owner, rn) NOT ENFORCED)
    WITH ('connector' = 'blackhole');
  CREATE TABLE latest (owner STRING, id INT, amount INT, PRIMARY KEY (owner) NOT ENFORCED)
    WITH ('connector' = 'blackhole');
  CREATE TABLE pr (owner STRING, n BIGINT, total INT) WITH ('connector' = 'print');
  CREATE TABLE bh (owner STRING, n BIGINT, total INT) WITH ('connector' = 'blackhole');`;

describe("changelog modes against Flink's EXPLAIN CHANGELOG_MODE", () => {
  it('gives each GROUP BY, Top-N, deduplication and join the mode Flink gives it', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment({ parallelism: 1 }));
    tEnv.executeSql(TABLES);
    const cases = flinkModes();
    expect(cases.length).toBe(15);
    for (const { statement, modes } of cases) {
      const weir = weirModes(tEnv.explainSql(statement));
      if (statement.includes('GROUP BY owner, id)) WHERE rn')) {
        // A Top-N over a GROUP BY whose count only grows: Flink picks its updatable Top-N
        // (UpdateFastStrategy), which needs no update-befores; Weir's retracting Top-N does,
        // and emits them whatever its consumer needs.
        expect(modes[0], statement).toBe('GroupAggregate [I,UA]');
        expect(modes[1], statement).toMatch(/^Rank \[I,(UB,)?UA,D\]$/);
        expect(weir, statement).toEqual(['GroupAggregate [I,UB,UA]', 'Rank [I,UB,UA,D]']);
      } else expect(weir, statement).toEqual(modes);
    }
  });
});
