/**
 * Scenarios of Flink's SQL client script tests (flink-table/flink-sql-client/src/test/resources/sql/
 * `catalog_database.q`, `view.q`, `set.q` and `statement_set.q`), translated to Weir: each `it` feeds one section's statements
 * to the interactive `weir sql` client through a pipe and checks the outcome of every statement in
 * order: `[INFO] Execute statement succeeded.` or `[ERROR]` with the gist of its message (which
 * object, why), and the cells of SHOW/DESCRIBE tables (Weir pads cells to the left, Flink to the
 * right; only cells are compared).
 *
 * Deliberate differences:
 * - Weir's errors name the statement's line and column instead of a Java exception class.
 * - A catalog made with CREATE CATALOG starts with a database named `default_database` (Flink's
 *   generic in-memory catalog names it `default`); the scenarios use that name.
 * - SHOW CREATE VIEW prints the view's query as written, not Flink's expanded, fully qualified one;
 *   a watermark's expression is shown as written too (`ts - INTERVAL '1' SECONDS`), and the
 *   primary key without a constraint name.
 * - Weir's client does not cut wide cells, so the max-column-width options change nothing.
 * - The `values` connector of Flink's test tables is Weir's `datagen`; `filesystem` tables live in
 *   a temporary directory.
 * - INSERT, CTAS and a statement set's END run in the background (`[INFO] Submitted job ...`)
 *   unless 'table.dml-sync' is 'true', so a table they write is read by a second client session,
 *   which starts once the first one has waited for its jobs. A query's rows are compared as the
 *   `+I[...]` lines printed on a pipe.
 * - `BEGIN STATEMENT SET;` takes INSERT INTO only (Flink's newer versions take CTAS as well).
 *
 * Not ported: `function.q` (Java UDF classes and ADD JAR), `module.q` (modules), `add.q` (JARs),
 * `insert.q`, `select*.q`, `misc.q` and `table.q` past its first section (not yet translated), the JAR parts of `set.q`,
 * the batch-mode half of `statement_set.q`,
 * `materialized_table.q`, `call_procedure.q`, `delete.q`, `truncate.q` (features Weir does not have),
 * and the parts of `catalog_database.q` that need the Hive catalog or the batch runtime mode.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sqlClientOnPipe } from '../cli/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'weir-sql-client-scenarios-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One statement's outcome as the client prints it. */
type Outcome =
  | { kind: 'info'; text: string }
  | { kind: 'error'; text: string }
  | { kind: 'table'; header: string[]; rows: string[][] }
  | { kind: 'text'; text: string }
  | { kind: 'changes'; rows: string[] };

/** Splits the client's output into one outcome per statement. */
function outcomes(stdout: string): Outcome[] {
  const out: Outcome[] = [];
  const lines = stdout.split('\n');
  const cells = (line: string): string[] =>
    line
      .slice(1, -1)
      .split('|')
      .map((c) => c.trim());
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    // A background job's end and the wait at QUIT come when they come: not a statement's outcome.
    if (/^\[INFO\] (Job \S+ finished|waiting for)/.test(line)) continue;
    if (/^[+-][IUD]\[/.test(line)) {
      const rows = [line];
      while (i + 1 < lines.length && /^[+-][IUD]\[/.test(lines[i + 1] as string))
        rows.push(lines[++i] as string);
      out.push({ kind: 'changes', rows });
    } else if (line === '[INFO] Query finished') {
      const last = out[out.length - 1];
      if (last?.kind !== 'changes') out.push({ kind: 'changes', rows: [] });
    } else if (line.startsWith('[INFO]')) out.push({ kind: 'info', text: line });
    else if (line.startsWith('[ERROR]')) out.push({ kind: 'error', text: line });
    else if (line === 'Empty set') out.push({ kind: 'table', header: [], rows: [] });
    else if (line.startsWith('+-')) {
      const header = cells(lines[i + 1] as string);
      const rows: string[][] = [];
      i += 3;
      while (i < lines.length && !(lines[i] as string).startsWith('+-'))
        rows.push(cells(lines[i++] as string));
      i++; // the row count
      out.push({ kind: 'table', header, rows });
    } else if (line.trim() !== '') {
      const last = out[out.length - 1];
      if (last?.kind === 'text') last.text += `\n${line}`;
      else out.push({ kind: 'text', text: line });
    }
  }
  return out;
}

/** What a statement should do: succeed, fail with a message matching, or show these rows. */
type Expected = 'ok' | RegExp | string[][] | ((o: Outcome) => void);

/** Runs `steps` (statement, expected outcome) through the client and checks each in order. */
async function scenario(steps: readonly (readonly [string, Expected])[]): Promise<void> {
  const { code, stdout, stderr } = await sqlClientOnPipe(
    `${steps.map(([s]) => s).join('\n')}\nQUIT;\n`,
    join(dir, 'history'),
  );
  expect(stderr).toBe('');
  expect(code).toBe(0);
  const got = outcomes(stdout);
  expect(got, stdout).toHaveLength(steps.length);
  steps.forEach(([statement, expected], i) => {
    const o = got[i] as Outcome;
    const where = `${statement}\n=> ${JSON.stringify(o)}`;
    if (expected === 'ok')
      expect(o, where).toEqual({ kind: 'info', text: '[INFO] Execute statement succeeded.' });
    else if (expected instanceof RegExp) {
      expect(o.kind, where).toBe('error');
      expect((o as { text: string }).text, where).toMatch(expected);
    } else if (typeof expected === 'function') expected(o);
    else {
      expect(o.kind, where).toBe('table');
      expect((o as { rows: string[][] }).rows, where).toEqual(expected);
    }
  });
}

/** An `[INFO]` line other than `Execute statement succeeded.`. */
const info =
  (pattern: RegExp) =>
  (o: Outcome): void => {
    expect(o.kind, JSON.stringify(o)).toBe('info');
    expect((o as { text: string }).text).toMatch(pattern);
  };

/** A query's rows, as the changes the client prints on a pipe. */
const changes =
  (rows: string[]) =>
  (o: Outcome): void =>
    expect(o).toEqual({ kind: 'changes', rows });

const ORDERS = `CREATE TABLE orders (
 \`user\` BIGINT NOT NULl,
 product VARCHAR(32),
 amount INT,
 ts TIMESTAMP(3),
 ptime AS PROCTIME(),
 PRIMARY KEY(\`user\`) NOT ENFORCED,
 WATERMARK FOR ts AS ts - INTERVAL '1' SECONDS
) with (
 'connector' = 'datagen'
);`;

const V1_COLUMNS = [
  ['user', 'BIGINT', 'FALSE', '', '', ''],
  ['product', 'VARCHAR(32)', 'TRUE', '', '', ''],
  ['amount', 'INT', 'TRUE', '', '', ''],
  ['ts', 'TIMESTAMP(3) *ROWTIME*', 'TRUE', '', '', ''],
  ['ptime', 'TIMESTAMP_LTZ(3) *PROCTIME*', 'FALSE', '', '', ''],
];
const col = (name: string): string[] => V1_COLUMNS.find((c) => c[0] === name) as string[];

describe('Flink SQL client scenarios', () => {
  it('catalog_database.q: validation of USE and CREATE on missing catalogs and databases', async () => {
    await scenario([
      [
        'use non_existing_db;',
        /database 'non_existing_db' does not exist in catalog 'default_catalog'/,
      ],
      ['use catalog non_existing_catalog;', /catalog 'non_existing_catalog' does not exist/],
      ["create catalog invalid.cat with ('type'='generic_in_memory');", /column 23: .*'\.'/],
      ['create database my.db;', /catalog 'my' does not exist/],
    ]);
  }, 60_000);

  it('catalog_database.q: catalogs', async () => {
    await scenario([
      ["create catalog c1 with ('type'='generic_in_memory');", 'ok'],
      ['show catalogs;', [['c1'], ['default_catalog']]],
      ['show current catalog;', [['default_catalog']]],
      ['use catalog c1;', 'ok'],
      ['show current catalog;', [['c1']]],
      ['drop catalog c1;', /cannot drop catalog 'c1': it is the current one/],
      [
        "create catalog cat_comment comment 'hello ''catalog''' WITH ('type'='generic_in_memory', 'default-database'='db');",
        'ok',
      ],
      [
        "create catalog if not exists cat_comment comment 'hello' with ('type' = 'generic_in_memory');",
        'ok',
      ],
      [
        "create catalog cat_comment comment 'hello2' with ('type' = 'generic_in_memory');",
        /catalog 'cat_comment' already exists/,
      ],
    ]);
  }, 60_000);

  it('catalog_database.q: DESCRIBE and ALTER CATALOG; dropping a catalog not in use', async () => {
    await scenario([
      ["create catalog c1 with ('type'='generic_in_memory');", 'ok'],
      ['use catalog c1;', 'ok'],
      ['drop catalog default_catalog;', 'ok'],
      ["create catalog cat2 WITH ('type'='generic_in_memory', 'default-database'='db');", 'ok'],
      [
        'desc catalog cat2;',
        [
          ['name', 'cat2'],
          ['type', 'generic_in_memory'],
          ['comment', ''],
        ],
      ],
      ["alter catalog cat2 set ('default-database'='db_new');", 'ok'],
      [
        'desc catalog extended cat2;',
        [
          ['name', 'cat2'],
          ['type', 'generic_in_memory'],
          ['comment', ''],
          ['option:default-database', 'db_new'],
        ],
      ],
      ["alter catalog cat2 reset ('type');", /does not support changing 'type'/],
      ['alter catalog cat2 reset ();', /empty key/],
      ["alter catalog cat2 comment 'c';", 'ok'],
      ["alter catalog cat2 reset ('default-database');", 'ok'],
      [
        'describe catalog extended cat2;',
        [
          ['name', 'cat2'],
          ['type', 'generic_in_memory'],
          ['comment', 'c'],
        ],
      ],
      ['use catalog cat2;', 'ok'],
      ['show current database;', [['db']]],
    ]);
  });

  it('catalog_database.q: databases', async () => {
    await scenario([
      ['create database db1;', 'ok'],
      ['show databases;', [['db1'], ['default_database']]],
      ['create database db2;', 'ok'],
      ["show databases like 'db%';", [['db1'], ['db2']]],
      ["show databases ilike 'DB%';", [['db1'], ['db2']]],
      ["show databases like 'db1%';", [['db1']]],
      ["show databases ilike 'db2%';", [['db2']]],
      ['drop database db2;', 'ok'],
      ['show current database;', [['default_database']]],
      ['use db1;', 'ok'],
      ['show current database;', [['db1']]],
      ["create database db2 comment 'db2_comment' with ('k1' = 'v1');", 'ok'],
      ['show databases;', [['db1'], ['db2'], ['default_database']]],
      ["create catalog `c0` with ('type'='generic_in_memory');", 'ok'],
      ['create database c0.db0a;', 'ok'],
      ['create database c0.db0b;', 'ok'],
      ['show databases from c0;', [['db0a'], ['db0b'], ['default_database']]],
      ["show databases from c0 like 'db0a%';", [['db0a']]],
      ["show databases from c0 ilike 'DB0A%';", [['db0a']]],
      ["show databases from c0 not like 'db0a%';", [['db0b'], ['default_database']]],
      ["show databases from c0 not ilike 'db0a%';", [['db0b'], ['default_database']]],
      ["show databases from c0 like 'db%';", [['db0a'], ['db0b']]],
      ['show databases in c0.t;', /c0\.t/],
      ['drop catalog `c0`;', 'ok'],
      ['show databases from c0;', /catalog 'c0' does not exist/],
      ['drop database if exists db2;', 'ok'],
      ['show databases;', [['db1'], ['default_database']]],
    ]);
  }, 60_000);

  it('catalog_database.q: ALTER DATABASE', async () => {
    await scenario([
      ["create database db2 comment 'db2_comment' with ('k1' = 'v1');", 'ok'],
      ["alter database db2 set ('k1' = 'a', 'k2' = 'b');", 'ok'],
      ["alter database nope set ('k1' = 'a');", /database 'nope' does not exist/],
    ]);
  });

  it('catalog_database.q: keyword identifiers', async () => {
    await scenario([
      ["create catalog c1 with ('type'='generic_in_memory');", 'ok'],
      ["create catalog `mod` with ('type'='generic_in_memory');", 'ok'],
      ['use catalog `mod`;', 'ok'],
      ['use `default_database`;', 'ok'],
      ['drop database `default_database`;', /default_database/],
      ['drop catalog `mod`;', /cannot drop catalog 'mod': it is the current one/],
      ['use catalog `c1`;', 'ok'],
      ['drop catalog `mod`;', 'ok'],
    ]);
  }, 60_000);

  it('catalog_database.q: tables and views in other catalogs', async () => {
    await scenario([
      ["create catalog c1 with ('type'='generic_in_memory');", 'ok'],
      ['create database c1.db1;', 'ok'],
      ["create catalog c2 with ('type'='generic_in_memory');", 'ok'],
      ['use catalog `c2`;', 'ok'],
      ["create table MyTable1 (a int, b string) with ('connector' = 'datagen');", 'ok'],
      ["create table MyTable2 (a int, b string) with ('connector' = 'datagen');", 'ok'],
      ['show tables;', [['MyTable1'], ['MyTable2']]],
      ['show views;', []],
      ['create view MyView1 as select 1 + 1;', 'ok'],
      ['create view MyView2 as select 1 + 1;', 'ok'],
      ['show views;', [['MyView1'], ['MyView2']]],
      ["create table c1.db1.MyTable3 (a int, b string) with ('connector' = 'datagen');", 'ok'],
      ["create table c1.db1.MyTable4 (a int, b string) with ('connector' = 'datagen');", 'ok'],
      ['create view c1.db1.MyView3 as select 1 + 1;', 'ok'],
      ['create view c1.db1.MyView4 as select 1 + 1;', 'ok'],
      ['use catalog c1;', 'ok'],
      ['use db1;', 'ok'],
      ['show tables;', [['MyTable3'], ['MyTable4'], ['MyView3'], ['MyView4']]],
      ['show views;', [['MyView3'], ['MyView4']]],
    ]);
  }, 60_000);

  it('view.q: temporary and permanent views, SHOW CREATE VIEW, DESCRIBE and SHOW COLUMNS', async () => {
    await scenario([
      [ORDERS, 'ok'],
      ['create temporary view v1 as select * from orders;', 'ok'],
      ['create temporary view v1 as select * from orders;', /'v1' already exists/],
      ['create temporary view if not exists v1 as select * from orders;', 'ok'],
      ['create temporary view if not exists v2 as select * from v1;', 'ok'],
      [
        'show create view v1;',
        (o) =>
          expect(o).toEqual({
            kind: 'text',
            text: expect.stringMatching(
              /^CREATE .*VIEW `default_catalog`\.`default_database`\.`v1`/,
            ),
          }),
      ],
      ['show tables;', [['orders'], ['v1'], ['v2']]],
      ['show views;', [['v1'], ['v2']]],
      ['show create table v1;', /'v1' is a view: SHOW CREATE VIEW/],
      ['create view permanent_v1 as select * from orders;', 'ok'],
      ['drop view permanent_v1;', 'ok'],
      ['show views;', [['v1'], ['v2']]],
      ['describe v1;', V1_COLUMNS],
      ['show columns from v1;', V1_COLUMNS],
      ['show columns in v1;', V1_COLUMNS],
      ["show columns from v1 like '%u';", []],
      ["show columns in v1 not like '%u';", V1_COLUMNS],
      ["show columns from v1 like '%r';", [col('user')]],
      ["show columns in v1 not like '%r';", V1_COLUMNS.slice(1)],
      ["show columns from v1 like '%u%';", V1_COLUMNS.slice(0, 3)],
      ["show columns in v1 not like '%u%';", V1_COLUMNS.slice(3)],
      ["show columns from v1 like 'use_';", [col('user')]],
      ["show columns in v1 not like 'use_';", V1_COLUMNS.slice(1)],
      ['drop temporary view v1;', 'ok'],
      ['drop view non_exist;', /view 'non_exist' does not exist/],
      ['create view `mod` as select * from orders;', 'ok'],
      ['describe `mod`;', V1_COLUMNS],
      ['desc `mod`;', V1_COLUMNS],
      ['drop view `mod`;', 'ok'],
      ['show tables;', [['orders'], ['v2']]],
    ]);
  }, 60_000);

  it('table.q: validation, CREATE TABLE with computed column, key and watermark, SHOW COLUMNS', async () => {
    const ts = ['ts', 'TIMESTAMP(3) *ROWTIME*', 'TRUE', '', '', "ts - INTERVAL '1' SECONDS"];
    const ptime = ['ptime', 'TIMESTAMP_LTZ(3) *PROCTIME*', 'FALSE', '', 'AS PROCTIME()', ''];
    const all = [
      ['user', 'BIGINT', 'FALSE', 'PRI(user)', '', ''],
      ['product', 'VARCHAR(32)', 'TRUE', '', '', ''],
      ['amount', 'INT', 'TRUE', '', '', ''],
      ts,
      ptime,
    ];
    await scenario([
      [
        'create table tbl(a int, b as invalid_function());',
        /column 30: unknown function INVALID_FUNCTION/,
      ],
      ['drop table non_exist;', /table 'non_exist' does not exist/],
      ['describe non_exist;', /'non_exist' not found/],
      ['desc non_exist;', /'non_exist' not found/],
      ['alter table non_exist rename to non_exist2;', /'non_exist' not found/],
      ['alter table if exists non_exist rename to non_exist2;', 'ok'],
      [ORDERS.replace('CREATE TABLE', 'CREATE TABLE IF NOT EXISTS'), 'ok'],
      ['show tables;', [['orders']]],
      [
        'show create table orders;',
        (o) =>
          expect(o).toEqual({
            kind: 'text',
            text: expect.stringMatching(
              /^CREATE TABLE `default_catalog`\.`default_database`\.`orders` \([\s\S]*`ptime` AS PROCTIME\(\),[\s\S]*PRIMARY KEY \(`user`\) NOT ENFORCED[\s\S]*'connector' = 'datagen'/,
            ),
          }),
      ],
      ['show columns from orders;', all],
      // Weir's client does not cut wide cells; the options are taken and change nothing here.
      ["SET 'table.display.max-column-width' = '10';", 'ok'],
      ['show columns in orders;', all],
      ["SET 'sql-client.display.max-column-width' = '10';", 'ok'],
      ["show columns from orders like '%u';", []],
      ["show columns in orders not like '%u';", all],
      ["show columns from orders like '%r';", [all[0] as string[]]],
      ["show columns in orders not like '%r';", all.slice(1)],
      ['describe orders;', all],
    ]);
  }, 60_000);

  it('set.q: SET and RESET of quoted keys, CREATE TABLE ... AS SELECT, a Hive DDL refused', async () => {
    const path = join(dir, 'set-foo');
    await scenario([
      ["SET 'sql-client.execution.result-mode' = 'tableau';", 'ok'],
      ["SET 'table.dml-sync' = 'true';", 'ok'],
      [
        `CREATE TABLE foo with ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'csv') as select id FROM (VALUES (1)) T(id);`,
        'ok',
      ],
      ['', info(/Submitted job/)], // the CTAS's second line: its INSERT runs as a job
      ["RESET 'table.dml-sync';", 'ok'],
      ['reset;', 'ok'],
      [
        `CREATE TABLE hive_table2 (product_id STRING, update_user STRING)
         PARTITIONED BY (pt_year STRING, pt_month STRING) TBLPROPERTIES ('streaming-source.enable' = 'true');`,
        /line 2, column \d+: expected '\)' but found 'STRING'/,
      ],
      ["set 'sql-client.verbose' = 'true';", 'ok'],
      ["set 'execution.attached' = 'false';", 'ok'],
      ["reset 'execution.attached';", 'ok'],
    ]);
    // Flink waits for the CTAS (table.dml-sync); Weir's client runs it in the background, so
    // the table is read by a second session once the first one has waited for its job.
    await scenario([
      [
        `CREATE TABLE foo (id INT) with ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'csv');`,
        'ok',
      ],
      ['SELECT * from foo;', changes(['+I[1]'])],
    ]);
  }, 60_000);

  it('set.q: SET without arguments lists the options as a key/value table', async () => {
    await scenario([
      ["set 'sql-client.verbose' = 'true';", 'ok'],
      ["set 'pipeline.name' = 'set.q';", 'ok'],
      [
        'set;',
        [
          ['pipeline.name', 'set.q'],
          ['sql-client.verbose', 'true'],
        ],
      ],
      ['reset;', 'ok'],
      ['set;', []],
    ]);
  });

  it('set.q: SET key = value without quotes', async () => {
    await scenario([
      ['SET sql-client.execution.result-mode = tableau;', 'ok'],
      ['set;', [['sql-client.execution.result-mode', 'tableau']]],
    ]);
  });

  it("set.q: with 'table.dml-sync' an INSERT finishes before the next statement runs", async () => {
    const path = join(dir, 'dml-sync');
    await scenario([
      ["SET 'table.dml-sync' = 'true';", 'ok'],
      [
        `CREATE TABLE synced (id INT) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'csv');`,
        'ok',
      ],
      ['INSERT INTO synced SELECT * FROM (VALUES (1), (2)) AS t(id);', info(/Submitted job/)],
      // Read in the same session: the INSERT's job has ended, its files are committed.
      ['SELECT * FROM synced;', changes(['+I[1]', '+I[2]'])],
    ]);
  });

  it('statement_set.q: BEGIN STATEMENT SET, INSERTs, END in the interactive client', async () => {
    const path = join(dir, 'streaming-table');
    const table = `create table StreamingTable (id int, str string) with ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'csv');`;
    await scenario([
      ["create table src (id int, str string) with ('connector' = 'datagen');", 'ok'],
      [table, 'ok'],
      ['BEGIN STATEMENT SET;', info(/Begin a statement set/)],
      ['BEGIN STATEMENT SET;', /statement set is already open/],
      ["create table src (id int, str string) with ('connector' = 'datagen');", /only INSERT INTO/],
      [
        "SELECT id, str FROM (VALUES (1, 'Hello World'), (2, 'Hi'), (2, 'Hi')) as T(id, str);",
        /only INSERT INTO/,
      ],
      ['INSERT INTO nope SELECT 1;', /'nope' not found/],
      [
        "INSERT INTO StreamingTable SELECT * FROM (VALUES (1, 'Hello World'), (2, 'Hi'), (2, 'Hi'), (3, 'Hello'), (3, 'World'), (4, 'ADD'), (5, 'LINE'));",
        info(/Add SQL update statement to the statement set/),
      ],
      ['END;', info(/Submitted job/)],
      ['END;', /no statement set to submit: END; comes after BEGIN STATEMENT SET;/],
      ['BEGIN STATEMENT SET;', info(/Begin a statement set/)],
      ['END;', info(/No statement in the statement set, skip submit/)],
    ]);
    await scenario([
      [table, 'ok'],
      [
        'SELECT * FROM StreamingTable;',
        changes([
          '+I[1, Hello World]',
          '+I[2, Hi]',
          '+I[2, Hi]',
          '+I[3, Hello]',
          '+I[3, World]',
          '+I[4, ADD]',
          '+I[5, LINE]',
        ]),
      ],
    ]);
  }, 60_000);

  it('statement_set.q: two INSERTs of one statement set into one filesystem table', async () => {
    // Both INSERTs' rows land in the table: each sink names its part files after itself.
    const path = join(dir, 'two-inserts');
    const table = `create table t (id int) with ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'csv');`;
    await scenario([
      [table, 'ok'],
      ['BEGIN STATEMENT SET;', info(/Begin/)],
      ['INSERT INTO t VALUES (1);', info(/Add/)],
      ['INSERT INTO t VALUES (2);', info(/Add/)],
      ['END;', info(/Submitted job/)],
    ]);
    await scenario([
      [table, 'ok'],
      [
        'SELECT * FROM t;',
        // In the order the part files are read: the two sinks' files, by name.
        (o: Outcome) =>
          expect(o.kind === 'changes' ? [...o.rows].sort() : o).toEqual(['+I[1]', '+I[2]']),
      ],
    ]);
  });

  it("view.q: an OPTIONS hint on a view is refused; DESCRIBE marks a view's PROCTIME() column", async () => {
    await scenario([
      [ORDERS, 'ok'],
      ['create temporary view v1 as select * from orders;', 'ok'],
      [
        "select * from v1 /*+ OPTIONS('number-of-rows' = '1') */;",
        /cannot be enriched with new options/,
      ],
      ['create view pv as select * from orders;', 'ok'],
      ['describe pv;', (o) => expect(JSON.stringify(o)).toContain('TIMESTAMP_LTZ(3) *PROCTIME*')],
    ]);
  });

  it('view.q: a temporary view shadowing a permanent one', async () => {
    await scenario([
      [ORDERS, 'ok'],
      ['create temporary view v1 as select * from orders;', 'ok'],
      ['create view v1 as select * from orders;', 'ok'],
      ['drop view v1;', /a temporary view named 'v1' exists: drop it first/],
      ['drop temporary view v1;', 'ok'],
      ['drop view v1;', 'ok'],
    ]);
  });
});
