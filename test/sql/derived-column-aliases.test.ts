/**
 * Column alias lists in FROM, `[AS] alias(column, ...)` after a subquery, VALUES or a table (as
 * in Flink, whose Calcite parser takes them): the columns are renamed in order, in joins too;
 * a list of another length than the columns', or with a name twice, is refused with its place.
 */
import { describe, expect, it } from 'vitest';
import { SqlError, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { parseScript } from '../../src/sql/parser/parser.js';
import { finalRows, valuesView } from './query-changes.js';

function refusal(setup: string, sql: string): SqlError {
  const tEnv = TableEnvironment.create(new StreamEnvironment());
  if (setup !== '') tEnv.executeSql(setup);
  try {
    tEnv.sqlQuery(sql);
  } catch (e) {
    if (e instanceof SqlError) return e;
    throw e;
  }
  throw new Error(`no error for ${sql}`);
}

/** `line 1, column N` of the first `(` after `marker` in `sql`. */
function listAt(sql: string, marker: string): string {
  return `line 1, column ${sql.indexOf('(', sql.indexOf(marker)) + 1}`;
}

/** t (k, v): (1, 10), (2, 20), (NULL, 30), (2, 40). */
const T = valuesView([
  [1, 10],
  [2, 20],
  [null, 30],
  [2, 40],
]);

describe('column alias lists on derived tables', () => {
  it('renames the columns of VALUES (Flink: SELECT * FROM (VALUES (1,...),(2,...)) AS T(a, b))', async () => {
    const sql = "SELECT * FROM (VALUES (1,'a'),(2,'b')) AS T(a, b)";
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    expect(tEnv.sqlQuery(sql).columns).toEqual([
      { name: 'a', type: 'INT NOT NULL' },
      { name: 'b', type: 'CHAR(1) NOT NULL' },
    ]);
    const rows = await finalRows(
      '',
      [sql, "SELECT T.b, a * 10 FROM (VALUES (1,'a'),(2,'b')) T(a, b) WHERE T.a > 1"],
      1,
    );
    expect(rows).toEqual([['[1,"a"]', '[2,"b"]'], ['["b",20]']]);
  });

  it('renames the columns of a subquery and of a table, for every later clause', async () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    tEnv.executeSql(T);
    expect(tEnv.sqlQuery('SELECT * FROM t AS x(a, b)').columns.map((c) => c.name)).toEqual([
      'a',
      'b',
    ]);
    const rows = await finalRows(
      T,
      [
        'SELECT x + y AS s FROM (SELECT k, v FROM t WHERE v > 10) AS s(x, y)',
        'SELECT x, SUM(y) FROM (SELECT k, v FROM t) AS s(x, y) GROUP BY x',
        'SELECT x.b, x.a FROM t AS x(a, b) WHERE a = 2',
        'SELECT * FROM t x(a, b) WHERE b < 20',
      ],
      2,
    );
    expect(rows).toEqual([
      ['[22]', '[42]', '[null]'],
      ['[1,10]', '[2,60]', '[null,30]'],
      ['[20,2]', '[40,2]'],
      ['[1,10]'],
    ]);
  });

  it('renames both sides of a join', async () => {
    const rows = await finalRows(
      T,
      [
        `SELECT l.a, l.b, r.c, r.d
         FROM (VALUES (1,'x'),(2,'y'),(3,'z')) AS l(a, b)
         JOIN (VALUES (2,'p'),(1,'q'),(2,'r')) AS r(c, d) ON l.a = r.c`,
        `SELECT a, w FROM (VALUES (1,'x'),(2,'y')) AS l(a, b)
         LEFT JOIN t AS r(key, w) ON l.a = r.key`,
      ],
      2,
    );
    expect(rows).toEqual([
      ['[1,"x",1,"q"]', '[2,"y",2,"p"]', '[2,"y",2,"r"]'],
      ['[1,10]', '[2,20]', '[2,40]'],
    ]);
  });

  it('parses the list after the alias of a subquery or table, and leaves the AST alone without one', () => {
    const fromOf = (sql: string) => {
      const [s] = parseScript(sql);
      return s?.kind === 'query' && s.query.kind === 'select' ? s.query.from : undefined;
    };
    const sub = fromOf('SELECT * FROM (VALUES (1, 2)) AS v(a, b)');
    expect(sub?.kind === 'subquery' && sub.columns).toEqual({
      names: ['a', 'b'],
      at: { line: 1, column: 35 },
    });
    const table = fromOf('SELECT * FROM t x(a)');
    expect(table?.kind === 'table' && table.columns?.names).toEqual(['a']);
    expect(fromOf('SELECT * FROM t x')).not.toHaveProperty('columns');
    expect(fromOf('SELECT * FROM (SELECT 1) AS s')).not.toHaveProperty('columns');
  });

  it('refuses a list of another length than the columns, or with a name twice, at the list', () => {
    const fewer = "SELECT * FROM (VALUES (1,'a'),(2,'b')) AS T(a)";
    const e = refusal('', fewer);
    expect(e.message).toBe(
      `${listAt(fewer, 'AS T')}: the column alias list T(a) names 1 column, but the query has 2 (EXPR$0, EXPR$1)`,
    );
    expect(e.position).toEqual({ line: 1, column: fewer.indexOf('(a)') + 1 });
    const more = 'SELECT * FROM t AS x(a, b, c)';
    expect(refusal(T, more).message).toBe(
      `${listAt(more, 'AS x')}: the column alias list x(a, b, c) names 3 columns, but table 't' has 2 (k, v)`,
    );
    const twice = 'SELECT * FROM (SELECT k, v FROM t) AS s(a, a)';
    expect(refusal(T, twice).message).toBe(
      `${listAt(twice, 'AS s')}: duplicate name 'a' in the column alias list`,
    );
    // The old names are gone.
    expect(refusal('', 'SELECT EXPR$0 FROM (VALUES (1, 2)) AS v(a, b)').message).toMatch(
      /^line 1, column 8: column 'EXPR\$0' not found/,
    );
    // A list needs an alias before it.
    expect(() => parseScript('SELECT * FROM (VALUES (1, 2)) (a, b)')).toThrow(SqlError);
  });
});
