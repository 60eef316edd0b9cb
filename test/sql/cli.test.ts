/**
 * `weir sql -f script.sql`: the script runs as a job with the run options (here checkpoints),
 * its print sink writes the rows a plain oracle expects, and a wrong script or command line
 * gives a clear message and exit status.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { startWeir } from '../cli/run-cli.js';
import { allEvents } from '../nexmark/oracle.js';

const dir = mkdtempSync(join(tmpdir(), 'weir-sql-cli-'));
const SCRIPT = 'test/sql/fixtures/bids-per-window.sql';

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `weir sql -f SCRIPT` with checkpoints, and `extra` flags. */
const runScript = (extra: readonly string[]) =>
  startWeir(
    [
      'sql',
      '-f',
      SCRIPT,
      '--checkpoint-dir',
      join(dir, `checkpoints-${extra.join('-')}`),
      '--checkpoint-interval',
      '0.1',
      ...extra,
    ],
    120_000,
  ).done;

/** The run on the calling thread: checked against the oracle, and the reference for worker threads. */
let single: ReturnType<typeof runScript> | undefined;
const singleThread = () => {
  single ??= runScript([]);
  return single;
};

describe('weir sql', () => {
  it('runs a script with checkpoints; the print sink shows the window aggregates', async () => {
    const result = await singleThread();
    expect(result.stderr).toMatch(/✓ job 'bids-per-window' finished/);
    expect(result.code).toBe(0);
    // The oracle: bids per auction and 10 s window, with the highest price.
    const windows = new Map<string, { auction: number; end: number; n: number; top: number }>();
    for (const b of allEvents({ maxEvents: 3000, eventsPerSecond: 100 }).bids) {
      const end = Math.floor(b.dateTime / 10_000) * 10_000 + 10_000;
      const key = `${b.auction}/${end}`;
      const w = windows.get(key) ?? { auction: b.auction, end, n: 0, top: 0 };
      w.n++;
      w.top = Math.max(w.top, b.price);
      windows.set(key, w);
    }
    const iso = (ms: number) => new Date(ms).toISOString().replace(/(:00)?\.000Z$/, '');
    const expected = [...windows.values()]
      .map((w) => `+I[${w.auction}, ${w.n}, ${w.top}, ${iso(w.end)}]`)
      .sort();
    const lines = result.stdout
      .split('\n')
      .filter((l) => l !== '')
      .sort();
    expect(lines).toEqual(expected);
  }, 150_000);

  it('runs a script whose sink is made by CREATE TABLE ... AS SELECT', async () => {
    const script = join(dir, 'ctas.sql');
    const fixture = readFileSync(SCRIPT, 'utf8');
    // The fixture's source, and its INSERT as a CTAS into a print table.
    const source = fixture.slice(0, fixture.indexOf('CREATE TABLE out'));
    writeFileSync(
      script,
      `${source}
      CREATE TABLE per_auction WITH ('connector' = 'print') AS
      SELECT bid.auction AS auction, COUNT(*) AS bids
      FROM events WHERE event_type = 2 AND bid.price > 5000000 GROUP BY bid.auction;
      `,
    );
    const result = await startWeir(['sql', '-f', script], 120_000).done;
    expect(result.code).toBe(0);
    // An updating query into print: each change printed; the last +I/+U per auction is the count.
    const last = new Map<number, number>();
    for (const line of result.stdout.split('\n')) {
      const m = /^[+][IU]\[(\d+), (\d+)\]$/.exec(line);
      if (m !== null) last.set(Number(m[1]), Number(m[2]));
    }
    const expected = new Map<number, number>();
    for (const b of allEvents({ maxEvents: 3000, eventsPerSecond: 100 }).bids)
      if (b.price > 5_000_000) expected.set(b.auction, (expected.get(b.auction) ?? 0) + 1);
    expect(expected.size).toBeGreaterThan(0);
    expect([...last.entries()].sort()).toEqual([...expected.entries()].sort());
  }, 150_000);

  it('prints what SHOW and DESCRIBE answer; DROP, ALTER, USE and RESET shape the job', async () => {
    const script = join(dir, 'catalog.sql');
    writeFileSync(
      script,
      `DROP TABLE IF EXISTS nums;
      CREATE TABLE nums (n INT) WITH ('connector' = 'datagen', 'number-of-rows' = '9',
        'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '9');
      ALTER TABLE nums SET ('number-of-rows' = '3');
      CREATE TABLE scratch (n INT) WITH ('connector' = 'blackhole');
      DROP TABLE scratch;
      CREATE TABLE out (n INT) WITH ('connector' = 'print');
      USE CATALOG default_catalog;
      SET 'pipeline.name' = 'renamed'; RESET 'pipeline.name';
      SHOW TABLES;
      DESCRIBE nums;
      INSERT INTO out SELECT n * 10 FROM nums;
      `,
    );
    const result = await startWeir(['sql', '-f', script], 120_000).done;
    expect(result.stderr).toMatch(/✓ job 'catalog' finished/);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      '+------------+\n| table name |\n+------------+\n| nums       |\n| out        |\n+------------+\n2 rows in set',
    );
    expect(result.stdout).toMatch(/\| name +\| type +\| null +\| key +\| extras +\| watermark +\|/);
    const rows = result.stdout.split('\n').filter((l) => l.startsWith('+I['));
    expect(rows.sort()).toEqual(['+I[10]', '+I[20]', '+I[30]']);
  }, 150_000);

  it("prints a script's SELECTs as changes beside its INSERT, as Flink's SQL client runs a file", async () => {
    const script = join(dir, 'selects.sql');
    writeFileSync(
      script,
      `CREATE TABLE nums (n BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '20',
         'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '20');
       CREATE TABLE big (n BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'big');
       SELECT n % 3 AS k, COUNT(*) AS c, SUM(n) AS s FROM nums GROUP BY n % 3;
       INSERT INTO big SELECT n FROM nums WHERE n > 18;
       SELECT n, n FROM nums WHERE n <= 2;\n`,
    );
    const result = await startWeir(['sql', '-f', script], 90_000).done;
    expect(result.stderr).toMatch(/finished/);
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n').filter((l) => l !== '');
    // The GROUP BY's changes applied to a table: the batch GROUP BY of 1..20.
    const table = new Map<string, string>();
    for (const line of lines) {
      const m = /^([+-][IUD])\[(\d+), (\d+), (\d+)\]$/.exec(line);
      if (m === null) continue;
      if (m[1] === '+I' || m[1] === '+U') table.set(m[2]!, `${m[3]}, ${m[4]}`);
      else table.delete(m[2]!);
    }
    expect(Object.fromEntries(table)).toEqual({ '0': '6, 63', '1': '7, 70', '2': '7, 77' });
    expect(lines.filter((l) => /^\+I\[\d+, \d+\]$/.test(l)).sort()).toEqual([
      '+I[1, 1]',
      '+I[2, 2]',
    ]);
    expect(lines.filter((l) => l.startsWith('big>')).sort()).toEqual([
      'big> +I[19]',
      'big> +I[20]',
    ]);
    // From TypeScript a SELECT still needs a sink (sqlQuery reads one).
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    tEnv.executeSql(`CREATE TABLE nums (n BIGINT) WITH ('connector' = 'datagen')`);
    expect(() => tEnv.executeSql('SELECT n FROM nums')).toThrow(
      'a SELECT in a script needs a sink',
    );
  }, 120_000);

  it('a syntax error names its line and column and fails with status 1', async () => {
    const bad = join(dir, 'bad.sql');
    writeFileSync(
      bad,
      "CREATE TABLE t (a INT) WITH ('connector' = 'blackhole');\nINSERT INTO t SELEC 1;\n",
    );
    const result = await startWeir(['sql', '-f', bad]).done;
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("weir: line 2, column 15: expected SELECT but found 'SELEC'");
  }, 60_000);

  it('refuses a missing script as a usage error', async () => {
    const missing = await startWeir(['sql', '--checkpoint-interval', '1']).done;
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing the script: weir sql -f <script.sql>');
  }, 60_000);

  it('runs a script on worker threads with the rows of the calling thread', async () => {
    // At parallelism 2 the print sink prefixes each row with its subtask, as Flink's does.
    const rows = (stdout: string) =>
      stdout
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => l.replace(/^\d+> /, ''))
        .sort();
    const [one, two] = [await singleThread(), await runScript(['--workers', '2'])];
    expect(two.stderr).toMatch(/✓ job 'bids-per-window' finished/);
    expect(two.code).toBe(0);
    expect(one.code).toBe(0);
    expect(two.stdout).toMatch(/^[12]> \+I\[/m);
    expect(rows(two.stdout).length).toBeGreaterThan(0);
    expect(rows(two.stdout)).toEqual(rows(one.stdout));
  }, 300_000);
});
