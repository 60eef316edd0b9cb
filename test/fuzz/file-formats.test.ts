/**
 * Fuzzing the file formats (CSV, JSON Lines) through a real FileSource:
 * whatever the bytes of a file, reading ends, every record is either emitted
 * or handed to the dead letter and counted, and nothing is decoded with
 * replacement characters. For inputs whose line structure is known (no
 * quotes), the records and bad records are predicted exactly.
 */
import { isUtf8 } from 'node:buffer';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type BadRecord, FileFormat, FileSource } from '../../src/index.js';
import { MetricRegistry } from '../../src/metrics/registry.js';
import { readAll, tempDir } from '../connectors/files/helpers.js';
import { bytesAround, fuzzParameters, INVALID_UTF8, timedAsync } from './fuzz.js';

const FFFD = Buffer.from('\uFFFD');

interface Read<T> {
  readonly records: T[];
  readonly bad: BadRecord[];
  readonly counted: number;
}

async function read<T>(dir: string, bytes: Buffer, format: FileFormat<T>): Promise<Read<T>> {
  const file = join(dir, 'input');
  await writeFile(file, bytes);
  const bad: BadRecord[] = [];
  const metrics = new MetricRegistry();
  const source = new FileSource(file, format, { onError: { deadLetter: (b) => bad.push(b) } });
  const records = (await timedAsync(() => readAll(source, 100, metrics))).flat();
  return { records, bad, counted: metrics.total('weir_source_bad_records_total') };
}

/** Every string inside `value`. */
function stringsOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsOf(v, out);
  else if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      stringsOf(v, out);
    }
  return out;
}

/** A replacement character in a record is only allowed if the file holds one. */
function expectNoReplacement(bytes: Buffer, records: readonly unknown[]): void {
  if (bytes.includes(FFFD)) return;
  for (const r of records) for (const s of stringsOf(r)) expect(s).not.toContain('\uFFFD');
}

function expectCounted(result: Read<unknown>, bytes: Buffer): void {
  expect(result.counted).toBe(result.bad.length);
  const lines = bytes.length === 0 ? 1 : 1 + bytes.filter((b) => b === 10).length;
  let previous = 0;
  for (const b of result.bad) {
    expect(b.line).toBeGreaterThanOrEqual(Math.max(1, previous));
    expect(b.line).toBeLessThanOrEqual(lines + bytes.filter((c) => c === 13).length);
    expect(typeof b.error).toBe('string');
    previous = b.line;
  }
}

/** Lines of bytes: a few fields of printable text, unicode, invalid UTF-8 and odd values. */
const fieldBytes = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 8 }).map((s) => Buffer.from(s)) },
  {
    weight: 2,
    arbitrary: fc.string({ unit: 'grapheme', maxLength: 4 }).map((s) => Buffer.from(s)),
  },
  { weight: 1, arbitrary: fc.constantFrom(...INVALID_UTF8).map((b) => Buffer.from(b)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('NaN', '1e400', '\u0000', '\uFFFD').map((s) => Buffer.from(s)),
  },
);
const csvText = fc
  .array(fc.array(fieldBytes, { minLength: 1, maxLength: 4 }), { maxLength: 12 })
  .map((rows) =>
    Buffer.concat(
      rows.flatMap((r) => [
        Buffer.concat(r.flatMap((f, i) => (i === 0 ? [f] : [Buffer.from(','), f]))),
        Buffer.from('\n'),
      ]),
    ),
  );

/** Drops quotes, CRs and LFs from generated field bytes, so each line is one row. */
const unquoted = (b: Buffer): Buffer =>
  Buffer.from(b.filter((c) => c !== 0x22 && c !== 13 && c !== 10));

describe('fuzz: CSV files', () => {
  it('arbitrary and damaged files: reading ends, bad rows are counted, nothing is replaced', async () => {
    const dir = await tempDir();
    await fc.assert(
      fc.asyncProperty(bytesAround(csvText), fc.boolean(), async (bytes, header) => {
        const format = header ? FileFormat.csv({ header: true }) : FileFormat.csv();
        const result = await read<unknown>(dir, bytes, format);
        expectCounted(result, bytes);
        expectNoReplacement(bytes, result.records);
      }),
      fuzzParameters(),
    );
  });

  it('rows without quotes: each line is a record or, if not valid UTF-8, a bad record', async () => {
    const dir = await tempDir();
    const lines = fc.array(fc.array(fieldBytes.map(unquoted), { minLength: 1, maxLength: 4 }), {
      maxLength: 12,
    });
    await fc.assert(
      fc.asyncProperty(lines, fc.boolean(), async (rows, crlf) => {
        const end = Buffer.from(crlf ? '\r\n' : '\n');
        const joined = rows.map((r) =>
          Buffer.concat(r.flatMap((f, i) => (i === 0 ? [f] : [Buffer.from(','), f]))),
        );
        const bytes = Buffer.concat(joined.flatMap((l) => [l, end]));
        const result = await read<string[]>(dir, bytes, FileFormat.csv({ relaxColumnCount: true }));
        const expectedRecords: string[][] = [];
        const expectedBad: number[] = [];
        joined.forEach((line, i) => {
          const bom = i === 0 && line.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]));
          const l = bom ? line.subarray(3) : line;
          if (l.length === 0) return;
          if (isUtf8(l)) expectedRecords.push(l.toString('utf8').split(','));
          else expectedBad.push(i + 1);
        });
        expect(result.records).toEqual(expectedRecords);
        expect(result.bad.map((b) => b.line)).toEqual(expectedBad);
        expect(result.counted).toBe(expectedBad.length);
      }),
      fuzzParameters(),
    );
  });
});

const jsonValue = fc.jsonValue({ maxDepth: 3 }).map((v) => Buffer.from(JSON.stringify(v)));
const jsonLinesText = fc
  .array(fc.oneof(jsonValue, fieldBytes), { maxLength: 12 })
  .map((ls) => Buffer.concat(ls.flatMap((l) => [l, Buffer.from('\n')])));

describe('fuzz: JSON Lines files', () => {
  it('each non-blank line is a record, or a bad record counted with its line number', async () => {
    const dir = await tempDir();
    await fc.assert(
      fc.asyncProperty(bytesAround(jsonLinesText), async (bytes) => {
        const result = await read<unknown>(dir, bytes, FileFormat.jsonLines());
        expectCounted(result, bytes);
        expectNoReplacement(bytes, result.records);
        // The oracle: split at LF, drop one CR before it and the BOM of line 1.
        const expectedRecords: unknown[] = [];
        const expectedBad: number[] = [];
        let start = 0;
        let lineNo = 0;
        while (start <= bytes.length) {
          const nl = bytes.indexOf(10, start);
          const stop = nl === -1 ? bytes.length : nl;
          let line = bytes.subarray(start, stop);
          lineNo++;
          if (lineNo === 1 && line.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf])))
            line = line.subarray(3);
          if (line[line.length - 1] === 13) line = line.subarray(0, -1);
          if (!isUtf8(line)) expectedBad.push(lineNo);
          else if (line.toString('utf8').trim() !== '') {
            try {
              expectedRecords.push(JSON.parse(line.toString('utf8')));
            } catch {
              expectedBad.push(lineNo);
            }
          }
          if (nl === -1) break;
          start = nl + 1;
        }
        expect(result.records).toEqual(expectedRecords);
        expect(result.bad.map((b) => b.line)).toEqual(expectedBad);
      }),
      fuzzParameters(),
    );
  });
});

describe('fuzz: kept inputs', () => {
  // Inputs fuzzing found bugs with, kept as regression cases.
  it.each([
    // csv-parse decoded the lone continuation byte as U+FFFD and emitted the row.
    { name: 'lone continuation byte', bytes: [0x80, 0x0a], header: false, bad: [1] },
    // Same, with the invalid byte in a row under a header.
    { name: 'row under a header', bytes: [0x61, 0x0a, 0xff, 0x0a], header: true, bad: [2] },
    // csv-parse took FF FE for a UTF-16 byte order mark and decoded the file as UTF-16.
    { name: 'UTF-16 byte order mark', bytes: [0xff, 0xfe, 0x61, 0x0a], header: false, bad: [1] },
    // A header with an invalid byte, then a skipped row: the header's line was forgotten
    // when the skipped row was checked, and rows were keyed by a name with U+FFFD.
    {
      name: 'invalid header before a skipped row',
      bytes: [0x2c, 0x80, 0x2c, 0x0a, 0x20, 0x0a, 0x2c, 0x2c, 0x0a],
      header: true,
      bad: [2, 3],
    },
  ])('CSV: $name', async ({ bytes, header, bad }) => {
    const format = header ? FileFormat.csv({ header: true }) : FileFormat.csv();
    const result = await read<unknown>(await tempDir(), Buffer.from(bytes), format);
    expect(result.records).toEqual([]);
    expect(result.bad.map((b) => b.line)).toEqual(bad);
    expect(result.counted).toBe(bad.length);
  });
});

describe('fuzz: kept JSON Lines inputs', () => {
  // A line holding only a vertical tab was a bad record, one holding a space and a
  // vertical tab a blank line: the fast path of the blank-line check missed white space.
  it.each([
    { name: 'vertical tab', bytes: [0x0b, 0x0a, 0x31, 0x0a], records: [1] },
    { name: 'no-break space', bytes: [0xc2, 0xa0, 0x0a, 0x32], records: [2] },
  ])('$name', async ({ bytes, records }) => {
    const result = await read<unknown>(await tempDir(), Buffer.from(bytes), FileFormat.jsonLines());
    expect(result.records).toEqual(records);
    expect(result.bad).toEqual([]);
  });
});
