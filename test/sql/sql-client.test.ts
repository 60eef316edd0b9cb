/**
 * The interactive `weir sql` client, driven through the stdin and stdout of the real CLI
 * process (a pipe, so the client prints changes as `+I[...]` lines): statements over several
 * lines and several on one line, SHOW, DESCRIBE, EXPLAIN, a query's rows, and errors with
 * their position that leave the client running.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sqlClientOnPipe } from '../cli/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'weir-sql-client-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the client with `input` on stdin; resolves with its exit code and output. */
function client(input: string): ReturnType<typeof sqlClientOnPipe> {
  return sqlClientOnPipe(input, join(dir, 'history'));
}

describe('weir sql (interactive client)', () => {
  it('runs statements typed over several lines and shows results, plans and errors', async () => {
    const { code, stdout, stderr } = await client(
      [
        'CREATE TABLE nums (',
        "  n INT, label STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '5',",
        "  'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '5');",
        'CREATE VIEW evens AS SELECT n, n * 10 AS tens FROM nums WHERE MOD(n, 2) = 0; SHOW TABLES;',
        'DESCRIBE nums;',
        'SELECT n, tens',
        'FROM evens;',
        'SELECT nope FROM nums;',
        'SELEC 1;',
        'EXPLAIN SELECT n FROM evens;',
        'SHOW FUNCTIONS;',
        'QUIT;',
      ].join('\n'),
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    expect(lines.filter((l) => l.startsWith('[INFO] Execute'))).toHaveLength(2);
    // SHOW TABLES and DESCRIBE.
    expect(stdout).toContain(
      '+------------+\n| table name |\n+------------+\n| evens      |\n| nums       |\n+------------+\n2 rows in set\n',
    );
    expect(stdout).toMatch(/\| n +\| INT +\| TRUE +\|/);
    expect(stdout).toMatch(/\| label +\| STRING +\| TRUE +\|/);
    // The query's rows, as changes.
    expect(lines.filter((l) => l.startsWith('+I'))).toEqual(['+I[2, 20]', '+I[4, 40]']);
    expect(stdout).toContain('[INFO] Query finished');
    // Errors name line and column, and the client goes on.
    expect(stdout).toMatch(/\[ERROR\] line 1, column 8: .*nope/);
    expect(stdout).toMatch(/\[ERROR\] line 1, column 1: .*SELEC/);
    expect(stdout).toContain('== Result ==');
    expect(lines.some((l) => /^\| UPPER +\|$/.test(l))).toBe(true);
  }, 120_000);

  it('runs CREATE TABLE ... AS SELECT as a job and keeps the table it made', async () => {
    const { code, stdout, stderr } = await client(
      [
        "CREATE TABLE nums (n INT) WITH ('connector' = 'datagen', 'number-of-rows' = '4',",
        "  'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '4');",
        "CREATE TABLE squares WITH ('connector' = 'blackhole') AS SELECT n, n * n AS sq FROM nums;",
        'DESCRIBE squares;',
        "CREATE TABLE IF NOT EXISTS squares WITH ('connector' = 'blackhole') AS SELECT n, n FROM nums;",
        'SELECT sq FROM squares;',
        'QUIT;',
      ].join('\n'),
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout.match(/\[INFO\] Submitted job \S+/g)).toHaveLength(2);
    expect(stdout).toMatch(/\| n +\| INT +\| TRUE +\| +\| +\| +\|\n\| sq +\| INT +\|/);
    // The session knows the table (not the query): blackhole cannot be read, and says so.
    expect(stdout).toMatch(/\[ERROR\] .*blackhole/);
  }, 120_000);
});
