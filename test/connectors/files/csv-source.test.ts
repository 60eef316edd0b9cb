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
