/**
 * Scenarios of Flink's filesystem table connector integration tests, run on real files in
 * temporary directories with Flink's `filesystem` options, tables and expected rows. Each
 * INSERT is a bounded job of its own (its files committed by the final checkpoint), each read
 * another job over the directory the INSERT wrote; rows are compared as Flink's test sinks
 * print them (`x1,1`), and the part files' lines are checked as well.
 *
 * flink-table-planner .../runtime/FileSystemITCaseBase, run in streaming mode as
 * StreamFileSystemITCaseBase runs it (StreamFileSystemTestCsvITCase: Flink's `testcsv` test
 * format). Every case runs once with `'format' = 'csv'` and once with `'format' = 'json'`:
 * - testSelectDecimalWithPrecisionTenAndZeroFromFileSystem,
 *   testSelectDecimalWithPrecisionThreeAndTwoFromFileSystem: ported (INSERT with a column
 *   list, which Weir refused before: now supported).
 * - testAllStaticPartitions1, testAllStaticPartitions2, testPartialDynamicPartition: ported
 *   (INSERT INTO ... PARTITION (a = '1', b = '1'), which Weir refused before: now supported);
 *   added: the partition directories and the part files' lines (no partition columns).
 * - testDynamicPartition (partition pruning, a filter on the computed column c = b + 1),
 *   testPartitionWithHiddenFile (a file inside the hidden `a=1/.b=2` is not read, added to
 *   Flink's empty directory), testNonPartition, testFilterPushDown, testProjectPushDown:
 *   ported.
 * - testLimitPushDown: ported (parallelism 1, so the first three rows of the file).
 * - testInsertAppend: ported; Weir's second job replaced the first job's part files (both
 *   named after checkpoint 1): fixed, part files carry the run of the job that wrote them.
 * - testInsertOverwrite: not ported: StreamFileSystemITCaseBase skips it (no INSERT OVERWRITE
 *   in streaming mode); added instead: Weir refuses INSERT OVERWRITE.
 * - testAllStaticPartitionsWithMetadata, testNonPartitionWithMetadata, testReadAllMetadata:
 *   Weir had no filesystem METADATA columns; now it has Flink's four keys, tested in
 *   filesystem-metadata.test.ts with rows computed from the files.
 *
 * flink-table-planner .../runtime/stream/FsStreamingSinkITCaseBase (FsStreamingSinkTestCsvITCase,
 * `testcsv`; here csv), parallelism 1, checkpoints every 100 ms, Flink's rows as a VALUES view
 * (Flink's FiniteTestSource, a Java SourceFunction waiting for two checkpoints, is a bounded
 * source here):
 * - testNonPart, testPart: ported, with 'partition.time-extractor.kind',
 *   'partition.time-extractor.timestamp-formatter' and 'sink.partition-commit.success-file.name'
 *   (`_MY_SUCCESS`), options Weir lacked: now supported. With a process-time delay of an hour
 *   Flink commits every partition when the bounded input ends; Weir committed none: fixed.
 *   Added: an unpartitioned table gets no success file (Flink commits partitions only; Weir
 *   wrote one into the table's directory: fixed).
 * - testPartitionWithBasicDate: ported ('partition-time' trigger, `$d` read with `yyyyMMdd`,
 *   a delay of a day). Adapted: the rows carry no event time here (a VALUES view, where
 *   Flink's source emits a watermark per row), so both partitions are committed by the end of
 *   the input, as Flink's are by its final watermark.
 * - testMetastorePolicy: ported: the 'metastore' policy is refused with Flink's message (when
 *   the table is created rather than when the INSERT is planned).
 *
 * Added beyond Flink's cases: INSERT errors of the PARTITION spec and column list, and a column
 * list leaving columns NULL; partitions committed while an unbounded job runs (a watched source
 * directory, process-time with no delay), each with its rows, also rows arriving later in a
 * committed partition. Weir wrote a partition's success file at the first checkpoint completed after
 * the partition's first row even when that row came after the checkpoint's barrier, before any
 * file of it was committed (an empty partition announced complete): fixed, a partition is committed once a checkpoint has committed files of it.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CollectSink, type Row, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { flinkText, valuesView } from './flink-scenario-runner.js';

const root = mkdtempSync(join(tmpdir(), 'weir-flink-fs-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let dirs = 0;
/** A fresh empty directory under the test's root. */
function freshDir(): string {
  dirs++;
  const dir = join(root, `d${dirs}`);
  mkdirSync(dir);
  return dir;
}

/** Flink's FileSystemITCaseBase.data_with_partitions: (x STRING, y INT, a INT, b BIGINT). */
const PARTITION_SPREAD: readonly (readonly [number, number])[] = [
  [1, 1],
  [1, 1],
  [1, 1],
  [1, 1],
  [1, 1],
  [1, 2],
  [1, 2],
  [1, 2],
  [1, 2],
  [1, 2],
  [2, 1],
  [2, 1],
  [2, 1],
  [2, 1],
  [2, 1],
  [2, 2],
  [3, 1],
  [3, 2],
  [3, 3],
  [4, 1],
  [4, 2],
  [4, 3],
  [4, 4],
  [5, 1],
  [5, 2],
  [5, 3],
  [5, 4],
];
const DATA_WITH_PARTITIONS = PARTITION_SPREAD.map(([a, b], i) => [`x${i + 1}`, i + 1, a, b]);
const ORIGINAL_T = valuesView(
  'originalT',
  [
    ['x', 'STRING'],
    ['y', 'INT'],
    ['a', 'INT'],
    ['b', 'BIGINT'],
  ],
  DATA_WITH_PARTITIONS,
);

/** `x,y` of the rows of originalT with these partition values. */
function xyOf(where: (a: number, b: number) => boolean): string[] {
  return DATA_WITH_PARTITIONS.filter((r) => where(r[2] as number, r[3] as number)).map(
    (r) => `${r[0]},${r[1]}`,
  );
}
const DATA_PARTITION_1_1 = xyOf((a, b) => a === 1 && b === 1);
const DATA_PARTITION_2_1 = xyOf((a, b) => a === 2 && b === 1);

/** Flink's tables of FileSystemITCaseBase.open(), all on one directory as there. */
function fsTables(path: string, format: string): string {
  const fs = `'connector' = 'filesystem', 'path' = 'file://${path}', 'format' = '${format}'`;
  return `${ORIGINAL_T}
    CREATE TABLE partitionedTable (x STRING, y INT, a INT, b BIGINT, c AS b + 1)
      PARTITIONED BY (a, b) WITH (${fs});
    CREATE TABLE nonPartitionedTable (x STRING, y INT, a INT, b BIGINT) WITH (${fs});
    CREATE TABLE hasDecimalFieldWithPrecisionTenAndZeroTable (x DECIMAL(10, 0), y INT)
      WITH (${fs});
    CREATE TABLE hasDecimalFieldWithPrecisionThreeAndTwoTable (x DECIMAL(3, 2), y INT)
      WITH (${fs});`;
}

/** Runs `script` (DDL, then INSERTs) as a bounded job to its end. */
async function runInsert(setup: string, script: string, parallelism = 2): Promise<void> {
  const tEnv = TableEnvironment.create(new StreamEnvironment({ parallelism }));
  tEnv.executeSql(setup);
  const result = tEnv.executeSql(script);
  expect(result.job).toBeDefined();
  await result.job?.result;
}

/** The rows of `query` in another job, as Flink's test sink prints them, sorted. */
async function readRows(setup: string, query: string, parallelism = 2): Promise<string[]> {
  const env = new StreamEnvironment({ parallelism });
  const tEnv = TableEnvironment.create(env);
  tEnv.executeSql(setup);
  const table = tEnv.sqlQuery(query);
  const sink = new CollectSink<Row>();
  table.toDataStream().sinkTo(sink);
  await env.execute('read back');
  return sink.values.map((row) => flinkText(table, row)).sort();
}

/** Every visible file under `dir` (not starting with `.` or `_`), relative, sorted. */
function visibleFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name.startsWith('.') || e.name.startsWith('_')) continue;
      if (e.isDirectory()) walk(join(d, e.name));
      else out.push(relative(dir, join(d, e.name)));
    }
  };
  walk(dir);
  return out.sort();
}

/** The lines of the visible part files under `dir` (a partition's, or the table's), sorted. */
function partLines(dir: string): string[] {
  return visibleFiles(dir)
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n'))
    .filter((l) => l !== '')
    .sort();
}

const sorted = (rows: readonly string[]): string[] => [...rows].sort();

describe.each(['csv', 'json'])('StreamFileSystemITCaseBase (%s)', (format) => {
  /** A part-file line of (x, y), in the format. */
  const xyLine = (text: string): string => {
    const [x, y] = text.split(',');
    return format === 'csv' ? `${x},${y}` : JSON.stringify({ x, y: Number(y) });
  };

  it('testSelectDecimalWithPrecisionTenAndZeroFromFileSystem', async () => {
    const path = freshDir();
    const setup = fsTables(path, format);
    await runInsert(
      setup,
      `INSERT INTO hasDecimalFieldWithPrecisionTenAndZeroTable(x, y)
       VALUES (CAST(2113554011 AS DECIMAL(10, 0)), 1), (CAST(2113554022 AS DECIMAL(10, 0)), 2)`,
    );
    expect(
      await readRows(setup, 'SELECT x, y FROM hasDecimalFieldWithPrecisionTenAndZeroTable'),
    ).toEqual(['2113554011,1', '2113554022,2']);
    expect(partLines(path)).toEqual(
      format === 'csv'
        ? ['2113554011,1', '2113554022,2']
        : ['{"x":2113554011,"y":1}', '{"x":2113554022,"y":2}'],
    );
  });

  it('testSelectDecimalWithPrecisionThreeAndTwoFromFileSystem', async () => {
    const path = freshDir();
    const setup = fsTables(path, format);
    await runInsert(
      setup,
      `INSERT INTO hasDecimalFieldWithPrecisionThreeAndTwoTable(x,y)
       VALUES (CAST(1.32 AS DECIMAL(3, 2)), 1), (CAST(2.64 AS DECIMAL(3, 2)), 2)`,
    );
    expect(
      await readRows(setup, 'SELECT x, y FROM hasDecimalFieldWithPrecisionThreeAndTwoTable'),
    ).toEqual(['1.32,1', '2.64,2']);
  });

  it('testAllStaticPartitions1', async () => {
    const path = freshDir();
    const setup = fsTables(path, format);
    await runInsert(
      setup,
      `INSERT INTO partitionedTable PARTITION (a='1', b='1')
       SELECT x, y FROM originalT WHERE a=1 AND b=1`,
    );
    expect(readdirSync(path)).toEqual(['a=1']);
    expect(readdirSync(join(path, 'a=1'))).toEqual(['b=1']);
    expect(partLines(join(path, 'a=1', 'b=1'))).toEqual(sorted(DATA_PARTITION_1_1.map(xyLine)));
    expect(await readRows(setup, 'SELECT x, y FROM partitionedTable WHERE a=1 AND b=1')).toEqual(
      sorted(DATA_PARTITION_1_1),
    );
    expect(await readRows(setup, 'SELECT x, y FROM partitionedTable')).toEqual(
      sorted(DATA_PARTITION_1_1),
    );
  });

  it('testAllStaticPartitions2', async () => {
    const path = freshDir();
    const setup = fsTables(path, format);
    await runInsert(
      setup,
      `INSERT INTO partitionedTable PARTITION (a='2', b='1')
       SELECT x, y FROM originalT WHERE a=2 AND b=1`,
    );
    expect(visibleFiles(path).every((f) => f.startsWith(join('a=2', 'b=1', 'part-')))).toBe(true);
    expect(await readRows(setup, 'SELECT x, y FROM partitionedTable WHERE a=2 AND b=1')).toEqual(
      sorted(DATA_PARTITION_2_1),
    );
    expect(await readRows(setup, 'SELECT x, y FROM partitionedTable')).toEqual(
      sorted(DATA_PARTITION_2_1),
    );
    // The static values are the partition columns' values on read.
    expect(await readRows(setup, 'SELECT a, b, c FROM partitionedTable')).toEqual(
      DATA_PARTITION_2_1.map(() => '2,1,2'),
    );
  });

  it('testPartialDynamicPartition', async () => {
    const path = freshDir();
    const setup = fsTables(path, format);
    await runInsert(
      setup,
      'INSERT INTO partitionedTable PARTITION (a=3) SELECT x, y, b FROM originalT WHERE a=3',
    );
    expect(readdirSync(join(path, 'a=3')).sort()).toEqual(['b=1', 'b=2', 'b=3']);
    expect(partLines(join(path, 'a=3', 'b=2'))).toEqual([xyLine('x18,18')]);
    const read = (where: string) =>
      readRows(setup, `SELECT x, y FROM partitionedTable WHERE ${where}`);
    expect(await read('a=2 AND b=1')).toEqual([]);
    expect(await read('a=3 AND b=1')).toEqual(['x17,17']);
    expect(await read('a=3 AND b=2')).toEqual(['x18,18']);
    expect(await read('a=3 AND b=3')).toEqual(['x19,19']);
    expect(await read('a=3')).toEqual(['x17,17', 'x18,18', 'x19,19']);
  });

  it('testDynamicPartition', async () => {
    const path = freshDir();
    const setup = fsTables(path, format);
    await runInsert(setup, 'INSERT INTO partitionedTable SELECT x, y, a, b FROM originalT');
    const partitions = new Set(PARTITION_SPREAD.map(([a, b]) => `a=${a}/b=${b}`));
    expect(new Set(visibleFiles(path).map((f) => f.split('/').slice(0, 2).join('/')))).toEqual(
      partitions,
    );
    expect(await readRows(setup, 'SELECT x, y FROM partitionedTable WHERE a=1 AND b=1')).toEqual(
      sorted(DATA_PARTITION_1_1),
    );
    expect(await readRows(setup, 'SELECT x, y FROM partitionedTable WHERE a=2 AND b=1')).toEqual(
      sorted(DATA_PARTITION_2_1),
    );
    // c = b + 1, a computed column over a partition column.
    expect(
      await readRows(setup, 'SELECT x, y, a, b, c FROM partitionedTable WHERE a=1 AND c=2'),
    ).toEqual(sorted(DATA_PARTITION_1_1.map((r) => `${r},1,1,2`)));
    expect(await readRows(setup, 'SELECT x, y FROM partitionedTable')).toEqual(
      sorted(xyOf(() => true)),
    );
  });

  it('testPartitionWithHiddenFile', async () => {
    const path = freshDir();
    const setup = fsTables(path, format);
    await runInsert(
      setup,
      `INSERT INTO partitionedTable PARTITION (a='1', b='1')
       SELECT x, y FROM originalT WHERE a=1 AND b=1`,
    );
    // A hidden partition directory, with a file a reader must not see.
    mkdirSync(join(path, 'a=1', '.b=2'));
    writeFileSync(join(path, 'a=1', '.b=2', 'part-0'), `${xyLine('hidden,99')}\n`);
    expect(await readRows(setup, 'SELECT x, y FROM partitionedTable')).toEqual(
      sorted(DATA_PARTITION_1_1),
    );
  });

  it('testNonPartition', async () => {
    const path = freshDir();
    const setup = fsTables(path, format);
    await runInsert(
      setup,
      'INSERT INTO nonPartitionedTable SELECT x, y, a, b FROM originalT WHERE a=1 AND b=1',
    );
    expect(readdirSync(path).every((f) => f.startsWith('part-'))).toBe(true);
    expect(partLines(path)).toEqual(
      sorted(
        DATA_PARTITION_1_1.map((r) => {
          const [x, y] = r.split(',');
          return format === 'csv'
            ? `${x},${y},1,1`
            : JSON.stringify({ x, y: Number(y), a: 1, b: 1 });
        }),
      ),
    );
    expect(await readRows(setup, 'SELECT x, y FROM nonPartitionedTable WHERE a=1 AND b=1')).toEqual(
      sorted(DATA_PARTITION_1_1),
    );
  });

  it('testLimitPushDown', async () => {
    const path = freshDir();
    const setup = fsTables(path, format);
    await runInsert(setup, 'INSERT INTO nonPartitionedTable SELECT x, y, a, b FROM originalT', 1);
    expect(await readRows(setup, 'SELECT x, y FROM nonPartitionedTable LIMIT 3', 1)).toEqual([
      'x1,1',
      'x2,2',
      'x3,3',
    ]);
  });

  it('testFilterPushDown', async () => {
    const path = freshDir();
    const setup = fsTables(path, format);
    await runInsert(setup, 'INSERT INTO nonPartitionedTable SELECT x, y, a, b FROM originalT');
    expect(partLines(path)).toHaveLength(27);
    expect(await readRows(setup, 'SELECT x, y FROM nonPartitionedTable WHERE a=10086')).toEqual([]);
  });

  it('testProjectPushDown', async () => {
    const path = freshDir();
    const setup = fsTables(path, format);
    await runInsert(setup, 'INSERT INTO partitionedTable SELECT x, y, a, b FROM originalT');
    expect(await readRows(setup, 'SELECT y, b, x FROM partitionedTable WHERE a=3')).toEqual([
      '17,1,x17',
      '18,2,x18',
      '19,3,x19',
    ]);
  });

  it('testInsertAppend', async () => {
    const path = freshDir();
    const setup = fsTables(path, format);
    await runInsert(setup, 'INSERT INTO partitionedTable SELECT x, y, a, b FROM originalT');
    await runInsert(setup, 'INSERT INTO partitionedTable SELECT x, y, a, b FROM originalT');
    expect(partLines(join(path, 'a=3', 'b=1'))).toEqual([xyLine('x17,17'), xyLine('x17,17')]);
    expect(await readRows(setup, 'SELECT y, b, x FROM partitionedTable WHERE a=3')).toEqual([
      '17,1,x17',
      '17,1,x17',
      '18,2,x18',
      '18,2,x18',
      '19,3,x19',
      '19,3,x19',
    ]);
  });

  it('testInsertOverwrite: refused (Flink skips it in streaming mode)', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    tEnv.executeSql(fsTables(freshDir(), format));
    expect(() =>
      tEnv.executeSql('INSERT OVERWRITE partitionedTable SELECT x, y, a, b FROM originalT'),
    ).toThrow(/INSERT OVERWRITE/);
  });
});

describe('INSERT INTO ... PARTITION and column lists', () => {
  it('refuses a static value for a column that is not a partition column', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    tEnv.executeSql(fsTables(freshDir(), 'csv'));
    expect(() =>
      tEnv.executeSql(
        `INSERT INTO partitionedTable PARTITION (x='1') SELECT y, a, b FROM originalT`,
      ),
    ).toThrow("'x' is not a partition column of the table (a, b)");
    expect(() =>
      tEnv.executeSql(`INSERT INTO partitionedTable PARTITION (a='1') SELECT x, y FROM originalT`),
    ).toThrow('the query has 2 columns, the table 3 (x, y, b)');
    expect(() =>
      tEnv.executeSql(`INSERT INTO nonPartitionedTable (x, q) SELECT x, y FROM originalT`),
    ).toThrow("column 'q' is not a written column of the table");
  });

  it('fills the columns a column list leaves out with NULL', async () => {
    const path = freshDir();
    const setup = fsTables(path, 'csv');
    await runInsert(setup, 'INSERT INTO nonPartitionedTable (b, x) SELECT b, x FROM originalT');
    const rows = await readRows(setup, 'SELECT x, y, a, b FROM nonPartitionedTable');
    expect(rows).toHaveLength(27);
    expect(rows).toContain('x27,null,null,4');
  });
});

/** FsStreamingSinkITCaseBase.getData: (a, b, c, d, e), d an MM-dd-yyyy date, e an hour. */
const SINK_DATA: readonly (readonly [number, string, string, string, string])[] = [
  [1, 'a', 'b', '05-03-2020', '07'],
  [2, 'p', 'q', '05-03-2020', '08'],
  [3, 'x', 'y', '05-03-2020', '09'],
  [4, 'x', 'y', '05-03-2020', '10'],
  [5, 'x', 'y', '05-03-2020', '11'],
];
/** getData2: d a basic ISO date. */
const SINK_DATA_2: readonly (readonly [number, string, string, string, string])[] = [
  [1, 'a', 'b', '20200503', '07'],
  [2, 'p', 'q', '20200503', '08'],
  [3, 'x', 'y', '20200503', '09'],
  [4, 'x', 'y', '20200504', '10'],
  [5, 'x', 'y', '20200504', '11'],
];

const sinkView = (data: typeof SINK_DATA) =>
  valuesView(
    'my_table',
    [
      ['a', 'INT'],
      ['b', 'STRING'],
      ['c', 'STRING'],
      ['d', 'STRING'],
      ['e', 'STRING'],
    ],
    data,
  );

/** FsStreamingSinkITCaseBase.getDDL, with the test's format. */
function sinkTable(
  path: string,
  o: {
    formatter: string;
    pattern: string;
    partition: string;
    trigger: string;
    delay: string;
    policy?: string;
  },
): string {
  return `CREATE TABLE sink_table (a INT, b STRING, c STRING, d STRING, e STRING)
    ${o.partition === '' ? '' : `PARTITIONED BY (${o.partition})`}
    WITH (
      'connector' = 'filesystem',
      'path' = 'file://${path}',
      'partition.time-extractor.kind' = 'default',
      'partition.time-extractor.timestamp-formatter' = '${o.formatter}',
      'partition.time-extractor.timestamp-pattern' = '${o.pattern}',
      'sink.partition-commit.trigger' = '${o.trigger}',
      'sink.partition-commit.delay' = '${o.delay}',
      'sink.partition-commit.policy.kind' = '${o.policy ?? 'success-file'}',
      'sink.partition-commit.success-file.name' = '_MY_SUCCESS',
      'format' = 'csv'
    );`;
}

/** Writes `data` through sink_table in a checkpointed job, and reads the table back. */
async function writeAndCheck(data: typeof SINK_DATA, path: string, ddl: string): Promise<void> {
  const env = new StreamEnvironment({
    parallelism: 1,
    checkpointing: { directory: join(path, '..', `${relative(root, path)}-ckp`), intervalMs: 100 },
  });
  const tEnv = TableEnvironment.create(env);
  tEnv.executeSql(sinkView(data));
  tEnv.executeSql(ddl);
  await tEnv.executeSql('INSERT INTO sink_table SELECT * FROM my_table').job?.result;
  expect(await readRows(ddl, 'SELECT * FROM sink_table')).toEqual(
    sorted(data.map((r) => r.join(','))),
  );
}

/** testPartitionCustomFormatDate: process-time, a delay of an hour, `$d $e:00:00`. */
const customFormatDate = (path: string, partition: boolean, policy?: string) =>
  sinkTable(path, {
    formatter: 'MM-dd-yyyy HH:mm:ss',
    pattern: '$d $e:00:00',
    partition: partition ? 'd,e' : '',
    trigger: 'process-time',
    delay: '1h',
    ...(policy === undefined ? {} : { policy }),
  });

describe('FsStreamingSinkITCaseBase (csv)', () => {
  it('testNonPart', async () => {
    const path = freshDir();
    await writeAndCheck(SINK_DATA, path, customFormatDate(path, false));
    expect(readdirSync(path).every((f) => f.startsWith('part-'))).toBe(true);
    expect(existsSync(join(path, '_MY_SUCCESS'))).toBe(false);
    expect(partLines(path)).toEqual(sorted(SINK_DATA.map((r) => r.join(','))));
  });

  it('testPart', async () => {
    const path = freshDir();
    await writeAndCheck(SINK_DATA, path, customFormatDate(path, true));
    const base = join(path, 'd=05-03-2020');
    expect(readdirSync(base).sort()).toEqual(['e=07', 'e=08', 'e=09', 'e=10', 'e=11']);
    for (const e of ['07', '08', '09', '10', '11']) {
      expect(existsSync(join(base, `e=${e}`, '_MY_SUCCESS')), e).toBe(true);
      expect(existsSync(join(base, `e=${e}`, '_SUCCESS')), e).toBe(false);
    }
    expect(partLines(join(base, 'e=08'))).toEqual(['2,p,q']);
  });

  it('testMetastorePolicy', async () => {
    const path = freshDir();
    await expect(
      writeAndCheck(SINK_DATA, path, customFormatDate(path, true, 'metastore')),
    ).rejects.toThrow(
      "Can not configure a 'metastore' partition commit policy for a file system table. You can only configure 'metastore' partition commit policy for a hive table.",
    );
  });

  it('testPartitionWithBasicDate', async () => {
    const path = freshDir();
    await writeAndCheck(
      SINK_DATA_2,
      path,
      sinkTable(path, {
        formatter: 'yyyyMMdd',
        pattern: '$d',
        partition: 'd',
        trigger: 'partition-time',
        delay: '1d',
      }),
    );
    expect(readdirSync(path).sort()).toEqual(['d=20200503', 'd=20200504']);
    expect(existsSync(join(path, 'd=20200503', '_MY_SUCCESS'))).toBe(true);
    expect(existsSync(join(path, 'd=20200504', '_MY_SUCCESS'))).toBe(true);
    expect(partLines(join(path, 'd=20200504'))).toEqual(['4,x,y,10', '5,x,y,11']);
  });
});

/** Waits until `predicate` holds, polling. */
async function until(predicate: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('partition commit while the job runs (Weir)', () => {
  it('commits each partition, files then success file, as checkpoints complete', async () => {
    const input = freshDir();
    const output = freshDir();
    const put = (name: string, lines: readonly string[]) => {
      // Renamed into place, so that the watched directory never shows a half-written file.
      writeFileSync(join(input, `.${name}`), `${lines.join('\n')}\n`);
      renameSync(join(input, `.${name}`), join(input, name));
    };
    const tEnv = TableEnvironment.create(
      new StreamEnvironment({
        parallelism: 1,
        checkpointing: { directory: `${output}-ckp`, intervalMs: 100 },
      }),
    );
    put('1.csv', ['1,a,20200503', '2,b,20200503']);
    const job = tEnv.executeSql(`
      CREATE TABLE events (id INT, name STRING, d STRING) WITH ('connector' = 'filesystem',
        'path' = '${input}', 'format' = 'csv', 'source.monitor-interval' = '50 ms');
      CREATE TABLE by_day (id INT, name STRING, d STRING) PARTITIONED BY (d) WITH (
        'connector' = 'filesystem', 'path' = '${output}', 'format' = 'json',
        'sink.partition-commit.trigger' = 'process-time',
        'sink.partition-commit.delay' = '0 s',
        'sink.partition-commit.policy.kind' = 'success-file');
      INSERT INTO by_day SELECT id, UPPER(name), d FROM events;`).job;
    try {
      const first = join(output, 'd=20200503');
      await until(() => existsSync(join(first, '_SUCCESS')), 'the first partition committed');
      expect(partLines(first)).toEqual(['{"id":1,"name":"A"}', '{"id":2,"name":"B"}']);
      expect(existsSync(join(output, 'd=20200504'))).toBe(false);
      put('2.csv', ['3,c,20200504', '4,d,20200503']);
      const second = join(output, 'd=20200504');
      await until(() => existsSync(join(second, '_SUCCESS')), 'the second partition committed');
      expect(partLines(second)).toEqual(['{"id":3,"name":"C"}']);
      // A committed partition's later rows come in further part files of it.
      await until(() => partLines(first).length === 3, 'the late row of the first partition');
      expect(partLines(first)).toEqual([
        '{"id":1,"name":"A"}',
        '{"id":2,"name":"B"}',
        '{"id":4,"name":"D"}',
      ]);
    } finally {
      await job?.cancel();
    }
    expect(
      await readRows(
        `CREATE TABLE by_day (id INT, name STRING, d STRING) PARTITIONED BY (d)
          WITH ('connector' = 'filesystem', 'path' = '${output}', 'format' = 'json')`,
        'SELECT * FROM by_day',
      ),
    ).toEqual(['1,A,20200503', '2,B,20200503', '3,C,20200504', '4,D,20200503']);
  }, 30_000);
});
