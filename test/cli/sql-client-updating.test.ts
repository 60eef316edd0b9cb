/**
 * The interactive `weir sql` client runs updating queries (GROUP BY, Top-N, outer joins): on a
 * pipe it prints each change (`+I`, `-U`, `+U`, `-D`) as a line; on a terminal it applies them
 * to the result table, retracting rows in a retract changelog and replacing and deleting rows
 * by their key in an upsert one (which has no `-U`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MaterializedResult } from '../../src/cli/sql-client/result-view.js';
import { runSqlClient } from '../../src/cli/sql-client/sql-client.js';
import type { Change } from '../../src/core/changelog.js';
import type { Row, SqlConnector } from '../../src/sql/connectors/connector.js';
import { registerSqlConnectors } from '../../src/sql/connectors/registry.js';
import { sqlClientOnPipe } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'weir-sql-client-updating-'));
const orders = join(dir, 'orders.jsonl');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(() => {
  writeFileSync(
    orders,
    [
      { id: 1, customer: 'alice', amount: '10.00', ts: '2024-01-01 10:00:00' },
      { id: 2, customer: 'bob', amount: '20.50', ts: '2024-01-01 10:01:00' },
      { id: 3, customer: 'alice', amount: '5.25', ts: '2024-01-01 10:02:00' },
      { id: 4, customer: 'carol', amount: '7.00', ts: '2024-01-01 10:03:00' },
      { id: 5, customer: 'bob', amount: '1.00', ts: '2024-01-01 10:04:00' },
    ]
      .map((o) => JSON.stringify(o))
      .join('\n')
      .concat('\n'),
  );
  // An upsert changelog without Kafka: `+U` replaces the row of its key, `-D` (only the key
  // set, as an upsert-kafka tombstone) deletes it.
  const changes: Change<Row>[] = [
    { kind: '+I', value: [1, 'ann', 10] },
    { kind: '+I', value: [2, 'bob', 20] },
    { kind: '+U', value: [1, 'ann', 15] },
    { kind: '+I', value: [3, 'cy', 30] },
    { kind: '-D', value: [2, null, null] },
    { kind: '+U', value: [3, 'cy', 35] },
  ];
  const upsert: SqlConnector = {
    name: 'test-upsert',
    options: [],
    changelogSource: (_table, env) => ({
      changes: env.fromArray(changes, 'accounts'),
      mode: 'upsert',
    }),
  };
  registerSqlConnectors([upsert]);
});

const ORDERS = `CREATE TABLE orders (id BIGINT, customer STRING, amount DECIMAL(10,2), ts TIMESTAMP(3)) WITH ('connector'='filesystem','path'='${orders}','format'='json');`;
const GROUP_BY =
  'SELECT customer, COUNT(*) AS n, SUM(amount) AS total FROM orders GROUP BY customer;';
const TOP_N =
  'SELECT customer, id, amount FROM (SELECT id, customer, amount, ROW_NUMBER() OVER (PARTITION BY customer ORDER BY amount ASC) AS rn FROM orders) WHERE rn <= 1;';
const ACCOUNTS =
  "CREATE TABLE accounts (id INT, owner STRING, balance INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector'='test-upsert');";

/** The real CLI on a pipe, with `input` on stdin. */
function cliOnPipe(input: string): ReturnType<typeof sqlClientOnPipe> {
  return sqlClientOnPipe(input, join(dir, 'history'));
}

/** The client in this process, on a terminal or a pipe; resolves with what it wrote. */
async function clientInProcess(input: string, tty: boolean): Promise<string> {
  const stdin = Object.assign(new PassThrough(), { isTTY: tty });
  let text = '';
  const stdout = Object.assign(
    new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        text += chunk.toString();
        done();
      },
    }),
    { isTTY: tty, rows: 30, columns: 120 },
  );
  stdin.end(input);
  const previous = process.env.WEIR_SQL_HISTORY;
  process.env.WEIR_SQL_HISTORY = join(dir, 'history');
  try {
    expect(await runSqlClient({ stdin, stdout })).toBe(0);
  } finally {
    if (previous === undefined) delete process.env.WEIR_SQL_HISTORY;
    else process.env.WEIR_SQL_HISTORY = previous;
  }
  return text;
}

/** The rows of the last result table a terminal client drew, as trimmed cells. */
function lastTable(output: string): string[][] {
  const screen = output.split('\x1b[2J\x1b[H').at(-1) ?? '';
  const lines = screen.split('\n');
  const end = lines.findIndex((l) => l.startsWith('rows: '));
  return lines.slice(2, end).map((l) => l.split(' | ').map((c) => c.trim()));
}

const changeLines = (stdout: string) => stdout.split('\n').filter((l) => /^[+-][IUD]\[/.test(l));

describe('weir sql: updating queries on a pipe', () => {
  it('prints the changes of a GROUP BY, a Top-N and an outer join', async () => {
    const { code, stdout, stderr } = await cliOnPipe(
      [
        ORDERS,
        GROUP_BY,
        TOP_N,
        'SELECT o.id, p.id FROM orders o LEFT JOIN orders p ON o.id = p.id + 4;',
        'QUIT;',
      ].join('\n'),
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).not.toContain('[ERROR]');
    expect(stdout.match(/\[INFO\] Query finished/g)).toHaveLength(3);
    const [groupBy, topN, join_] = stdout
      .split('[INFO] Query finished')
      .slice(0, 3)
      .map(changeLines);
    expect(groupBy).toEqual([
      '+I[alice, 1, 10.00]',
      '+I[bob, 1, 20.50]',
      '-U[alice, 1, 10.00]',
      '+U[alice, 2, 15.25]',
      '+I[carol, 1, 7.00]',
      '-U[bob, 1, 20.50]',
      '+U[bob, 2, 21.50]',
    ]);
    // Without the row number, as Flink's Top-N: the row pushed out `-D`, the new one `+I`.
    expect(topN).toEqual([
      '+I[alice, 1, 10.00]',
      '+I[bob, 2, 20.50]',
      '-D[alice, 1, 10.00]',
      '+I[alice, 3, 5.25]',
      '+I[carol, 4, 7.00]',
      '-D[bob, 2, 20.50]',
      '+I[bob, 5, 1.00]',
    ]);
    // Order 5's null-padded row, if it came before its match, is deleted when the match does.
    const left = new Map<string, number>();
    for (const line of join_ ?? []) {
      const row = line.slice(2);
      left.set(row, (left.get(row) ?? 0) + (line.startsWith('+') ? 1 : -1));
    }
    expect([...left].filter(([, n]) => n !== 0)).toEqual(
      expect.arrayContaining([
        ['[1, <NULL>]', 1],
        ['[4, <NULL>]', 1],
        ['[5, 1]', 1],
      ]),
    );
    expect([...left].filter(([, n]) => n !== 0)).toHaveLength(5);
    expect(left.get('[5, <NULL>]') ?? 0).toBe(0);
  }, 120_000);

  it('prints an upsert changelog as it comes, without update-befores', async () => {
    const out = await clientInProcess(`${ACCOUNTS}\nSELECT * FROM accounts;\n`, false);
    expect(out).not.toContain('[ERROR]');
    expect(changeLines(out)).toEqual([
      '+I[1, ann, 10]',
      '+I[2, bob, 20]',
      '+U[1, ann, 15]',
      '+I[3, cy, 30]',
      '-D[2, <NULL>, <NULL>]',
      '+U[3, cy, 35]',
    ]);
  }, 60_000);
});

describe('weir sql: updating queries on a terminal', () => {
  it('applies the retract changes of a GROUP BY and a Top-N to the result table', async () => {
    const groupBy = await clientInProcess(`${ORDERS}\n${GROUP_BY}\n`, true);
    expect(groupBy).toContain('[INFO] Query finished');
    expect(groupBy).not.toContain('[ERROR]');
    expect(lastTable(groupBy)).toEqual([
      ['alice', '2', '15.25'],
      ['carol', '1', '7.00'],
      ['bob', '2', '21.50'],
    ]);
    expect(groupBy).toContain('rows: 3, changes: 7');

    const topN = await clientInProcess(`${ORDERS}\n${TOP_N}\n`, true);
    expect(topN).not.toContain('[ERROR]');
    expect(lastTable(topN)).toEqual([
      ['alice', '3', '5.25'],
      ['carol', '4', '7.00'],
      ['bob', '5', '1.00'],
    ]);
  }, 60_000);

  it('replaces and deletes rows by key for an upsert changelog', async () => {
    const out = await clientInProcess(`${ACCOUNTS}\nSELECT * FROM accounts;\n`, true);
    expect(out).not.toContain('[ERROR]');
    expect(lastTable(out)).toEqual([
      ['1', 'ann', '15'],
      ['3', 'cy', '35'],
    ]);
    expect(out).toContain('rows: 2, changes: 6');
  }, 60_000);
});

describe('result table under an upsert key', () => {
  it('replaces the row of a key in place and deletes it by key alone', () => {
    const view = new MaterializedResult();
    view.apply({ kind: '+I', value: ['a', '1'] }, 'a');
    view.apply({ kind: '+I', value: ['b', '2'] }, 'b');
    view.apply({ kind: '+U', value: ['a', '3'] }, 'a');
    view.apply({ kind: '-D', value: ['b', ''] }, 'b');
    view.apply({ kind: '+U', value: ['c', '4'] }, 'c');
    const columns = [
      { name: 'k', type: 'STRING' },
      { name: 'v', type: 'STRING' },
    ];
    expect(view.render(columns, 10).split('\n').slice(2)).toEqual(['a | 3', 'c | 4']);
    expect(view.size).toBe(2);
  });
});
