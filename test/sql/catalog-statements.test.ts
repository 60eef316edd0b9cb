/**
 * The statements that read and change the catalog, as Flink's SQL runs them: SHOW (TABLES,
 * VIEWS, FUNCTIONS, CATALOGS, DATABASES, CURRENT ..., COLUMNS, CREATE TABLE / VIEW), DESCRIBE,
 * DROP, ALTER TABLE / VIEW, USE and RESET; and a dropped or renamed table in a running script.
 */
import { describe, expect, it } from 'vitest';
import { type Row, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { runScenario } from './flink-scenario-runner.js';

const ORDERS = `CREATE TABLE orders (
  id INT,
  amount DECIMAL(10, 2),
  ts TIMESTAMP(3),
  loud AS UPPER(CAST(amount AS STRING)),
  PRIMARY KEY (id) NOT ENFORCED,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'datagen', 'number-of-rows' = '10');`;

const fresh = () => TableEnvironment.create(new StreamEnvironment());
const answer = (tEnv: TableEnvironment, sql: string) => tEnv.executeSql(sql).results;

describe('SHOW, DESCRIBE, DROP, ALTER, USE and RESET', () => {
  it('SHOW lists tables and views, sorted, with LIKE, NOT LIKE and ILIKE', () => {
    const tEnv = fresh();
    tEnv.executeSql(`${ORDERS}
      CREATE VIEW big_orders AS SELECT id, amount FROM orders WHERE amount > 10;
      CREATE VIEW Audit AS SELECT id FROM orders;`);
    const [tables, views, like, notLike, ilike, from] = answer(
      tEnv,
      `SHOW TABLES; SHOW VIEWS; SHOW TABLES LIKE '%orders'; SHOW TABLES NOT LIKE 'big\\_%';
       SHOW VIEWS ILIKE 'audit'; SHOW TABLES FROM default_catalog.default_database;`,
    );
    expect(tables).toEqual({
      statement: 'SHOW TABLES',
      columns: ['table name'],
      rows: [['Audit'], ['big_orders'], ['orders']],
    });
    expect(views?.rows).toEqual([['Audit'], ['big_orders']]);
    expect(like?.rows).toEqual([['big_orders'], ['orders']]);
    expect(notLike?.rows).toEqual([['Audit'], ['orders']]);
    expect(ilike?.rows).toEqual([['Audit']]);
    expect(from?.rows).toEqual(tables?.rows);
    expect(() => tEnv.executeSql('SHOW TABLES IN other_db')).toThrow(
      /line 1, column 1: database 'other_db' does not exist/,
    );
  });

  it('SHOW CATALOGS, DATABASES and the current ones; USE accepts only those', async () => {
    const tEnv = fresh();
    const results = answer(
      tEnv,
      `SHOW CATALOGS; SHOW DATABASES; SHOW CURRENT CATALOG; SHOW CURRENT DATABASE;
       USE CATALOG default_catalog; USE default_database; USE default_catalog.default_database;`,
    );
    expect(results.map((r) => [r.columns[0], r.rows])).toEqual([
      ['catalog name', [['default_catalog']]],
      ['database name', [['default_database']]],
      ['current catalog name', [['default_catalog']]],
      ['current database name', [['default_database']]],
    ]);
    expect(() => tEnv.executeSql('USE CATALOG hive')).toThrow(/catalog 'hive' does not exist/);
    // CalcITCase.testCurrentDatabase: the function names the database USE accepts.
    const [current] = await runScenario('', ['SELECT CURRENT_DATABASE()']);
    expect(current?.rows).toEqual(['default_database']);
    expect(() => tEnv.executeSql('USE other')).toThrow(/database 'other' does not exist/);
  });

  it('CREATE CATALOG / DATABASE, USE, and names resolved against the current ones', async () => {
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    const gen = (n: number) =>
      `WITH ('connector' = 'datagen', 'number-of-rows' = '2', 'fields.x.min' = '${n}', 'fields.x.max' = '${n}')`;
    tEnv.buildScript(`
      CREATE TABLE t (x INT) ${gen(1)};
      CREATE CATALOG mem WITH ('type' = 'generic_in_memory');
      CREATE DATABASE mem.sales;
      USE CATALOG mem;
      CREATE DATABASE IF NOT EXISTS sales;
      USE sales;
      CREATE TABLE t (x INT) ${gen(2)};
      CREATE TABLE out_t (x INT, db STRING) WITH ('connector' = 'blackhole');`);
    const [catalogs, databases, current, tables, other] = tEnv.executeSql(
      'SHOW CATALOGS; SHOW DATABASES; SHOW CURRENT DATABASE; SHOW TABLES; SHOW TABLES FROM default_catalog.default_database;',
    ).results;
    expect(catalogs?.rows).toEqual([['default_catalog'], ['mem']]);
    expect(databases?.rows).toEqual([['default_database'], ['sales']]);
    expect(current?.rows).toEqual([['sales']]);
    expect(tables?.rows).toEqual([['out_t'], ['t']]);
    expect(other?.rows).toEqual([['t']]);
    // `t` is mem.sales.t here; the other is named by its path. Each read once.
    const rows: Row[] = [];
    tEnv
      .sqlQuery(
        `SELECT x, CURRENT_DATABASE() FROM t UNION ALL
         SELECT x, 'default' FROM default_catalog.default_database.t`,
      )
      .toDataStream()
      .map((r) => {
        rows.push(r);
        return r;
      });
    await env.execute('catalogs');
    expect(rows.map((r) => r.join(' ')).sort()).toEqual([
      '1 default',
      '1 default',
      '2 sales',
      '2 sales',
    ]);
    const refused = fresh();
    expect(() =>
      refused.executeSql("CREATE CATALOG h WITH ('type' = 'hive', 'hive-conf-dir' = '/etc')"),
    ).toThrow(/catalog type 'hive' is not supported/);
    refused.executeSql(`CREATE DATABASE d; CREATE TABLE d.u (x INT) ${gen(1)};`);
    expect(() => refused.executeSql('DROP DATABASE d')).toThrow(
      /database 'd' is not empty \(u\): DROP DATABASE \.\.\. CASCADE/,
    );
    expect(() => refused.executeSql('USE nope')).toThrow(/database 'nope' does not exist/);
    refused.executeSql('DROP DATABASE d CASCADE; DROP DATABASE IF EXISTS d;');
    expect(refused.executeSql('SHOW DATABASES').results[0]?.rows).toEqual([['default_database']]);
    expect(() => refused.executeSql('DROP DATABASE default_database')).toThrow(/current one/);
  });

  it('DESCRIBE and SHOW COLUMNS give name, type, null, key, extras and watermark', () => {
    const tEnv = fresh();
    tEnv.executeSql(`${ORDERS} CREATE VIEW v AS SELECT amount, ts FROM orders;`);
    const [table, columns, view] = answer(
      tEnv,
      `DESCRIBE orders; SHOW COLUMNS FROM orders ILIKE '%D'; DESC v;`,
    );
    expect(table?.columns).toEqual(['name', 'type', 'null', 'key', 'extras', 'watermark']);
    expect(table?.rows).toEqual([
      ['id', 'INT', 'FALSE', 'PRI(id)', '', ''],
      ['amount', 'DECIMAL(10, 2)', 'TRUE', '', '', ''],
      ['ts', 'TIMESTAMP(3) *ROWTIME*', 'TRUE', '', '', "ts - INTERVAL '1' SECOND"],
      ['loud', 'STRING', 'TRUE', '', 'AS UPPER(CAST(amount AS STRING))', ''],
    ]);
    expect(columns?.rows.map((r) => r[0])).toEqual(['id', 'loud']);
    expect(view?.rows).toEqual([
      ['amount', 'DECIMAL(10, 2)', 'TRUE', '', '', ''],
      ['ts', 'TIMESTAMP(3) *ROWTIME*', 'TRUE', '', '', ''],
    ]);
  });

  it('SHOW CREATE TABLE gives DDL that creates the same table; SHOW CREATE VIEW the view', () => {
    const tEnv = fresh();
    tEnv.executeSql(`${ORDERS} CREATE VIEW v AS SELECT id FROM orders WHERE id > 2;`);
    const [ddl, view] = answer(tEnv, 'SHOW CREATE TABLE orders; SHOW CREATE VIEW v;');
    const text = ddl?.rows[0]?.[0] as string;
    expect(text).toContain('CREATE TABLE `default_catalog`.`default_database`.`orders` (');
    expect(text).toContain("WATERMARK FOR `ts` AS ts - INTERVAL '1' SECOND");
    expect(text).toContain("'number-of-rows' = '10'");
    expect(view?.rows[0]?.[0]).toBe(
      'CREATE VIEW `default_catalog`.`default_database`.`v` AS\nSELECT id FROM orders WHERE id > 2',
    );
    // The DDL shown makes the same table in another environment.
    const again = fresh();
    again.executeSql(`${text};`);
    expect(answer(again, 'DESCRIBE orders')[0]?.rows).toEqual(
      answer(tEnv, 'DESCRIBE orders')[0]?.rows,
    );
    expect(() => tEnv.executeSql('SHOW CREATE TABLE v')).toThrow(/'v' is a view/);
  });

  it('DROP TABLE / VIEW / FUNCTION, with IF EXISTS, and names with the catalog and database', () => {
    const tEnv = fresh();
    tEnv.executeSql(`${ORDERS} CREATE VIEW v AS SELECT id FROM orders;`);
    expect(() => tEnv.executeSql('DROP TABLE v')).toThrow(/'v' is a view: DROP VIEW drops it/);
    expect(() => tEnv.executeSql('DROP VIEW orders')).toThrow(/is a table/);
    expect(() => tEnv.executeSql('DROP TABLE missing')).toThrow(
      /line 1, column 1: table 'missing' does not exist/,
    );
    expect(() => tEnv.executeSql('DROP TEMPORARY TABLE orders')).toThrow(
      "temporary table 'orders' does not exist",
    );
    tEnv.executeSql(
      'DROP VIEW default_catalog.default_database.v; DROP TABLE IF EXISTS missing; DROP TEMPORARY TABLE IF EXISTS orders; DROP TABLE default_database.orders;',
    );
    expect(tEnv.listTables()).toEqual([]);
    expect(() => tEnv.executeSql('DROP FUNCTION nope')).toThrow(/function 'nope' does not exist/);
    tEnv.executeSql('DROP TEMPORARY SYSTEM FUNCTION IF EXISTS nope');
  });

  it('DESCRIBE CATALOG [EXTENDED], ALTER CATALOG and ALTER DATABASE; default_catalog dropped once not current', () => {
    const tEnv = fresh();
    tEnv.executeSql(
      "CREATE CATALOG c COMMENT 'mine' WITH ('type' = 'generic_in_memory', 'default-database' = 'main', 'x' = '1');",
    );
    expect(answer(tEnv, 'DESCRIBE CATALOG EXTENDED c')).toEqual([
      {
        statement: 'DESCRIBE CATALOG EXTENDED c',
        columns: ['info name', 'info value'],
        rows: [
          ['name', 'c'],
          ['type', 'generic_in_memory'],
          ['comment', 'mine'],
          ['option:default-database', 'main'],
          ['option:x', '1'],
        ],
      },
    ]);
    expect(answer(tEnv, 'DESC CATALOG default_catalog')[0]?.rows).toEqual([
      ['name', 'default_catalog'],
      ['type', 'generic_in_memory'],
      ['comment', ''],
    ]);
    tEnv.executeSql(
      "ALTER CATALOG c SET ('y' = '2'); ALTER CATALOG c RESET ('x'); ALTER CATALOG c COMMENT 'ours';",
    );
    expect(answer(tEnv, 'DESCRIBE CATALOG EXTENDED c')[0]?.rows.slice(2)).toEqual([
      ['comment', 'ours'],
      ['option:default-database', 'main'],
      ['option:y', '2'],
    ]);
    expect(() => tEnv.executeSql("ALTER CATALOG c SET ('type' = 'hive')")).toThrow(
      "ALTER CATALOG c does not support changing 'type'",
    );
    expect(() => tEnv.executeSql('DESCRIBE CATALOG nope')).toThrow("catalog 'nope' does not exist");
    tEnv.executeSql('USE CATALOG c');
    expect(answer(tEnv, 'SHOW CURRENT DATABASE')[0]?.rows).toEqual([['main']]);
    tEnv.executeSql("ALTER DATABASE main SET ('k' = 'v')");
    expect(() => tEnv.executeSql("ALTER DATABASE nope SET ('k' = 'v')")).toThrow(
      "database 'nope' does not exist",
    );
    tEnv.executeSql('DROP CATALOG default_catalog');
    expect(answer(tEnv, 'SHOW CATALOGS')[0]?.rows).toEqual([['c']]);
  });

  it('a temporary table or view hides a permanent one of its name until DROP TEMPORARY', () => {
    const tEnv = fresh();
    tEnv.executeSql(`${ORDERS}
      CREATE TEMPORARY VIEW orders AS SELECT 1 AS id;`);
    expect(() => tEnv.executeSql('CREATE TEMPORARY VIEW orders AS SELECT 1 AS x')).toThrow(
      "a temporary table or view named 'orders' already exists",
    );
    // The temporary view is what the name reads; the permanent table is still listed once.
    expect(answer(tEnv, 'DESCRIBE orders')[0]?.rows.map((r) => r[0])).toEqual(['id']);
    expect(tEnv.listTables()).toEqual(['orders']);
    expect(() => tEnv.executeSql('DROP TABLE orders')).toThrow(
      "a temporary view named 'orders' exists: drop it first (DROP TEMPORARY ...) before the permanent one",
    );
    tEnv.executeSql('DROP TEMPORARY VIEW orders');
    expect(answer(tEnv, 'DESCRIBE orders')[0]?.rows.length).toBeGreaterThan(1);
    tEnv.executeSql('DROP TABLE orders');
    expect(tEnv.listTables()).toEqual([]);
    // A view that reads itself (through the name a temporary view took) is refused, not looped.
    tEnv.executeSql(`${ORDERS} CREATE VIEW v AS SELECT id FROM orders;`);
    tEnv.executeSql('CREATE TEMPORARY VIEW orders AS SELECT id FROM v');
    expect(() => tEnv.sqlQuery('SELECT * FROM v')).toThrow(
      "view 'v' reads itself: v -> orders -> v",
    );
    tEnv.executeSql('DROP TEMPORARY VIEW orders; DROP VIEW v; DROP TABLE orders;');
    // A temporary object alone is dropped by either form.
    tEnv.executeSql('CREATE TEMPORARY VIEW t AS SELECT 1 AS x; DROP VIEW t;');
    expect(tEnv.listTables()).toEqual([]);
  });

  it('ALTER TABLE SET / RESET options and RENAME TO; ALTER VIEW AS and RENAME TO', () => {
    const tEnv = fresh();
    tEnv.executeSql(`${ORDERS} CREATE VIEW v AS SELECT id FROM orders;`);
    tEnv.executeSql(`ALTER TABLE orders SET ('number-of-rows' = '3', 'rows-per-second' = '5');
      ALTER TABLE orders RESET ('rows-per-second');`);
    const ddl = answer(tEnv, 'SHOW CREATE TABLE orders')[0]?.rows[0]?.[0] as string;
    expect(ddl).toContain("'number-of-rows' = '3'");
    expect(ddl).not.toContain('rows-per-second');
    expect(() => tEnv.executeSql("ALTER TABLE orders RESET ('connector')")).toThrow(
      /cannot remove the 'connector' option/,
    );
    expect(() => tEnv.executeSql("ALTER TABLE orders SET ('no-such-option' = '1')")).toThrow(
      /no-such-option/,
    );
    tEnv.executeSql(
      "ALTER TABLE orders RENAME TO purchases; ALTER TABLE IF EXISTS gone SET ('a' = 'b');",
    );
    expect(tEnv.listTables().sort()).toEqual(['purchases', 'v']);
    tEnv.executeSql('ALTER VIEW v AS SELECT id, amount FROM purchases; ALTER VIEW v RENAME TO w;');
    expect(answer(tEnv, 'DESCRIBE w')[0]?.rows.map((r) => r[0])).toEqual(['id', 'amount']);
    expect(() => tEnv.executeSql('ALTER VIEW purchases RENAME TO x')).toThrow(/is a table/);
  });

  it('ALTER TABLE ADD / MODIFY / DROP / RENAME columns, the watermark and the primary key', () => {
    const tEnv = fresh();
    tEnv.executeSql(ORDERS);
    const columns = () => answer(tEnv, 'DESCRIBE orders')[0]?.rows.map((r) => r.slice(0, 6));
    tEnv.executeSql(`ALTER TABLE orders ADD note STRING COMMENT 'free text';
      ALTER TABLE orders ADD (region STRING FIRST, qty INT AFTER id, total AS qty * 2);
      ALTER TABLE orders MODIFY note VARCHAR(20);
      ALTER TABLE orders RENAME note TO remark;`);
    expect(columns()?.map((r) => `${r[0]} ${r[1]}`)).toEqual([
      'region STRING',
      'id INT',
      'qty INT',
      'amount DECIMAL(10, 2)',
      'ts TIMESTAMP(3) *ROWTIME*',
      'loud STRING',
      'remark VARCHAR(20)',
      'total INT',
    ]);
    tEnv.executeSql(`ALTER TABLE orders MODIFY WATERMARK FOR ts AS ts - INTERVAL '5' SECOND;
      ALTER TABLE orders DROP PRIMARY KEY; ALTER TABLE orders ADD PRIMARY KEY (region) NOT ENFORCED;`);
    const ddl = answer(tEnv, 'SHOW CREATE TABLE orders')[0]?.rows[0]?.[0] as string;
    expect(ddl).toContain("WATERMARK FOR `ts` AS ts - INTERVAL '5' SECOND");
    expect(ddl).toContain('PRIMARY KEY (`region`) NOT ENFORCED');
    // What other parts read cannot go; what is not there cannot change.
    expect(() => tEnv.executeSql('ALTER TABLE orders DROP qty')).toThrow(
      "cannot drop column 'qty': computed column 'total' reads it",
    );
    expect(() => tEnv.executeSql('ALTER TABLE orders DROP ts')).toThrow(/the watermark reads it/);
    expect(() => tEnv.executeSql('ALTER TABLE orders RENAME region TO r')).toThrow(
      /in the primary key/,
    );
    expect(() => tEnv.executeSql('ALTER TABLE orders ADD id BIGINT')).toThrow(
      /already has a column 'id' \(MODIFY changes it\)/,
    );
    expect(() => tEnv.executeSql('ALTER TABLE orders MODIFY nope INT')).toThrow(
      /has no column 'nope'/,
    );
    expect(() =>
      tEnv.executeSql("ALTER TABLE orders ADD WATERMARK FOR ts AS ts - INTERVAL '1' SECOND"),
    ).toThrow(/has a watermark already/);
    tEnv.executeSql('ALTER TABLE orders DROP (total, remark); ALTER TABLE orders DROP WATERMARK;');
    expect(columns()?.map((r) => r[0])).toEqual(['region', 'id', 'qty', 'amount', 'ts', 'loud']);
    expect(columns()?.[4]?.[5]).toBe('');
  });

  it('CREATE VIEW with a column list renames the query columns, as Flink', () => {
    const tEnv = fresh();
    tEnv.executeSql(
      `${ORDERS} CREATE VIEW v (k, money) COMMENT 'renamed' AS SELECT id, amount FROM orders;`,
    );
    expect(answer(tEnv, 'DESCRIBE v')[0]?.rows.map((r) => r[0])).toEqual(['k', 'money']);
    expect(answer(tEnv, 'SHOW CREATE VIEW v')[0]?.rows[0]?.[0]).toBe(
      'CREATE VIEW `default_catalog`.`default_database`.`v` (`k`, `money`) AS\nSELECT id, amount FROM orders',
    );
    expect(() => tEnv.executeSql('CREATE VIEW w (a) AS SELECT id, amount FROM orders')).toThrow(
      /names 1 column, but the query has 2/,
    );
    tEnv.executeSql('ALTER VIEW v AS SELECT amount FROM orders');
    expect(answer(tEnv, 'DESCRIBE v')[0]?.rows.map((r) => r[0])).toEqual(['amount']);
  });

  it('RESET takes a SET option back (one, or all); a bare SET lists them', () => {
    const tEnv = fresh();
    tEnv.executeSql(
      "SET 'table.exec.mini-batch.enabled' = 'true'; SET 'pipeline.name' = 'x'; RESET 'pipeline.name';",
    );
    expect([...tEnv.options.keys()]).toEqual(['table.exec.mini-batch.enabled']);
    expect(answer(tEnv, 'SET')).toEqual([
      {
        statement: 'SET',
        columns: ['key', 'value'],
        rows: [['table.exec.mini-batch.enabled', 'true']],
      },
    ]);
    tEnv.executeSql('RESET;');
    expect(tEnv.options.size).toBe(0);
    expect(answer(tEnv, 'SET;')[0]?.rows).toEqual([]);
    // The older form without quotes: the key up to '=', the value up to the statement's end.
    tEnv.executeSql('SET pipeline.name = my job; SET table.exec.state.ttl = 1 h;');
    expect(answer(tEnv, 'SET')[0]?.rows).toEqual([
      ['pipeline.name', 'my job'],
      ['table.exec.state.ttl', '1 h'],
    ]);
    expect(() => tEnv.executeSql('SET pipeline.name')).toThrow(
      /expected '=' \(SET 'key' = 'value'\)/,
    );
  });

  it('a script reads the table a DROP and CREATE made last, and a renamed table by its new name', async () => {
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    const rows: Row[] = [];
    tEnv.executeSql(`
      CREATE TABLE t (x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '2', 'fields.x.min' = '1', 'fields.x.max' = '1');
      DROP TABLE t;
      CREATE TABLE t (x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3', 'fields.x.min' = '7', 'fields.x.max' = '7');
      ALTER TABLE t RENAME TO u;`);
    tEnv
      .sqlQuery('SELECT x FROM u')
      .toDataStream()
      .map((r) => {
        rows.push(r);
        return r;
      });
    await env.execute('catalog');
    expect(rows).toEqual([[7], [7], [7]]);
  });
});
