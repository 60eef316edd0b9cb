/**
 * The filesystem connector's METADATA columns, Flink's keys (`file.path`, `file.name`,
 * `file.size`, `file.modification-time`): every row carries the facts of the file it was read
 * from, checked against the files themselves; partition columns and metadata together; a table
 * that is written to declares them VIRTUAL, and its part files hold only the physical columns.
 * The cases of Flink's FileSystemITCaseBase (testReadAllMetadata, testNonPartitionWithMetadata,
 * testAllStaticPartitionsWithMetadata), with the rows computed from the files here.
 */
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CollectSink, type Row, StreamEnvironment, TableEnvironment } from '../../src/index.js';

const root = mkdtempSync(join(tmpdir(), 'weir-fs-metadata-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let dirs = 0;
function freshDir(): string {
  const dir = join(root, `d${++dirs}`);
  mkdirSync(dir);
  return dir;
}

/** Writes `rows` of (x, y) into `file` in the format, with the given modification time. */
function writeRows(
  file: string,
  format: string,
  rows: readonly (readonly [string, number])[],
  mtime: Date,
) {
  const lines = rows.map(([x, y]) => (format === 'csv' ? `${x},${y}` : JSON.stringify({ x, y })));
  writeFileSync(file, `${lines.join('\n')}\n`);
  utimesSync(file, mtime, mtime);
}

/** The rows of `query`, as values. */
async function rowsOf(setup: string, query: string): Promise<Row[]> {
  const env = new StreamEnvironment({ parallelism: 2 });
  const tEnv = TableEnvironment.create(env);
  tEnv.executeSql(setup);
  const sink = new CollectSink<Row>();
  tEnv.sqlQuery(query).toDataStream().sinkTo(sink);
  await env.execute('read');
  return [...sink.values].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

const sortRows = (rows: Row[]) =>
  [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

/** What the file system says of `file`: path, name, size and modification time (ms). */
function facts(file: string): [string, string, number, number] {
  const s = statSync(file, { bigint: true });
  return [resolve(file), basename(file), Number(s.size), Number(s.mtimeNs / 1_000_000n)];
}

describe.each(['csv', 'json'])('filesystem METADATA columns (%s)', (format) => {
  const fs = (path: string) =>
    `'connector' = 'filesystem', 'path' = 'file://${path}', 'format' = '${format}'`;

  it('reads every key: each row has the path, name, size and modification time of its file', async () => {
    const dir = freshDir();
    const first = join(dir, 'first.data');
    const second = join(dir, 'second.data');
    writeRows(
      first,
      format,
      [
        ['a', 1],
        ['b', 2],
      ],
      new Date('2024-03-01T10:00:00Z'),
    );
    writeRows(second, format, [['c', 3]], new Date('2025-07-15T23:59:59Z'));
    const rows = await rowsOf(
      `CREATE TABLE t (
         x STRING,
         \`file.path\` STRING NOT NULL METADATA,
         name STRING METADATA FROM 'file.name' VIRTUAL,
         y INT,
         size BIGINT METADATA FROM 'file.size',
         modified TIMESTAMP_LTZ(3) METADATA FROM 'file.modification-time'
       ) WITH (${fs(dir)})`,
      'SELECT x, y, `file.path`, name, size, modified FROM t',
    );
    const of = (file: string, x: string, y: number) => {
      const [path, name, size, modified] = facts(file);
      return [x, y, path, name, size, modified];
    };
    expect(rows).toEqual(sortRows([of(first, 'a', 1), of(first, 'b', 2), of(second, 'c', 3)]));
    expect(rows[0]![5]).toBe(Date.parse('2024-03-01T10:00:00Z'));
  });

  it('reads partition columns and metadata together', async () => {
    const dir = freshDir();
    for (const a of [1, 2]) {
      mkdirSync(join(dir, `a=${a}`));
      writeRows(join(dir, `a=${a}`, 'part-0'), format, [[`x${a}`, a * 10]], new Date());
    }
    const rows = await rowsOf(
      `CREATE TABLE t (x STRING, y INT, a INT, f STRING METADATA FROM 'file.path' VIRTUAL)
         PARTITIONED BY (a) WITH (${fs(dir)})`,
      'SELECT a, x, y, f FROM t WHERE a = 2',
    );
    expect(rows).toEqual([[2, 'x2', 20, resolve(join(dir, 'a=2', 'part-0'))]]);
  });

  it('writes the physical columns of a table with VIRTUAL metadata, which reading it then fills', async () => {
    const dir = freshDir();
    const table = `CREATE TABLE t (x STRING, y INT, f STRING METADATA FROM 'file.name' VIRTUAL)
      PARTITIONED BY (y) WITH (${fs(dir)})`;
    const tEnv = TableEnvironment.create(new StreamEnvironment({ parallelism: 1 }));
    tEnv.executeSql(table);
    await tEnv.executeSql("INSERT INTO t SELECT 'k', 7").job?.result;
    const written = readdirSync(join(dir, 'y=7')).filter((f) => !f.startsWith('.'));
    expect(written).toHaveLength(1);
    const rows = await rowsOf(table, 'SELECT x, y, f FROM t');
    expect(rows).toEqual([['k', 7, written[0]]]);
  });
});

describe('filesystem METADATA columns: refused', () => {
  const fs = (path: string) => `'connector' = 'filesystem', 'path' = '${path}', 'format' = 'csv'`;
  const tEnv = () => TableEnvironment.create(new StreamEnvironment({ parallelism: 1 }));

  it('a key the connector does not have, naming the ones it has', () => {
    expect(() =>
      tEnv().executeSql(
        `CREATE TABLE t (x STRING, o BIGINT METADATA FROM 'offset') WITH (${fs(freshDir())})`,
      ),
    ).toThrow(
      "column 'o': connector 'filesystem' has no metadata key 'offset'; allowed: file.path, file.name, file.size, file.modification-time",
    );
  });

  it('a column of another type than the key', () => {
    expect(() =>
      tEnv().executeSql(
        `CREATE TABLE t (x STRING, s INT METADATA FROM 'file.size') WITH (${fs(freshDir())})`,
      ),
    ).toThrow("column 's': metadata 'file.size' is BIGINT, not INT");
  });

  it('a metadata column as a partition', () => {
    expect(() =>
      tEnv().executeSql(
        `CREATE TABLE t (x STRING, n STRING METADATA FROM 'file.name') PARTITIONED BY (n) WITH (${fs(freshDir())})`,
      ),
    ).toThrow("PARTITIONED BY 'n': a METADATA column cannot be a partition");
  });

  it('INSERT INTO a table whose metadata column is not VIRTUAL', () => {
    const t = tEnv();
    t.executeSql(
      `CREATE TABLE t (x STRING, n STRING METADATA FROM 'file.name') WITH (${fs(freshDir())})`,
    );
    expect(() => t.executeSql("INSERT INTO t SELECT 'a', 'b'")).toThrow(
      "table 't': metadata column 'n' cannot be written; declare it METADATA VIRTUAL",
    );
  });
});
