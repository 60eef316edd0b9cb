/**
 * The parser: every Nexmark text of the Flink peer parses; syntax errors and unsupported
 * features name their line and column; random and mutated statements give a SqlError or a
 * tree, never another exception.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { flinkPeerDir } from '../../bench/nexmark/flink-peer.js';
import { parseScript } from '../../src/sql/parser/parser.js';
import { SqlError } from '../../src/sql/sql-error.js';
import { nexmarkSourceSql } from './nexmark-sql.js';

const queries = join(flinkPeerDir(), 'src', 'main', 'resources', 'weir-nexmark', 'queries');
const texts = readdirSync(queries)
  .filter((f) => f.endsWith('.sql'))
  .map((f) => [f, readFileSync(join(queries, f), 'utf8')] as const);

function errorOf(sql: string): SqlError {
  try {
    parseScript(sql);
  } catch (e) {
    if (e instanceof SqlError) return e;
    throw e;
  }
  throw new Error(`parsed: ${sql}`);
}

describe('parser', () => {
  it('parses every Nexmark text of the Flink peer', () => {
    expect(parseScript(nexmarkSourceSql({ maxEvents: 10 })).map((s) => s.kind)).toEqual([
      'create-table',
      'create-view',
      'create-view',
      'create-view',
    ]);
    expect(texts.length).toBeGreaterThanOrEqual(21);
    for (const [, text] of texts) expect(parseScript(text).length).toBeGreaterThan(0);
  });

  it('reads LIMIT n OFFSET m and OFFSET m ROWS FETCH FIRST|NEXT n ROWS ONLY alike', () => {
    const ordered = (sql: string) => {
      const [statement] = parseScript(sql);
      if (statement?.kind !== 'query' || statement.query.kind !== 'ordered')
        throw new Error(`not an ordered query: ${sql}`);
      const { limit, offset } = statement.query;
      return [
        limit?.kind === 'number' ? limit.text : undefined,
        offset?.kind === 'number' ? offset.text : undefined,
      ];
    };
    expect(ordered('SELECT a FROM t ORDER BY a LIMIT 3 OFFSET 2')).toEqual(['3', '2']);
    expect(ordered('SELECT a FROM t ORDER BY a OFFSET 2 ROWS FETCH NEXT 3 ROWS ONLY')).toEqual([
      '3',
      '2',
    ]);
    expect(ordered('SELECT a FROM t ORDER BY a FETCH FIRST 1 ROW ONLY')).toEqual(['1', undefined]);
    expect(ordered('SELECT a FROM t OFFSET 1 ROW')).toEqual([undefined, '1']);
    expect(errorOf('SELECT a FROM t FETCH FIRST 3 ROWS').message).toMatch(/ONLY/);
    // Still a column name (a Kafka table's offset metadata), as long as it is no alias.
    expect(ordered('SELECT offset FROM t ORDER BY offset LIMIT 1 OFFSET 2')).toEqual(['1', '2']);
  });

  it('names the line and column of a syntax error', () => {
    const e = errorOf('SELECT auction,, price\nFROM bid');
    expect(e.position).toEqual({ line: 1, column: 16 });
    expect(e.message).toBe("line 1, column 16: expected an expression but found ','");
    expect(errorOf('SELECT a FROM t\nWHERE MOD(a 123) = 0').message).toBe(
      "line 2, column 13: expected ')' but found '123'",
    );
    expect(errorOf("SELECT 'abc FROM t").message).toBe(
      'line 1, column 8: string literal is never closed',
    );
    expect(errorOf('CREATE TABLE t (a INT) WITH (connector = 1)').message).toMatch(
      /^line 1, column 30: expected a string literal/,
    );
    expect(errorOf('SELECT a FROM t;\n  SELECT b FORM t').message).toBe(
      "line 2, column 17: expected ';' or end of input but found 't'",
    );
  });

  it('names unsupported features with their position', () => {
    expect(errorOf('DROP SCHEMA s').message).toBe(
      "line 1, column 6: expected TABLE, VIEW, FUNCTION, DATABASE or CATALOG but found 'SCHEMA'",
    );
    expect(errorOf('ALTER TABLE t ADD DISTRIBUTION BY HASH(a)').message).toMatch(
      /^line 1, column 32: expected a data type but found 'BY'/,
    );
    expect(errorOf('SHOW JOBS').message).toBe(
      'line 1, column 6: SHOW JOBS is not supported by Weir SQL yet',
    );
  });

  it('never fails with anything but a SqlError on random or mutated input', () => {
    const corpus = texts.map(([, t]) => t);
    const mutated = fc
      .tuple(fc.constantFrom(...corpus), fc.nat(), fc.nat({ max: 20 }), fc.string({ maxLength: 5 }))
      .map(([text, at, cut, insert]) => {
        const i = at % (text.length + 1);
        return text.slice(0, i) + insert + text.slice(i + cut);
      });
    const tokens = fc
      .array(
        fc.constantFrom(
          'SELECT',
          'FROM',
          'WHERE',
          '(',
          ')',
          ',',
          'a',
          "'x'",
          '1',
          '*',
          'TABLE',
          'GROUP',
          'BY',
          'AS',
          '=',
          'CAST',
          'INTERVAL',
          ';',
          'CREATE',
          'WITH',
          '`q`',
          '.',
          '-',
          'CASE',
          'END',
        ),
        { maxLength: 30 },
      )
      .map((t) => t.join(' '));
    fc.assert(
      fc.property(fc.oneof(mutated, tokens, fc.string({ maxLength: 60 })), (sql) => {
        try {
          parseScript(sql);
        } catch (e) {
          if (!(e instanceof SqlError)) throw e;
          expect(e.position?.line).toBeGreaterThanOrEqual(1);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
