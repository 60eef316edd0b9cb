import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExactlyOnceFileSink } from '../../../src/connectors/files/sink/exactly-once-file-sink.js';
import type { Json } from '../../../src/core/snapshot.js';
import {
  DirectorySource,
  FileFormat,
  FileSource,
  type FormatOutput,
  type Source,
  type SourceReader,
  StreamEnvironment,
} from '../../../src/index.js';
import { committedLines } from '../../helpers/committed-lines.js';
import { drain, eventually, readerContext, tempDir } from './helpers.js';

interface Ev {
  f: number;
  n: number;
}

/** `files` JSON Lines files of `records` records each; returns their paths and every record's line. */
async function writeFiles(
  dir: string,
  files: number,
  records: number,
): Promise<{ paths: string[]; lines: string[] }> {
  const paths: string[] = [];
  const lines: string[] = [];
  for (let f = 0; f < files; f++) {
    let text = '';
    for (let n = 0; n < records; n++) {
      const line = JSON.stringify({ f, n });
      text += `${line}\n`;
      lines.push(line);
    }
    const path = join(dir, `in-${String(f).padStart(2, '0')}.jsonl`);
    await writeFile(path, text);
    paths.push(path);
  }
  return { paths, lines: lines.sort() };
}

function reader(
  source: FileSource<Ev>,
  subtask: number,
  parallelism: number,
  batchSize: number,
  restored: readonly Json[] | undefined,
): SourceReader<Ev> {
  return source.createReader({
    ...readerContext(batchSize),
    subtaskIndex: subtask,
    parallelism,
    ...(restored === undefined ? {} : { restoredPositions: restored }),
  });
}

/** Polls up to `batches` batches, then returns them with the reader's position. */
async function readSome(
  r: SourceReader<Ev>,
  batches: number,
): Promise<{ got: Ev[]; position: Json }> {
  const got: Ev[] = [];
  let n = 0;
  while (n < batches) {
    const result = r.poll();
    if (result === 'end') break;
    if (result === 'wait') {
      await r.available();
      continue;
    }
    got.push(...result.values);
    n++;
  }
  return { got, position: r.snapshot!(1) };
}

const lineOf = (e: Ev) => JSON.stringify({ f: e.f, n: e.n });

describe('a parallel file source restores at another parallelism', () => {
  it('readers split the files; positions of 2 readers restore at 1, 3 and 4 readers with every record exactly once', async () => {
    const dir = await tempDir();
    const { paths, lines } = await writeFiles(dir, 7, 23);
    const source = new FileSource(paths, FileFormat.jsonLines<Ev>(), { parallel: true });
    expect(source.parallelizable).toBe(true);
    expect(source.rescalable).toBe(true);
    for (const [cutA, cutB] of [
      [0, 0],
      [1, 3],
      [4, 2],
      [7, 9],
      [30, 1],
    ] as const) {
      const before: Ev[] = [];
      const positions: Json[] = [];
      for (const [subtask, cut] of [cutA, cutB].entries()) {
        const r = reader(source, subtask, 2, 5, undefined);
        await r.open();
        const { got, position } = await readSome(r, cut);
        await r.close();
        before.push(...got);
        positions.push(position);
      }
      for (const parallelism of [1, 3, 4]) {
        const after: Ev[] = [];
        for (let s = 0; s < parallelism; s++) {
          const r = reader(source, s, parallelism, 5, positions);
          await r.open();
          after.push(...(await drain(r)).flat());
          await r.close();
        }
        expect(
          [...before, ...after].map(lineOf).sort(),
          `cut ${cutA}/${cutB} -> ${parallelism}`,
        ).toEqual(lines);
      }
    }
  });

  it('each reader reads its files in list order: file i goes to subtask i mod parallelism', async () => {
    const dir = await tempDir();
    const { paths } = await writeFiles(dir, 5, 3);
    const source = new FileSource(paths, FileFormat.jsonLines<Ev>(), { parallel: true });
    const files = async (s: number) => {
      const r = reader(source, s, 2, 10, undefined);
      await r.open();
      const got = (await drain(r)).flat();
      await r.close();
      return [...new Set(got.map((e) => e.f))];
    };
    expect(await files(0)).toEqual([0, 2, 4]);
    expect(await files(1)).toEqual([1, 3]);
  });

  it('a parallel source restores a checkpoint of the single-subtask form, and refuses files it does not have', async () => {
    const dir = await tempDir();
    const { paths, lines } = await writeFiles(dir, 4, 10);
    const single = new FileSource(paths, FileFormat.jsonLines<Ev>());
    const r = single.createReader(readerContext(4));
    await r.open();
    const { got, position } = await readSome(r, 4); // file 0 done, 6 records of file 1
    await r.close();
    const parallel = new FileSource(paths, FileFormat.jsonLines<Ev>(), { parallel: true });
    const after: Ev[] = [];
    for (let s = 0; s < 3; s++) {
      const rr = reader(parallel, s, 3, 4, [position]);
      await rr.open();
      after.push(...(await drain(rr)).flat());
      await rr.close();
    }
    expect([...got, ...after].map(lineOf).sort()).toEqual(lines);

    const fewer = new FileSource(paths.slice(2), FileFormat.jsonLines<Ev>(), { parallel: true });
    expect(() =>
      reader(fewer, 0, 1, 4, [{ feed: { done: [paths[0]!] }, file: null, records: 0 }]),
    ).toThrow(/not one of the source's files/);
    const splitPosition = { feed: { done: [paths[0]!] }, file: null, records: 0 };
    expect(() =>
      single.createReader({ ...readerContext(4), restoredPosition: splitPosition }),
    ).toThrow(/restore it with parallel: true/);
    expect(
      () => new FileSource([paths[0]!, paths[0]!], FileFormat.jsonLines(), { parallel: true }),
    ).toThrow(/names each file once/);
  });
});

/** Polls all readers until `total` records came out (an unbounded source never ends) or time is up. */
async function readUntil(readers: readonly SourceReader<Ev>[], total: number): Promise<Ev[]> {
  const got: Ev[] = [];
  const deadline = Date.now() + 30_000;
  const live = new Set(readers);
  while (got.length < total) {
    if (Date.now() > deadline || live.size === 0) {
      throw new Error(`only ${got.length} of ${total} records`);
    }
    let polled = false;
    for (const r of live) {
      for (let result = r.poll(); result !== 'wait'; result = r.poll()) {
        if (result === 'end') {
          live.delete(r);
          break;
        }
        got.push(...result.values);
        polled = true;
      }
    }
    if (!polled && live.size > 0) await Promise.race([...live].map((r) => r.available()));
  }
  return got;
}

describe('a directory source restores at another parallelism', () => {
  const open = async (source: DirectorySource<Ev>, parallelism: number, restored?: Json[]) => {
    const readers = Array.from({ length: parallelism }, (_, s) =>
      source.createReader({
        ...readerContext(5),
        subtaskIndex: s,
        parallelism,
        ...(restored === undefined ? {} : { restoredPositions: restored }),
      }),
    );
    for (const r of readers) await r.open();
    return readers;
  };

  it('parallel readers split the files; positions of 2 readers restore at 1 and 3 readers with every record exactly once', async () => {
    const dir = await tempDir();
    const { lines } = await writeFiles(dir, 9, 23);
    const source = new DirectorySource(dir, FileFormat.jsonLines<Ev>(), {
      parallel: true,
      pollIntervalMs: 20,
    });
    expect(source.parallelizable).toBe(true);
    expect(source.rescalable).toBe(true);

    // A fresh run at 3 reads every file once, each file on one reader.
    const fresh = await open(source, 3);
    const all = await readUntil(fresh, lines.length);
    for (const r of fresh) await r.close();
    expect(all.map(lineOf).sort()).toEqual(lines);

    for (const [cutA, cutB] of [
      [0, 2],
      [5, 3],
      [11, 14],
    ] as const) {
      const before: Ev[] = [];
      const positions: Json[] = [];
      for (const [subtask, cut] of [cutA, cutB].entries()) {
        const [r] = [
          source.createReader({ ...readerContext(5), subtaskIndex: subtask, parallelism: 2 }),
        ];
        await r!.open();
        const { got, position } = await readSome(r!, cut);
        await r!.close();
        before.push(...got);
        positions.push(position);
      }
      for (const parallelism of [1, 3]) {
        const readers = await open(source, parallelism, positions);
        const after = await readUntil(readers, lines.length - before.length);
        for (const r of readers) await r.close();
        expect(
          [...before, ...after].map(lineOf).sort(),
          `cut ${cutA}/${cutB} -> ${parallelism}`,
        ).toEqual(lines);
      }
    }
  });

  it('a checkpoint of the one-subtask form restores on parallel readers, the file being read first', async () => {
    const dir = await tempDir();
    const { lines } = await writeFiles(dir, 4, 10);
    const single = new DirectorySource(dir, FileFormat.jsonLines<Ev>(), { pollIntervalMs: 20 });
    const [r] = await open(single, 1);
    const { got, position } = await readSome(r!, 4); // file 0 done, 6 records of file 1
    await r!.close();
    expect(new Set(got.map((e) => e.f))).toEqual(new Set([0, 1]));
    const parallel = new DirectorySource(dir, FileFormat.jsonLines<Ev>(), {
      parallel: true,
      pollIntervalMs: 20,
    });
    const readers = await open(parallel, 2, [position]);
    const after = await readUntil(readers, lines.length - got.length);
    for (const rr of readers) await rr.close();
    expect([...got, ...after].map(lineOf).sort()).toEqual(lines);
  });
});

/** Polls up to `batches` batches, giving up on a reader that has nothing for a while (it may own no files). */
async function readFor(r: SourceReader<Ev>, batches: number): Promise<Ev[]> {
  const got: Ev[] = [];
  for (let n = 0; n < batches; ) {
    const result = r.poll();
    if (result === 'end') break;
    if (result === 'wait') {
      const idle = Symbol('idle');
      const woke = await Promise.race([
        r.available().then(() => true),
        new Promise<typeof idle>((resolve) => setTimeout(() => resolve(idle), 300)),
      ]);
      if (woke === idle) break;
      continue;
    }
    got.push(...result.values);
    n++;
  }
  return got;
}

describe('restoring again and again at other parallelisms', () => {
  // Each hop: the readers' parallelism and how many batches each reads before the next checkpoint.
  const hops: readonly (readonly [number, readonly number[]])[] = [
    [2, [3, 3]],
    [1, [1]],
    [3, [2, 0, 5]],
    [2, [1, 9]],
  ];

  it.each(['FileSource', 'DirectorySource'] as const)(
    '%s: files resumed but not reached yet keep their position through the next checkpoint',
    async (kind) => {
      const dir = await tempDir();
      const { paths, lines } = await writeFiles(dir, 7, 23);
      const source: Source<Ev> =
        kind === 'FileSource'
          ? new FileSource(paths, FileFormat.jsonLines<Ev>(), { parallel: true })
          : new DirectorySource(dir, FileFormat.jsonLines<Ev>(), {
              parallel: true,
              pollIntervalMs: 20,
            });
      const seen: Ev[] = [];
      let positions: Json[] | undefined;
      for (const [parallelism, cuts] of hops) {
        const next: Json[] = [];
        for (let s = 0; s < parallelism; s++) {
          const r = source.createReader({
            ...readerContext(5),
            subtaskIndex: s,
            parallelism,
            ...(positions === undefined ? {} : { restoredPositions: positions }),
          });
          await r.open();
          seen.push(...(await readFor(r, cuts[s]!)));
          next.push(r.snapshot!(1));
          await r.close();
        }
        positions = next;
      }
      const last = [0, 1].map((s) =>
        source.createReader({
          ...readerContext(5),
          subtaskIndex: s,
          parallelism: 2,
          restoredPositions: positions!,
        }),
      );
      for (const r of last) await r.open();
      seen.push(...(await readUntil(last, lines.length - seen.length)));
      for (const r of last) await r.close();
      expect(seen.map(lineOf).sort()).toEqual(lines);
    },
  );
});

/**
 * JSON Lines whose reading stops after each chunk until `release()` (or the
 * reader closes): so a job can be stopped while its readers are mid-file.
 */
function gatedJsonLines() {
  const inner = FileFormat.jsonLines<Ev>();
  const waiting: (() => void)[] = [];
  let open = false;
  const format = {
    name: 'gated jsonl',
    read(file: string, output: FormatOutput<Ev>, signal: AbortSignal): Promise<void> {
      const proceed = async () => {
        if (!open && !signal.aborted) {
          await new Promise<void>((resolve) => {
            waiting.push(resolve);
            signal.addEventListener('abort', () => resolve(), { once: true });
          });
        }
        await output.proceed();
      };
      return inner.read(file, { ...output, proceed }, signal);
    },
  };
  const release = () => {
    open = true;
    for (const wake of waiting.splice(0)) wake();
  };
  return { format, release };
}

/**
 * Source -> count -> running sum of `n` per file (keyed state) -> exactly-once
 * files, at `parallelism`. Each file is read in order by one subtask, so the
 * sums are the same in every run: an uninterrupted run is the oracle.
 */
function job(
  source: Source<Ev>,
  parallelism: number,
  out: string,
  options: { seen?: { n: number }; checkpoints?: { directory: string; intervalMs: number } } = {},
): StreamEnvironment {
  const { seen, checkpoints } = options;
  const env = new StreamEnvironment({
    parallelism,
    batchSize: 40,
    ...(checkpoints === undefined ? {} : { checkpointing: checkpoints }),
  });
  env
    .fromSource(source)
    .uid('files')
    .map((e) => {
      if (seen !== undefined) seen.n++;
      return { f: e.f, n: e.n };
    })
    .uid('copy')
    .keyBy((e) => e.f)
    .reduce((a, b) => ({ f: a.f, n: a.n + b.n }))
    .uid('sums')
    .sinkTo(new ExactlyOnceFileSink({ directory: out }))
    .uid('sink');
  return env;
}

/** The output of an uninterrupted run over `paths`, sorted. */
async function uninterrupted(dir: string, paths: readonly string[]): Promise<string[]> {
  const out = join(dir, 'oracle');
  await job(new FileSource(paths, FileFormat.jsonLines<Ev>()), 1, out).execute('oracle');
  return (await committedLines(out)).sort();
}

describe('savepoints of file-source jobs at another parallelism', () => {
  it.each([
    [true, 1],
    [true, 4],
    [false, 4],
  ])(
    'FileSource, parallel %s: stopped with a savepoint at parallelism 2 mid-file, resumed at %i, commits what an uninterrupted run does',
    async (parallel, resumeAt) => {
      const dir = await tempDir();
      const { paths } = await writeFiles(dir, 6, 250);
      const oracle = await uninterrupted(dir, paths);
      expect(oracle).toHaveLength(6 * 250);
      const out = join(dir, 'out');
      const gated = gatedJsonLines();
      const seen = { n: 0 };
      const first = job(new FileSource(paths, gated.format, { parallel }), 2, out, {
        seen,
      }).executeAsync('first');
      // A reader hands out the full batches of its first file, then waits for the gate.
      await eventually(() => seen.n >= 240, 60_000);
      const savepoint = await first.stopWithSavepoint(join(dir, 'savepoint'));
      gated.release();
      const stopped = await committedLines(out);
      expect(stopped.length).toBeGreaterThan(0);
      expect(stopped.length).toBeLessThan(oracle.length);

      const source = new FileSource(paths, FileFormat.jsonLines<Ev>(), { parallel });
      const second = job(source, resumeAt, out).executeAsync('second', { restoreFrom: savepoint });
      expect((await second.result).status).toBe('finished');
      expect((await committedLines(out)).sort()).toEqual(oracle);
    },
    120_000,
  );

  it.each([1, 3])(
    'parallel DirectorySource: stopped with a savepoint at parallelism 2 mid-file, resumed at %i, commits what an uninterrupted run does',
    async (resumeAt) => {
      const dir = await tempDir();
      const input = join(dir, 'in');
      await mkdir(input);
      const { paths } = await writeFiles(input, 6, 250);
      const oracle = await uninterrupted(dir, paths);
      const out = join(dir, 'out');
      const gated = gatedJsonLines();
      const seen = { n: 0 };
      const watch = (format: FileFormat<Ev>) =>
        new DirectorySource(input, format, { parallel: true, pollIntervalMs: 20 });
      const first = job(watch(gated.format), 2, out, {
        seen,
        checkpoints: { directory: join(dir, 'chk-1'), intervalMs: 600_000 },
      }).executeAsync('first');
      await eventually(() => seen.n >= 240, 60_000);
      const savepoint = await first.stopWithSavepoint(join(dir, 'savepoint'));
      gated.release();
      expect((await committedLines(out)).length).toBeLessThan(oracle.length);

      const second = job(watch(FileFormat.jsonLines<Ev>()), resumeAt, out, {
        checkpoints: { directory: join(dir, 'chk-2'), intervalMs: 20 },
      }).executeAsync('second', { restoreFrom: savepoint });
      let failure: unknown;
      second.result.catch((e: unknown) => {
        failure = e;
      });
      // The source never ends: wait until the output is complete, then stop.
      const deadline = Date.now() + 60_000;
      while ((await committedLines(out)).length < oracle.length && Date.now() < deadline) {
        if (failure !== undefined) throw failure;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await second.stopWithSavepoint(join(dir, 'savepoint-2'));
      expect((await committedLines(out)).sort()).toEqual(oracle);
    },
    120_000,
  );
});
