import { readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExactlyOnceFileSink } from '../../../src/connectors/files/sink/exactly-once-file-sink.js';
import type { Json } from '../../../src/core/snapshot.js';
import {
  type BadRecord,
  DirectorySource,
  FileFormat,
  FileSource,
  type Source,
  type SourceReader,
  StreamEnvironment,
  WeirError,
} from '../../../src/index.js';
import { drain, readAll, readerContext, tempDir } from './helpers.js';

interface Ev {
  f: string;
  n: number;
}

function events(f: string, count: number, badEvery = 0): string {
  let text = '';
  for (let n = 0; n < count; n++) {
    text += `${JSON.stringify({ f, n })}\n`;
    if (badEvery > 0 && n % badEvery === badEvery - 1) text += `bad ${f}${n}\n`;
  }
  return text;
}

function restoredReader<T>(source: Source<T>, batchSize: number, position: Json | undefined) {
  return source.createReader({ ...readerContext(batchSize), restoredPosition: position });
}

/** Polls `batches` batches, then returns them with the reader's position. */
async function readSome<T>(
  reader: SourceReader<T>,
  batches: number,
): Promise<{ got: T[][]; position: Json }> {
  const got: T[][] = [];
  while (got.length < batches) {
    const r = reader.poll();
    if (r === 'end') break;
    if (r === 'wait') {
      await reader.available();
      continue;
    }
    got.push(r.values);
  }
  const position = reader.snapshot?.(1);
  if (position === undefined) throw new Error('reader has no snapshot');
  return { got, position };
}

describe('file sources and checkpoints', () => {
  it('FileSource: a reader restored from any position continues with exactly the next record', async () => {
    const dir = await tempDir();
    const a = join(dir, 'a.jsonl');
    const b = join(dir, 'b.jsonl');
    await writeFile(a, events('a', 10, 4));
    await writeFile(b, events('b', 5));
    const full = (
      await readAll(new FileSource([a, b], FileFormat.jsonLines<Ev>(), { onError: 'skip' }), 3)
    ).flat();
    expect(full).toHaveLength(15);
    for (let cut = 0; cut <= 7; cut++) {
      const bad: BadRecord[] = [];
      const make = () =>
        new FileSource([a, b], FileFormat.jsonLines<Ev>(), {
          onError: { deadLetter: (x) => bad.push(x) },
        });
      const first = restoredReader(make(), 3, undefined);
      await first.open();
      const { got, position } = await readSome(first, cut);
      await first.close();
      const badBefore = bad.length;
      const second = restoredReader(make(), 3, position);
      await second.open();
      const rest = await drain(second);
      await second.close();
      expect([...got.flat(), ...rest.flat()]).toEqual(full);
      // Bad records before the position are not reported again; none is lost.
      const lines = new Set(bad.map((x) => `${x.file}:${x.line}`));
      expect(lines.size).toBe(2);
      expect(bad.length - badBefore).toBeLessThanOrEqual(2);
    }
  });

  it('FileSource: a position after the end restores to an ended reader; a foreign position fails', async () => {
    const file = join(await tempDir(), 'a.jsonl');
    await writeFile(file, events('a', 4));
    const reader = restoredReader(new FileSource(file, FileFormat.jsonLines<Ev>()), 10, undefined);
    await reader.open();
    const { position } = await readSome(reader, 5);
    await reader.close();
    expect(position).toEqual({ feed: 1, file: null, records: 0 });
    const after = restoredReader(new FileSource(file, FileFormat.jsonLines<Ev>()), 10, position);
    await after.open();
    expect(await drain(after)).toEqual([]);
    await after.close();

    expect(() => restoredReader(new FileSource(file, FileFormat.jsonLines<Ev>()), 10, 42)).toThrow(
      WeirError,
    );
    expect(() =>
      restoredReader(new FileSource(file, FileFormat.jsonLines<Ev>()), 10, {
        feed: 5,
        file: null,
        records: 0,
      }),
    ).toThrow(/cannot resume/);
  });

  it('DirectorySource: resumes inside the current file and never re-reads finished files', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'a.jsonl'), events('a', 4));
    await writeFile(join(dir, 'b.jsonl'), events('b', 5));
    const make = () => new DirectorySource(dir, FileFormat.jsonLines<Ev>(), { pollIntervalMs: 5 });
    const first = restoredReader(make(), 2, undefined);
    await first.open();
    // a: [a0 a1] [a2 a3]; b: [b0 b1] ...
    const { got, position } = await readSome(first, 3);
    await first.close();
    expect(got.flat().map((e) => `${e.f}${e.n}`)).toEqual(['a0', 'a1', 'a2', 'a3', 'b0', 'b1']);
    expect(position).toEqual({ feed: ['a.jsonl'], file: join(dir, 'b.jsonl'), records: 2 });

    const hidden = join(dir, '.c.tmp');
    await writeFile(hidden, events('c', 1));
    await rename(hidden, join(dir, 'c.jsonl'));
    const second = restoredReader(make(), 2, position);
    await second.open();
    const { got: rest, position: later } = await readSome(second, 3);
    await second.close();
    expect(rest.flat().map((e) => `${e.f}${e.n}`)).toEqual(['b2', 'b3', 'b4', 'c0']);
    expect(later).toEqual({ feed: ['a.jsonl', 'b.jsonl', 'c.jsonl'], file: null, records: 0 });
  });

  it('a job over a JSON Lines file that fails and is restored commits exactly the output of a clean run', async () => {
    const dir = await tempDir();
    const input = join(dir, 'in.jsonl');
    let text = '';
    for (let i = 0; i < 5_000; i++) text += `${JSON.stringify({ k: i % 7, v: i })}\n`;
    await writeFile(input, text);

    const build = (env: StreamEnvironment, out: string, failAt?: number) => {
      let seen = 0;
      env
        .fromSource(new FileSource(input, FileFormat.jsonLines<{ k: number; v: number }>()))
        .uid('file')
        .map((r) => {
          if (failAt !== undefined && ++seen === failAt) throw new Error('injected failure');
          // Some work per record, so that checkpoints are taken while the file is read.
          let x = 0;
          for (let j = 0; j < 200; j++) x += j;
          return { ...r, x };
        })
        .keyBy((r) => r.k)
        .reduce((a, b) => ({ k: a.k, v: a.v + b.v, x: b.x }))
        .uid('sum')
        .sinkTo(new ExactlyOnceFileSink({ directory: out }))
        .uid('sink');
    };
    const committed = async (out: string) => {
      const lines: string[] = [];
      for (const f of (await readdir(out)).filter((n) => !n.startsWith('.')).sort()) {
        lines.push(...(await readFile(join(out, f), 'utf8')).split('\n').filter(Boolean));
      }
      return lines.sort();
    };
    const options = (chk: string) => ({
      batchSize: 100,
      checkpointing: { directory: join(dir, chk), intervalMs: 1 },
    });

    const clean = join(dir, 'clean');
    const env1 = new StreamEnvironment(options('c1'));
    build(env1, clean);
    await env1.execute('clean');
    const expected = await committed(clean);
    expect(expected).toHaveLength(5_000);

    const out = join(dir, 'out');
    const failing = new StreamEnvironment(options('c2'));
    build(failing, out, 3_210);
    await expect(failing.execute('failing')).rejects.toThrow(/injected failure/);
    // Checkpoints completed while the file was being read: the restore resumes mid-file.
    const partial = await committed(out);
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.length).toBeLessThan(5_000);

    const resumed = new StreamEnvironment(options('c2'));
    build(resumed, out);
    await resumed.execute('resumed', { restoreFrom: 'latest' });
    expect(await committed(out)).toEqual(expected);
  });
});
