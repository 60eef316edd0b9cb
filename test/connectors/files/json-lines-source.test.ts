import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NO_TIMESTAMP } from '../../../src/core/record-batch.js';
import {
  type BadRecord,
  CollectSink,
  FileFormat,
  FileSource,
  StreamEnvironment,
  WeirError,
} from '../../../src/index.js';
import { MetricRegistry } from '../../../src/metrics/registry.js';
import { linesOf, RecordingSource, readAll, readerContext, tempDir } from './helpers.js';

interface Ev {
  id: number;
  name?: string;
}

function numbered(n: number, from = 0): string {
  let text = '';
  for (let i = from; i < from + n; i++) text += `${JSON.stringify({ id: i })}\n`;
  return text;
}

async function failureOf(promise: Promise<unknown>): Promise<WeirError> {
  try {
    await promise;
  } catch (e) {
    if (e instanceof WeirError) return e;
    throw e;
  }
  throw new Error('expected the job to fail');
}

describe('FileSource with JSON Lines', () => {
  it('reads every record in order, skipping blank lines, with CRLF, a BOM and no final newline', async () => {
    const dir = await tempDir();
    const file = join(dir, 'events.jsonl');
    await writeFile(
      file,
      '\uFEFF{"id":1,"name":"a"}\n\n   \n{"id":2}\r\n\t\r\n[1,2]\n"text"\n{"id":3,"name":"line\\nbreak"}',
    );
    const batches = await readAll(new FileSource(file, FileFormat.jsonLines()), 100);
    expect(batches.flat()).toEqual([
      { id: 1, name: 'a' },
      { id: 2 },
      [1, 2],
      'text',
      { id: 3, name: 'line\nbreak' },
    ]);
  });

  it('emits batches of exactly batchSize records, the last of each file smaller', async () => {
    const dir = await tempDir();
    const a = join(dir, 'a.jsonl');
    const b = join(dir, 'b.jsonl');
    await writeFile(a, numbered(10));
    await writeFile(b, numbered(4, 10));
    const one = await readAll(new FileSource(a, FileFormat.jsonLines<Ev>()), 3);
    expect(one.map((batch) => batch.length)).toEqual([3, 3, 3, 1]);
    expect(one.flat().map((e) => e.id)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);

    // Batches never span files.
    const two = await readAll(new FileSource([a, b], FileFormat.jsonLines<Ev>()), 3);
    expect(two.map((batch) => batch.length)).toEqual([3, 3, 3, 1, 3, 1]);
    expect(two.flat().map((e) => e.id)).toEqual([...Array(14).keys()]);

    // A file whose size is a multiple of the batch size, and an empty file.
    const empty = join(dir, 'empty.jsonl');
    await writeFile(empty, '');
    const c = join(dir, 'c.jsonl');
    await writeFile(c, numbered(6));
    const three = await readAll(new FileSource([c, empty, c], FileFormat.jsonLines<Ev>()), 3);
    expect(three.map((batch) => batch.length)).toEqual([3, 3, 3, 3]);
  });

  it('batch sizes do not depend on how the file is chunked on read', async () => {
    const dir = await tempDir();
    const file = join(dir, 'big.jsonl');
    // Long lines spanning many 64 KiB read chunks, and far more records than the read-ahead.
    const pad = 'x'.repeat(300);
    let text = '';
    for (let i = 0; i < 20_000; i++) text += `${JSON.stringify({ id: i, pad })}\n`;
    await writeFile(file, text);
    for (const batchSize of [1, 7, 1000, 4096]) {
      const batches = await readAll(new FileSource(file, FileFormat.jsonLines<Ev>()), batchSize);
      const sizes = batches.map((b) => b.length);
      const full = Math.floor(20_000 / batchSize);
      const rest = 20_000 % batchSize;
      expect(sizes).toEqual([...Array<number>(full).fill(batchSize), ...(rest > 0 ? [rest] : [])]);
      const ids = batches.flat().map((e) => e.id);
      expect(ids).toEqual([...Array(20_000).keys()]);
    }
  });

  it('in a job, emits exactly batchSize per batch and records without timestamps', async () => {
    const dir = await tempDir();
    const file = join(dir, 'events.jsonl');
    await writeFile(file, numbered(10));
    const env = new StreamEnvironment({ batchSize: 3 });
    const source = new RecordingSource(new FileSource(file, FileFormat.jsonLines<Ev>()));
    const sink = new CollectSink<Ev>();
    env.fromSource(source).sinkTo(sink);
    const result = await env.execute('jsonl');
    expect(result.status).toBe('finished');
    expect(source.batchSizes).toEqual([3, 3, 3, 1]);
    expect(sink.values.map((e) => e.id)).toEqual([...Array(10).keys()]);
    expect(sink.timestamps.every((t) => t === NO_TIMESTAMP)).toBe(true);
  });

  it('runs with parallelism 1 even when the environment asks for more', async () => {
    const dir = await tempDir();
    const file = join(dir, 'events.jsonl');
    await writeFile(file, numbered(5));
    const env = new StreamEnvironment({ parallelism: 3 });
    const out = await env
      .fromSource(new FileSource(file, FileFormat.jsonLines<Ev>()))
      .map((e) => e.id)
      .executeAndCollect();
    expect([...out].sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4]);
  });

  it('applies the parse hook, with the position of each record', async () => {
    const dir = await tempDir();
    const file = join(dir, 'events.jsonl');
    await writeFile(file, '{"id":"1"}\n\n{"id":"2"}\n');
    const source = new FileSource(
      file,
      FileFormat.jsonLines({
        parse: (value, at) => {
          const id = (value as { id: string }).id;
          return { id: Number(id), at: `${at.file}:${at.line}` };
        },
      }),
    );
    const records = (await readAll(source, 10)).flat();
    expect(records).toEqual([
      { id: 1, at: `${file}:1` },
      { id: 2, at: `${file}:3` },
    ]);
  });

  describe('bad records', () => {
    const text = '{"id":0}\n{"id":1}\n{"id": oops}\n\n{"id":3}\n{broken\n{"id":5}\n';

    it('fail (the default): the job fails with BAD_RECORD naming the file, line and text', async () => {
      const dir = await tempDir();
      const file = join(dir, 'bad.jsonl');
      await writeFile(file, text);
      const env = new StreamEnvironment();
      env.fromSource(new FileSource(file, FileFormat.jsonLines())).sinkTo(new CollectSink());
      const error = await failureOf(env.execute('bad'));
      expect(error.code).toBe('BAD_RECORD');
      expect(error.message).toContain(file);
      expect(error.message).toContain('line 3');
      expect(error.message).toContain('{\\"id\\": oops}');
      expect(error.record).toBe('"{\\"id\\": oops}"');
    });

    it('fail: full batches before the bad record are still emitted, deterministically', async () => {
      const dir = await tempDir();
      const file = join(dir, 'bad.jsonl');
      await writeFile(file, `${numbered(5)}not json\n${numbered(5, 5)}`);
      const source = new FileSource(file, FileFormat.jsonLines<Ev>());
      const reader = source.createReader(readerContext(2));
      await reader.open();
      const seen: number[][] = [];
      let failure: unknown;
      try {
        for (;;) {
          const r = reader.poll();
          if (r === 'end') break;
          if (r === 'wait') {
            await reader.available();
            continue;
          }
          seen.push(r.values.map((e) => e.id));
        }
      } catch (e) {
        failure = e;
      } finally {
        await reader.close();
      }
      expect(seen).toEqual([
        [0, 1],
        [2, 3],
      ]);
      expect(failure).toBeInstanceOf(WeirError);
      expect((failure as WeirError).message).toContain('line 6');
    });

    it('truncates long bad lines in the error message', async () => {
      const dir = await tempDir();
      const file = join(dir, 'bad.jsonl');
      const long = `{"id": ${'9'.repeat(5000)}x}`;
      await writeFile(file, `${long}\n`);
      const env = new StreamEnvironment();
      env.fromSource(new FileSource(file, FileFormat.jsonLines())).sinkTo(new CollectSink());
      const error = await failureOf(env.execute('bad'));
      expect(error.code).toBe('BAD_RECORD');
      expect(error.message.length).toBeLessThan(1000);
      expect(error.message).toContain('line 1');
    });

    it('skip: bad records are dropped and counted in weir_source_bad_records_total', async () => {
      const dir = await tempDir();
      const file = join(dir, 'bad.jsonl');
      await writeFile(file, text);
      const env = new StreamEnvironment({ batchSize: 2 });
      const source = new RecordingSource(
        new FileSource(file, FileFormat.jsonLines<Ev>(), { onError: 'skip' }),
      );
      const sink = new CollectSink<Ev>();
      env.fromSource(source).sinkTo(sink);
      const result = await env.execute('skip');
      expect(sink.values.map((e) => e.id)).toEqual([0, 1, 3, 5]);
      expect(source.batchSizes).toEqual([2, 2]);
      expect(result.metric('weir_source_bad_records_total')).toBe(2);
    });

    it('dead letter file: each bad record is appended as a JSON line and counted', async () => {
      const dir = await tempDir();
      const file = join(dir, 'bad.jsonl');
      const deadLetter = join(dir, 'dead', 'letters.jsonl');
      await writeFile(file, text);
      const env = new StreamEnvironment();
      const sink = new CollectSink<Ev>();
      env
        .fromSource(new FileSource(file, FileFormat.jsonLines<Ev>(), { onError: { deadLetter } }))
        .sinkTo(sink);
      const result = await env.execute('dead letter');
      expect(sink.values.map((e) => e.id)).toEqual([0, 1, 3, 5]);
      expect(result.metric('weir_source_bad_records_total')).toBe(2);
      const letters = linesOf(await readFile(deadLetter, 'utf8')).map(
        (l) => JSON.parse(l) as BadRecord,
      );
      expect(letters.map(({ file: f, line, text: t }) => ({ f, line, t }))).toEqual([
        { f: file, line: 3, t: '{"id": oops}' },
        { f: file, line: 6, t: '{broken' },
      ]);
      for (const l of letters) expect(l.error).toMatch(/JSON/);
    });

    it('dead letter function: receives each bad record, including those a parse hook rejects', async () => {
      const dir = await tempDir();
      const file = join(dir, 'bad.jsonl');
      await writeFile(file, '{"id":1}\n{"id":-1}\nnope\n{"id":2}\n');
      const bad: BadRecord[] = [];
      const metrics = new MetricRegistry();
      const source = new FileSource(
        file,
        FileFormat.jsonLines({
          parse: (v) => {
            const id = (v as Ev).id;
            if (id < 0) throw new Error(`negative id ${id}`);
            return id;
          },
        }),
        { onError: { deadLetter: (b) => bad.push(b) } },
      );
      const records = (await readAll(source, 10, metrics)).flat();
      expect(records).toEqual([1, 2]);
      expect(bad.map((b) => [b.line, b.text])).toEqual([
        [2, '{"id":-1}'],
        [3, 'nope'],
      ]);
      expect(bad[0]!.error).toBe('negative id -1');
      expect(metrics.total('weir_source_bad_records_total')).toBe(2);
    });

    it('invalid UTF-8: the line is a bad record, never decoded with replacements', async () => {
      const dir = await tempDir();
      const file = join(dir, 'bytes.jsonl');
      const bytes = Buffer.concat([
        Buffer.from('{"id":1,"name":"a"}\n{"id":2,"name":"a'),
        Buffer.from([0xc3, 0x28]),
        Buffer.from('"}\n{"id":3,"name":"\u00e9"}\n{"id":4,"name":"a'),
        Buffer.from([0xff]),
        Buffer.from('"}'),
      ]);
      await writeFile(file, bytes);
      const bad: BadRecord[] = [];
      const metrics = new MetricRegistry();
      const source = new FileSource(file, FileFormat.jsonLines<Ev>(), {
        onError: { deadLetter: (b) => bad.push(b) },
      });
      const records = (await readAll(source, 10, metrics)).flat();
      // The names that came through are exactly what was written: no key altered.
      expect(records).toEqual([
        { id: 1, name: 'a' },
        { id: 3, name: 'é' },
      ]);
      expect(bad.map((b) => [b.line, b.error])).toEqual([
        [2, 'the line is not valid UTF-8'],
        [4, 'the line is not valid UTF-8'],
      ]);
      expect(metrics.total('weir_source_bad_records_total')).toBe(2);
    });

    it('invalid UTF-8 under the default policy fails the job naming the line', async () => {
      const dir = await tempDir();
      const file = join(dir, 'bytes.jsonl');
      await writeFile(
        file,
        Buffer.concat([Buffer.from('{"id":1}\n{"id":'), Buffer.from([0xfe]), Buffer.from('}\n')]),
      );
      const env = new StreamEnvironment();
      env.fromSource(new FileSource(file, FileFormat.jsonLines())).sinkTo(new CollectSink());
      const error = await failureOf(env.execute('utf8'));
      expect(error.code).toBe('BAD_RECORD');
      expect(error.message).toContain('at line 2');
      expect(error.message).toContain('not valid UTF-8');
    });

    it('rejects an invalid policy when the source is created', () => {
      expect(
        () =>
          new FileSource('x.jsonl', FileFormat.jsonLines(), {
            onError: 'ignore' as unknown as 'skip',
          }),
      ).toThrow(/onError/);
    });
  });

  it('fails with SOURCE_FAILED naming a missing file', async () => {
    const dir = await tempDir();
    const file = join(dir, 'missing.jsonl');
    const env = new StreamEnvironment();
    env.fromSource(new FileSource(file, FileFormat.jsonLines())).sinkTo(new CollectSink());
    const error = await failureOf(env.execute('missing'));
    expect(error.code).toBe('SOURCE_FAILED');
    expect(error.message).toContain(file);
  });
});
