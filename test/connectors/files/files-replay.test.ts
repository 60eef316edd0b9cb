import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ArraySource } from '../../../src/connectors/collection/source/array-source.js';
import { ExactlyOnceFileSink } from '../../../src/connectors/files/sink/exactly-once-file-sink.js';
import { GeneratorSource } from '../../../src/connectors/generator/source/generator-source.js';
import {
  isReconcilableSink,
  isReplayableSource,
  type ReconcileTarget,
  type ReplayedValue,
  type WrittenRow,
} from '../../../src/core/replay.js';
import {
  DirectorySource,
  FileFormat,
  FileSource,
  JsonLinesSink,
  StreamEnvironment,
  WeirError,
} from '../../../src/index.js';
import { linesOf, readAll, readerContext, tempDir } from './helpers.js';

interface Ev {
  f: string;
  n: number;
}

/** JSON Lines with a bad line every `badEvery` records and a blank line now and then. */
function events(f: string, count: number, badEvery: number): string {
  let text = '';
  for (let n = 0; n < count; n++) {
    text += `${JSON.stringify({ f, n })}\n`;
    if (n % badEvery === badEvery - 1) text += `not json ${f}${n}\n`;
    if (n % 5 === 4) text += '\n';
  }
  return text;
}

/** The oracle of a JSON Lines replay: each file's JSON lines in order, bad and blank ones left out. */
async function jsonLinesOracle(files: readonly string[]): Promise<unknown[]> {
  const values: unknown[] = [];
  for (const file of files) {
    for (const line of linesOf(await readFile(file, 'utf8'))) {
      if (line.trim() === '') continue;
      try {
        values.push(JSON.parse(line));
      } catch {
        // a bad record, skipped under onError: 'skip'
      }
    }
  }
  return values;
}

function expectInvalid(run: () => unknown, message: RegExp): void {
  let thrown: unknown;
  try {
    run();
  } catch (e) {
    thrown = e;
  }
  expect(thrown).toBeInstanceOf(WeirError);
  expect((thrown as WeirError).code).toBe('INVALID_ARGUMENT');
  expect((thrown as WeirError).message).toMatch(message);
}

async function collect<T>(rows: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

async function* replayed<T>(values: readonly T[]): AsyncIterable<ReplayedValue<T>> {
  for (const value of values) yield { value, timestamp: 0 };
}

/** Rows as a sorted multiset of their values, for comparison regardless of order. */
function multiset(rows: readonly WrittenRow[]): string[] {
  return rows.map((r) => JSON.stringify(r.value)).sort();
}

describe('replaying file sources', () => {
  it('a FileSource replay of globbed files equals the files read directly, in sorted order, the same on every run', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'b.jsonl'), events('b', 23, 7));
    await writeFile(join(dir, 'a.jsonl'), events('a', 17, 4));
    await writeFile(join(dir, 'c.jsonl'), events('c', 9, 3));
    await writeFile(join(dir, 'notes.txt'), 'not a record\n');
    const source = new FileSource(join(dir, 'a.jsonl'), FileFormat.jsonLines<Ev>(), {
      onError: 'skip',
    });
    expect(isReplayableSource(source)).toBe(true);
    // Relative to the current directory; `c.jsonl` named twice is read once.
    const pattern = join(relative(process.cwd(), dir), '*.jsonl');
    const replay = source.replay({ files: [join(dir, 'c.jsonl'), pattern] });
    expect(replay.bounded).toBe(true);
    expect(replay.parallelizable).toBe(false);

    const first = await readAll(replay, 4);
    const second = await readAll(source.replay({ files: [pattern] }), 4);
    expect(second).toEqual(first);
    const oracle = await jsonLinesOracle(['a', 'b', 'c'].map((f) => join(dir, `${f}.jsonl`)));
    expect(oracle).toHaveLength(17 + 23 + 9);
    expect(first.flat()).toEqual(oracle);
    // Exactly batchSize records a batch, except each file's last: 17 = 4*4+1, 23 = 5*4+3, 9 = 2*4+1.
    expect(first.map((b) => b.length)).toEqual([4, 4, 4, 4, 1, 4, 4, 4, 4, 4, 3, 4, 4, 1]);
  });

  it('without files, a FileSource replay reads its own files in their configured order', async () => {
    const dir = await tempDir();
    const a = join(dir, 'a.jsonl');
    const b = join(dir, 'b.jsonl');
    await writeFile(a, events('a', 6, 100));
    await writeFile(b, events('b', 5, 100));
    const source = new FileSource([b, a], FileFormat.jsonLines<Ev>());
    const got = (await readAll(source.replay({}), 3)).flat();
    expect(got).toEqual(await jsonLinesOracle([b, a]));
    // A parallel source's replay is one subtask too, with the same records.
    const parallel = new FileSource([b, a], FileFormat.jsonLines<Ev>(), { parallel: true });
    const replay = parallel.replay({});
    expect(replay.parallelizable).toBe(false);
    expect((await readAll(replay, 3)).flat()).toEqual(got);
  });

  it('a replay keeps the bad-record policy: under fail, the first bad line fails it', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'a.jsonl'), events('a', 6, 4));
    const replay = new FileSource(join(dir, 'a.jsonl'), FileFormat.jsonLines<Ev>()).replay({});
    await expect(readAll(replay, 2)).rejects.toMatchObject({ code: 'BAD_RECORD' });
  });

  it('a DirectorySource replay reads the CSV files present now, hidden and filtered ones left out, then ends', async () => {
    const dir = await tempDir();
    const rows = (f: string, n: number) =>
      `id,name\n${Array.from({ length: n }, (_, i) => `${f}${i},name ${i}`).join('\n')}\n`;
    await writeFile(join(dir, 'y.csv'), rows('y', 7));
    await writeFile(join(dir, 'x.csv'), rows('x', 5));
    await writeFile(join(dir, '.x.csv.tmp.csv'), rows('hidden', 3));
    await writeFile(join(dir, '_writing.csv'), rows('w', 3));
    await writeFile(join(dir, 'readme.md'), 'no\n');
    await mkdir(join(dir, 'sub.csv'));
    // processExisting: false concerns a live job's start; a replay reads what is there.
    const source = new DirectorySource(dir, FileFormat.csv({ header: true }), {
      filter: '.csv',
      processExisting: false,
    });
    const replay = source.replay({});
    expect(replay.bounded).toBe(true);
    const got = (await readAll(replay, 4)).flat();
    const oracle = [
      ...Array.from({ length: 5 }, (_, i) => ({ id: `x${i}`, name: `name ${i}` })),
      ...Array.from({ length: 7 }, (_, i) => ({ id: `y${i}`, name: `name ${i}` })),
    ];
    expect(got).toEqual(oracle);
    expect((await readAll(source.replay({}), 4)).flat()).toEqual(got);
    // Named files replace the listing.
    const one = (await readAll(source.replay({ files: [join(dir, 'y.csv')] }), 4)).flat();
    expect(one).toEqual(oracle.slice(5));
  });

  it('refuses what a file replay cannot honour, with clear errors', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'a.jsonl'), events('a', 2, 100));
    const source = new FileSource(join(dir, 'a.jsonl'), FileFormat.jsonLines<Ev>());
    expectInvalid(() => source.replay({ files: [join(dir, '*.csv')] }), /matches no file/);
    expectInvalid(() => source.replay({ files: [join(dir, 'missing.jsonl')] }), /matches no file/);
    expectInvalid(() => source.replay({ files: [] }), /list of files is empty/);
    expectInvalid(() => source.replay({ from: 1000 }), /cannot replay a time range/);
    expectInvalid(() => source.replay({ to: 1000 }), /name the files to read/);
    expectInvalid(() => source.replay({ to: 1000 }), /--source-range/);
    // Positions name other sources' splits (Kafka partitions): a file replay reads all its files.
    const withOffsets = source.replay({ positions: { 'clicks:0': [0, 1] } });
    expect((await readAll(withOffsets, 10)).flat()).toHaveLength(2);
    const empty = join(dir, 'empty');
    await mkdir(empty);
    const watcher = new DirectorySource(empty, FileFormat.jsonLines());
    expectInvalid(() => watcher.replay({}), /holds no file it would read/);
  });
});

describe('replaying built-in sources', () => {
  it('a generator replay yields, on one subtask, the records the generator yields at any parallelism', async () => {
    const generate = (i: number, random: { next(): number }) => ({ i, r: random.next() });
    const options = { count: 1_003, seed: 7, ratePerSecond: 1_000_000, generate };
    const source = new GeneratorSource(options);
    const replay = source.replay({});
    expect(replay.parallelizable).toBe(false);
    const once = await readAll(replay, 100);
    expect(once.map((b) => b.length)).toEqual([...Array(10).fill(100), 3]);
    const records = once.flat();
    expect(records.map((r) => r.i)).toEqual(Array.from({ length: 1_003 }, (_, i) => i));
    // The same records from three subtasks of an unpaced generator, merged by index.
    const parallel = new GeneratorSource({ count: 1_003, seed: 7, generate });
    const shares = [];
    for (let s = 0; s < 3; s++) {
      const reader = parallel.createReader({
        ...readerContext(64),
        subtaskIndex: s,
        parallelism: 3,
      });
      for (let r = reader.poll(); r !== 'end'; r = reader.poll()) {
        if (r !== 'wait') shares.push(...r.values);
      }
    }
    expect(shares.sort((a, b) => a.i - b.i)).toEqual(records);
    expect(await readAll(source.replay({}), 100)).toEqual(once);
  });

  it('a generator without count, or asked for a time range, is refused; files and positions are ignored', () => {
    const endless = new GeneratorSource({ generate: (i) => i });
    expectInvalid(() => endless.replay({}), /never ends/);
    const bounded = new GeneratorSource({ count: 3, generate: (i) => i });
    expectInvalid(() => bounded.replay({ from: 0, to: 10 }), /cannot replay a time range/);
    // Files name the input of file sources: a generator replay ignores them.
    expect(bounded.replay({ files: ['x.jsonl'], positions: { 'clicks:0': [0, 1] } }).bounded).toBe(
      true,
    );
  });

  it('an array replay yields the same values; a time range is refused', async () => {
    const values = Array.from({ length: 25 }, (_, i) => ({ i }));
    const source = new ArraySource(values, 'numbers');
    const replay = source.replay({});
    expect(replay.name).toBe('numbers');
    expect((await readAll(replay, 10)).flat()).toEqual(values);
    expectInvalid(() => source.replay({ from: 5 }), /cannot replay a time range/);
  });
});

interface Total {
  k: number;
  v: number;
}

/** Runs a checkpointed job writing `values` through `sink`, at parallelism 2. */
async function writeThrough<T>(
  dir: string,
  values: readonly T[],
  sink: ExactlyOnceFileSink<T> | JsonLinesSink<T>,
): Promise<void> {
  const env = new StreamEnvironment({
    batchSize: 50,
    parallelism: 2,
    checkpointing: { directory: join(dir, 'checkpoints'), intervalMs: 5 },
  });
  env
    .fromArray(values)
    .rebalance()
    .map((v) => v)
    .sinkTo(sink);
  await env.execute('reconcile-writer');
}

describe('reconciling file sinks', () => {
  const totals: Total[] = Array.from({ length: 1_500 }, (_, i) => ({ k: i % 13, v: i * 3 }));

  it('what an exactly-once file sink committed equals expected() of the same values; a removed line shows up missing', async () => {
    const dir = await tempDir();
    const out = join(dir, 'out');
    const sink = new ExactlyOnceFileSink<Total>({ directory: out, prefix: 'totals' });
    expect(isReconcilableSink(sink)).toBe(true);
    await writeThrough(dir, totals, sink);
    const target: ReconcileTarget<Total> = await sink.reconcileTarget();
    expect(target.mode).toBe('append');
    const written = await collect(target.written());
    const expected = await collect(target.expected(replayed(totals)));
    expect(written).toHaveLength(totals.length);
    expect(multiset(written)).toEqual(multiset(expected));
    expect(multiset(expected)).toEqual(totals.map((t) => JSON.stringify(t)).sort());
    for (const row of written) {
      expect(row.key).toBeUndefined();
      expect(row.origin).toMatch(/totals-[01]-\d{10}\.jsonl:\d+$/);
    }

    // The row at origin `file:line` is that line of that file.
    const sample = written[written.length - 1]!;
    const [file, line] = [
      sample.origin.replace(/:\d+$/, ''),
      Number(/:(\d+)$/.exec(sample.origin)![1]),
    ];
    const lines = linesOf(await readFile(file, 'utf8'));
    expect(JSON.parse(lines[line - 1]!)).toEqual(sample.value);

    // Remove that line: written() lacks exactly that row.
    lines.splice(line - 1, 1);
    await writeFile(file, lines.map((l) => `${l}\n`).join(''));
    const after = multiset(await collect(target.written()));
    const missing = [...multiset(expected)];
    missing.splice(missing.indexOf(JSON.stringify(sample.value)), 1);
    expect(after).toEqual(missing);

    // In-progress and pending files, and files of another prefix, are not read.
    await writeFile(join(out, '.totals-0.abc.inprogress'), '{"k":99,"v":1}\n');
    await writeFile(join(out, '.totals-1-7.abc.pending'), '{"k":99,"v":2}\n');
    await writeFile(join(out, 'other-0-0000000001.jsonl'), '{"k":99,"v":3}\n');
    expect(multiset(await collect(target.written()))).toEqual(missing);
    await target.close();
  });

  it('a JSON Lines sink at parallelism 2 reads back both subtask files, decoded as JSON', async () => {
    const dir = await tempDir();
    const path = join(dir, 'out', 'totals.jsonl');
    // A custom serializer: expected() renders with it too.
    const sink = new JsonLinesSink<Total>(path, { serialize: (t) => JSON.stringify([t.k, t.v]) });
    await writeThrough(dir, totals, sink);
    await writeFile(join(dir, 'out', 'totals-x.jsonl'), '[0,0]\n');
    const target = sink.reconcileTarget();
    const written = await collect(target.written());
    expect(new Set(written.map((r) => r.origin.replace(/:\d+$/, '')))).toEqual(
      new Set([0, 1].map((i) => join(dir, 'out', `totals-${i}.jsonl`))),
    );
    const expected = await collect(target.expected(replayed(totals)));
    expect(expected[0]).toEqual({ key: undefined, value: [0, 0], origin: 'replayed value 1' });
    expect(multiset(written)).toEqual(multiset(expected));
  });

  it('a sink that wrote nothing reads back as no rows', async () => {
    const dir = await tempDir();
    const target = new ExactlyOnceFileSink<Total>({
      directory: join(dir, 'none'),
    }).reconcileTarget();
    expect(await collect(target.written())).toEqual([]);
    const lines = new JsonLinesSink<Total>(join(dir, 'none', 'x.jsonl')).reconcileTarget();
    expect(await collect(lines.written())).toEqual([]);
  });
});
