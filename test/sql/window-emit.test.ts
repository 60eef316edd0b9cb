/**
 * Flink's window emit strategies (`table.exec.emit.*`) on legacy group windows (GroupWindowITCase's
 * cases are in flink-group-window-scenarios): with late fires and an allowed lateness covering
 * the input's disorder, late rows update their windows and the changes, applied to a table,
 * give the batch aggregation over every row, whatever the order (fast-check); early fires update
 * a window before it closes; past its lateness a late row is dropped. Window TVF aggregations
 * refuse early and late fires and ignore the allowed lateness, as Flink 2.2 does (checked
 * against Flink itself).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runScenario, type ScenarioOptions } from './flink-scenario-runner.js';

interface Reading {
  readonly k: number;
  readonly ts: number;
  readonly v: number;
}

/** A table `r` of readings, its watermark `lagMs` behind the latest rowtime. */
function readings(rows: readonly Reading[], lagMs: number): ScenarioOptions['tables'] {
  return (env, tEnv) =>
    tEnv.fromDataStream('r', env.fromArray(rows.map((r) => [r.k, r.v, r.ts])), {
      columns: [
        { name: 'k', type: 'INT' },
        { name: 'v', type: 'BIGINT' },
        { name: 'rowtime', type: 'TIMESTAMP(3)' },
      ],
      watermark: { column: 'rowtime', expression: `rowtime - INTERVAL '${lagMs / 1000}' SECOND` },
    });
}

/** A window bound as Flink prints a TIMESTAMP (LocalDateTime: no zero seconds). */
const iso = (ms: number) => new Date(ms).toISOString().replace(/(:00)?\.000Z$/, '');

type Window = 'TUMBLE' | 'HOP';

const GROUP_WINDOW: Record<Window, string> = {
  TUMBLE: "TUMBLE(rowtime, INTERVAL '2' SECOND)",
  HOP: "HOP(rowtime, INTERVAL '1' SECOND, INTERVAL '2' SECOND)",
};

/** The windows [start, end) of a row's time, as each group window above assigns them. */
function windowsOf(window: Window, ts: number): [number, number][] {
  if (window === 'TUMBLE') {
    const start = Math.floor(ts / 2000) * 2000;
    return [[start, start + 2000]];
  }
  const last = Math.floor(ts / 1000) * 1000;
  return [
    [last - 1000, last + 1000],
    [last, last + 2000],
  ];
}

/** The batch aggregation: per key and window, the count, sum and maximum. */
function batch(window: Window, rows: readonly Reading[]): string[] {
  const groups = new Map<string, { n: number; sum: number; max: number }>();
  for (const r of rows) {
    for (const [start, end] of windowsOf(window, r.ts)) {
      const key = `${r.k},${iso(start)},${iso(end)}`;
      const g = groups.get(key) ?? { n: 0, sum: 0, max: Number.NEGATIVE_INFINITY };
      groups.set(key, { n: g.n + 1, sum: g.sum + r.v, max: Math.max(g.max, r.v) });
    }
  }
  return [...groups].map(([key, g]) => `${key},${g.n},${g.sum},${g.max}`).sort();
}

const QUERY = (window: Window) =>
  `SELECT k, ${window}_START(rowtime, ${GROUP_WINDOW[window].slice(window.length + 1, -1)}),
     ${window}_END(rowtime, ${GROUP_WINDOW[window].slice(window.length + 1, -1)}), COUNT(*), SUM(v), MAX(v)
   FROM r GROUP BY k, ${GROUP_WINDOW[window]}`;

const LATE_FIRES = (delay: string) => `SET 'table.exec.emit.late-fire.enabled' = 'true';
  SET 'table.exec.emit.late-fire.delay' = '${delay}';`;

describe('window emit strategies', () => {
  it('late rows within the allowed lateness update their windows: the final table is the batch one', async () => {
    const reading = fc.record({
      k: fc.nat(2),
      ts: fc.nat(9_999),
      v: fc.integer({ min: -50, max: 50 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(reading, { minLength: 1, maxLength: 40 }),
        fc.constantFrom<Window>('TUMBLE', 'HOP'),
        fc.constantFrom('0 ms', '50 ms'),
        async (rows, window, lateDelay) => {
          // Rows up to 10 s out of order against a watermark 0.5 s behind: 20 s of lateness
          // keeps every window.
          const [result] = await runScenario(
            `SET 'table.exec.emit.allow-lateness' = '20 s'; ${LATE_FIRES(lateDelay)}`,
            [QUERY(window)],
            { parallelism: 2, batchSize: 1, tables: readings(rows, 500) },
          );
          expect(result?.rows).toEqual(batch(window, rows));
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);

  it('without emit options a late row is dropped; with them it updates its window', async () => {
    const rows: Reading[] = [
      { k: 1, ts: 100, v: 1 },
      { k: 1, ts: 5_000, v: 2 },
      // Late for [0, 2 s): the watermark is at 4.5 s.
      { k: 1, ts: 200, v: 3 },
    ];
    const run = (setup: string) =>
      runScenario(setup, [QUERY('TUMBLE')], {
        parallelism: 1,
        batchSize: 1,
        tables: readings(rows, 500),
      });
    const [plain] = await run('');
    expect(plain?.rows).toEqual([
      `1,${iso(0)},${iso(2000)},1,1,1`,
      `1,${iso(4000)},${iso(6000)},1,2,2`,
    ]);
    expect(plain?.changes.every((c) => c.startsWith('+I'))).toBe(true);
    // The allowed lateness alone changes nothing, as in Flink: late fires fire late rows.
    const [lateness] = await run("SET 'table.exec.emit.allow-lateness' = '10 s';");
    expect(lateness?.changes).toEqual(plain?.changes);
    const [late] = await run(`SET 'table.exec.emit.allow-lateness' = '10 s'; ${LATE_FIRES('0 s')}`);
    expect(late?.rows).toEqual([
      `1,${iso(0)},${iso(2000)},2,4,3`,
      `1,${iso(4000)},${iso(6000)},1,2,2`,
    ]);
    expect(late?.changes).toEqual([
      `+I(1,${iso(0)},${iso(2000)},1,1,1)`,
      `-U(1,${iso(0)},${iso(2000)},1,1,1)`,
      `+U(1,${iso(0)},${iso(2000)},2,4,3)`,
      `+I(1,${iso(4000)},${iso(6000)},1,2,2)`,
    ]);
    // Past the lateness the row is dropped again: 1 s of lateness ends at 3 s.
    const [past] = await run(`SET 'table.exec.emit.allow-lateness' = '1 s'; ${LATE_FIRES('0 s')}`);
    expect(past?.rows).toEqual(plain?.rows);
  });

  it('early fires on every row: each row updates its window before the watermark closes it', async () => {
    const rows: Reading[] = [
      { k: 1, ts: 100, v: 5 },
      { k: 1, ts: 300, v: 7 },
      { k: 2, ts: 400, v: 1 },
      { k: 1, ts: 3_000, v: 2 },
    ];
    const [result] = await runScenario(
      `SET 'table.exec.emit.early-fire.enabled' = 'true';
       SET 'table.exec.emit.early-fire.delay' = '0 ms';`,
      [QUERY('TUMBLE')],
      { parallelism: 1, batchSize: 1, tables: readings(rows, 10_000) },
    );
    expect(result?.changes.slice(0, 4)).toEqual([
      `+I(1,${iso(0)},${iso(2000)},1,5,5)`,
      `-U(1,${iso(0)},${iso(2000)},1,5,5)`,
      `+U(1,${iso(0)},${iso(2000)},2,12,7)`,
      `+I(2,${iso(0)},${iso(2000)},1,1,1)`,
    ]);
    expect(result?.rows).toEqual(batch('TUMBLE', rows));
  });

  it('a window TVF aggregation refuses early and late fires and ignores the lateness, as Flink', async () => {
    const rows: Reading[] = [
      { k: 1, ts: 100, v: 1 },
      { k: 1, ts: 5_000, v: 2 },
      { k: 1, ts: 200, v: 3 },
    ];
    const tvf = `SELECT k, window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(rowtime),
      INTERVAL '2' SECOND)) GROUP BY k, window_start, window_end`;
    const options = { parallelism: 1, batchSize: 1, tables: readings(rows, 500) };
    for (const fires of [
      LATE_FIRES('0 s'),
      "SET 'table.exec.emit.early-fire.enabled' = 'true'; SET 'table.exec.emit.early-fire.delay' = '0 s';",
    ]) {
      await expect(
        runScenario(`SET 'table.exec.emit.allow-lateness' = '10 s'; ${fires}`, [tvf], options),
      ).rejects.toThrow('a window TVF aggregation takes no early or late fires');
    }
    const [ignored] = await runScenario(
      "SET 'table.exec.emit.allow-lateness' = '10 s';",
      [tvf],
      options,
    );
    expect(ignored?.changes).toEqual([`+I(1,${iso(0)},1)`, `+I(1,${iso(4000)},1)`]);
  });
});
