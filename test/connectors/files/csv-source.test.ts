import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type BadRecord,
  CollectSink,
  type CsvRecord,
  FileFormat,
  FileSource,
  StreamEnvironment,
  WeirError,
} from '../../../src/index.js';
import { MetricRegistry } from '../../../src/metrics/registry.js';
import { linesOf, RecordingSource, readAll, tempDir } from './helpers.js';

async function csvFile(text: string, name = 'data.csv'): Promise<string> {
  const file = join(await tempDir(), name);
  await writeFile(file, text);
  return file;
}

describe('FileSource with CSV', () => {
  it('header mode: objects keyed by column, quoted commas, quotes and line breaks, blank lines', async () => {
    const file = await csvFile(
      'id,name,note\n' +
        '1,alice,plain\n' +
        '\n' +
        '2,"bob, jr.","says ""hi"""\n' +
        '3,carol,"two\nlines"\n' +
        '\n' +
        '4,dave,last',
    );
    const rows: CsvRecord[] = (
      await readAll(new FileSource(file, FileFormat.csv({ header: true })), 10)
    ).flat();
    expect(rows).toEqual([
      { id: '1', name: 'alice', note: 'plain' },
      { id: '2', name: 'bob, jr.', note: 'says "hi"' },
      { id: '3', name: 'carol', note: 'two\nlines' },
      { id: '4', name: 'dave', note: 'last' },
    ]);
  });

  it('without a header: string arrays; delimiter; CRLF; a BOM', async () => {
    const file = await csvFile('\uFEFFa;b;c\r\n1;"x;y";3\r\n\r\n"multi\r\nline";5;6\r\n');
    const rows: string[][] = (
      await readAll(new FileSource(file, FileFormat.csv({ delimiter: ';' })), 10)
    ).flat();
    expect(rows).toEqual([
      ['a', 'b', 'c'],
      ['1', 'x;y', '3'],
      ['multi\r\nline', '5', '6'],
    ]);
  });

  it('explicit column names: every row is data', async () => {
    const file = await csvFile('1,2\n3,4\n');
    const rows = (
      await readAll(new FileSource(file, FileFormat.csv({ header: ['x', 'y'] })), 10)
    ).flat();
    expect(rows).toEqual([
      { x: '1', y: '2' },
      { x: '3', y: '4' },
    ]);
  });

  it('a parse hook converts rows, e.g. to numbers', async () => {
    const file = await csvFile('sym,price,qty\nAAPL,189.5,10\nMSFT, 410.25 ,3\n');
    interface Trade {
      sym: string;
      price: number;
      qty: number;
    }
    const format = FileFormat.csv({
      header: true,
      trim: true,
      parse: (r, at): Trade & { line: number } => ({
        sym: r.sym ?? '',
        price: Number(r.price),
        qty: Number(r.qty),
        line: at.line,
      }),
    });
    const trades = (await readAll(new FileSource(file, format), 10)).flat();
    expect(trades).toEqual([
      { sym: 'AAPL', price: 189.5, qty: 10, line: 2 },
      { sym: 'MSFT', price: 410.25, qty: 3, line: 3 },
    ]);
    const arrays = FileFormat.csv({ parse: (row) => row.map(Number) });
    const numbers = (await readAll(new FileSource(await csvFile('1,2\n3,4\n'), arrays), 10)).flat();
    expect(numbers).toEqual([
      [1, 2],
      [3, 4],
    ]);
  });

  it('emits batches of exactly batchSize records (3,3,3,1 for 10 rows)', async () => {
    let text = 'n\n';
    for (let i = 0; i < 10; i++) text += `${i}\n`;
    const file = await csvFile(text);
    const env = new StreamEnvironment({ batchSize: 3 });
    const source = new RecordingSource(
      new FileSource(file, FileFormat.csv({ header: true, parse: (r) => Number(r.n) })),
    );
    const sink = new CollectSink<number>();
    env.fromSource(source).sinkTo(sink);
    await env.execute('csv batches');
    expect(source.batchSizes).toEqual([3, 3, 3, 1]);
    expect(sink.values).toEqual([...Array(10).keys()]);
  });

  it('many rows across read chunks', async () => {
    let text = 'id,text\n';
    for (let i = 0; i < 30_000; i++) text += `${i},"row ${i}, with ""quotes"" and\nline break"\n`;
    const file = await csvFile(text);
    const batches = await readAll(
      new FileSource(file, FileFormat.csv({ header: true, parse: (r) => Number(r.id) })),
      1000,
    );
    expect(batches.map((b) => b.length)).toEqual(Array<number>(30).fill(1000));
    expect(batches.flat()).toEqual([...Array(30_000).keys()]);
  });

  describe('bad records', () => {
    // Lines: 1 a,b | 2 1,2 | 3-4 "x⏎y",3 | 5 4,5,6 (bad) | 6 7,8 | 7 blank | 8-9 9,"10⏎11" | 10 bad | 11 12,13
    const text = 'a,b\n1,2\n"x\ny",3\n4,5,6\n7,8\n\n9,"10\n11"\nbad\n12,13\n';

    async function deadLetters(input: string, header = true): Promise<BadRecord[]> {
      const bad: BadRecord[] = [];
      const format: FileFormat<unknown> = header
        ? FileFormat.csv({ header: true })
        : FileFormat.csv();
      await readAll(
        new FileSource(await csvFile(input), format, {
          onError: { deadLetter: (b) => bad.push(b) },
        }),
        10,
      );
      return bad;
    }

    it('reports the line where each bad row starts, after multi-line fields (LF and CRLF)', async () => {
      const lf = await deadLetters(text);
      expect(lf.map((b) => [b.line, b.text])).toEqual([
        [5, '4,5,6'],
        [10, 'bad'],
      ]);
      const crlf = await deadLetters(text.replace(/\n/g, '\r\n'));
      expect(crlf.map((b) => [b.line, b.text])).toEqual([
        [5, '4,5,6'],
        [10, 'bad'],
      ]);
      const unclosed = await deadLetters('a,b\n1,2\n"open,3\n4,5\n', false);
      expect(unclosed.map((b) => [b.line, b.text])).toEqual([[3, '"open,3\n4,5']]);
      expect(unclosed[0]!.error).toMatch(/Quote Not Closed/i);
    });

    it('fail: the job fails with BAD_RECORD naming file, line and text', async () => {
      const file = await csvFile(text);
      const env = new StreamEnvironment();
      env
        .fromSource(new FileSource(file, FileFormat.csv({ header: true })))
        .sinkTo(new CollectSink());
      const error = await env.execute('bad csv').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(WeirError);
      const e = error as WeirError;
      expect(e.code).toBe('BAD_RECORD');
      expect(e.message).toContain(file);
      expect(e.message).toContain('line 5');
      expect(e.message).toContain('4,5,6');
    });

    it('skip: counts bad rows and rows the parse hook rejects', async () => {
      const file = await csvFile('n\n1\nx\n2\n"3\n');
      const metrics = new MetricRegistry();
      const format = FileFormat.csv({
        header: true,
        parse: (r) => {
          const n = Number(r.n);
          if (Number.isNaN(n)) throw new Error(`not a number: ${r.n}`);
          return n;
        },
      });
      const rows = (
        await readAll(new FileSource(file, format, { onError: 'skip' }), 10, metrics)
      ).flat();
      expect(rows).toEqual([1, 2]);
      expect(metrics.total('weir_source_bad_records_total')).toBe(2);
    });

    it('dead letter file: JSON lines of {file, line, error, text}', async () => {
      const file = await csvFile(text);
      const deadLetter = join(await tempDir(), 'bad.jsonl');
      const env = new StreamEnvironment();
      const sink = new CollectSink<CsvRecord>();
      env
        .fromSource(
          new FileSource(file, FileFormat.csv({ header: true }), { onError: { deadLetter } }),
        )
        .sinkTo(sink);
      const result = await env.execute('csv dead letter');
      expect(sink.values).toEqual([
        { a: '1', b: '2' },
        { a: 'x\ny', b: '3' },
        { a: '7', b: '8' },
        { a: '9', b: '10\n11' },
        { a: '12', b: '13' },
      ]);
      expect(result.metric('weir_source_bad_records_total')).toBe(2);
      const letters = linesOf(await readFile(deadLetter, 'utf8')).map(
        (l) => JSON.parse(l) as BadRecord,
      );
      expect(letters.map((l) => [l.file, l.line, l.text])).toEqual([
        [file, 5, '4,5,6'],
        [file, 10, 'bad'],
      ]);
      for (const l of letters) expect(typeof l.error).toBe('string');
    });
  });

  describe('invalid UTF-8', () => {
    async function bytesFile(parts: readonly (string | readonly number[])[]): Promise<string> {
      const file = join(await tempDir(), 'bytes.csv');
      await writeFile(
        file,
        Buffer.concat(
          parts.map((p) => Buffer.from(typeof p === 'string' ? p : Uint8Array.from(p))),
        ),
      );
      return file;
    }

    it('a row with invalid bytes is a bad record, never decoded with replacements', async () => {
      // Line 3 has a lone 0xff; lines 5-6 are one quoted field with a cut-off
      // 3-byte sequence; a genuine U+FFFD (line 7) is valid and kept.
      const file = await bytesFile([
        'a,b\n1,é\n2,x',
        [0xff],
        'y\n3,z\n"4\n',
        [0xe2, 0x82],
        '",w\n5,\uFFFD\r\n6,\u20ac',
      ]);
      const bad: BadRecord[] = [];
      const metrics = new MetricRegistry();
      const rows = (
        await readAll(
          new FileSource(file, FileFormat.csv({ header: true }), {
            onError: { deadLetter: (b) => bad.push(b) },
          }),
          10,
          metrics,
        )
      ).flat();
      expect(rows).toEqual([
        { a: '1', b: 'é' },
        { a: '3', b: 'z' },
        { a: '5', b: '\uFFFD' },
        { a: '6', b: '€' },
      ]);
      expect(bad.map((b) => [b.line, b.error])).toEqual([
        [3, 'the record is not valid UTF-8'],
        [5, 'the record is not valid UTF-8'],
      ]);
      expect(bad[0]!.text).toBe('2,x\uFFFDy');
      expect(metrics.total('weir_source_bad_records_total')).toBe(2);
    });

    it('a character split across read chunks is valid; invalid bytes at a chunk end are not', async () => {
      // 64 KiB chunks: a 4-byte character across the first boundary, then a
      // truncated one at the very end of the file.
      const head = 'x\n'.repeat(32_767); // 65534 bytes, lines 1..32767
      const file = await bytesFile([head, 'a\u{1F600}b\n', 'c', [0xf0, 0x9f, 0x98]]);
      const bad: BadRecord[] = [];
      const rows = (
        await readAll(
          new FileSource(file, FileFormat.csv(), { onError: { deadLetter: (b) => bad.push(b) } }),
          50_000,
        )
      ).flat();
      expect(rows.length).toBe(32_768);
      expect(rows.at(-1)).toEqual(['a\u{1F600}b']);
      expect(bad.map((b) => [b.line, b.error])).toEqual([
        [32_769, 'the record is not valid UTF-8'],
      ]);
    });

    it('a header with invalid bytes makes every row under it bad', async () => {
      const file = await bytesFile(['id,n', [0xc3], '\n1,2\n3,4\n']);
      const metrics = new MetricRegistry();
      const rows = (
        await readAll(
          new FileSource(file, FileFormat.csv({ header: true }), { onError: 'skip' }),
          10,
          metrics,
        )
      ).flat();
      expect(rows).toEqual([]);
      expect(metrics.total('weir_source_bad_records_total')).toBe(2);
    });

    it('fails the job under the default policy, naming file and line', async () => {
      const file = await bytesFile(['a\nok\nb', [0x80], 'd\n']);
      const env = new StreamEnvironment();
      env.fromSource(new FileSource(file, FileFormat.csv())).sinkTo(new CollectSink());
      const error = await env.execute('csv utf8').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(WeirError);
      expect((error as WeirError).code).toBe('BAD_RECORD');
      expect((error as WeirError).message).toContain(`file '${file}' at line 3`);
      expect((error as WeirError).message).toContain('not valid UTF-8');
    });

    it('a UTF-16 byte order mark is not taken as a switch of encoding', async () => {
      const file = await bytesFile([[0xff, 0xfe], 'a\n1\n']);
      const bad: BadRecord[] = [];
      const rows = (
        await readAll(
          new FileSource(file, FileFormat.csv(), { onError: { deadLetter: (b) => bad.push(b) } }),
          10,
        )
      ).flat();
      expect(rows).toEqual([['1']]);
      expect(bad.map((b) => b.line)).toEqual([1]);
    });
  });

  it('types rows by header mode', () => {
    const objects: FileFormat<CsvRecord> = FileFormat.csv({ header: true });
    const arrays: FileFormat<string[]> = FileFormat.csv({ delimiter: '\t' });
    const converted: FileFormat<number> = FileFormat.csv({ parse: (row) => row.length });
    // @ts-expect-error rows of a CSV with a header are objects, not arrays
    const wrongShape: FileFormat<string[]> = FileFormat.csv({ header: true });
    // @ts-expect-error without parse there is no converting to another type
    const unchecked = FileFormat.csv<{ n: number }>({ header: true });
    const general: FileFormat<unknown> = objects;
    expect([objects, arrays, converted, wrongShape, unchecked, general].map((f) => f.name)).toEqual(
      Array<string>(6).fill('csv'),
    );
  });

  it('rejects invalid CSV options when the format is created', () => {
    expect(() => FileFormat.csv({ delimiter: '' })).toThrow(/invalid CSV options/);
  });
});
