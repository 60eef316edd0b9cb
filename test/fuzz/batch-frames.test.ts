/**
 * Fuzzing the batch codec's decoder (frames between worker threads): real
 * encoded batches with a damaged header (numbers, kinds, keys) or damaged
 * buffers (bit flips, cut short, swapped). A damaged frame must decode to a
 * batch of the right length or fail with an INTERNAL error saying the frame
 * is damaged: never a TypeError or RangeError, a hang, or an allocation
 * without end.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WeirError } from '../../src/core/errors.js';
import type { RecordBatch } from '../../src/core/record-batch.js';
import { decodeBatch, type EncodedBatch, encodeBatch } from '../../src/runtime/transport/index.js';
import { fuzzParameters, outcome } from './fuzz.js';

/** Records of the shapes the encoder has columns for: objects, unions, strings, bytes, arrays, odd values. */
const leaf = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom('a', 'b', 'c'),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  fc.date({ noInvalidDate: true }),
  fc.uint8Array({ maxLength: 6 }).map((b) => Buffer.from(b)),
  fc.constant(new Map([[1, 2]])),
);
const record = fc.oneof(
  fc.record({
    user: fc.constantFrom('u1', 'u2'),
    n: fc.integer(),
    score: fc.double(),
    tags: fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }),
  }),
  fc.record({
    user: fc.constantFrom('u1', 'u2'),
    at: fc.date({ noInvalidDate: true }),
    payload: leaf,
  }),
  leaf,
  fc.array(leaf, { maxLength: 4 }),
);
const batch = fc
  .array(record, { maxLength: 20 })
  .chain((values) =>
    fc.record({
      values: fc.constant(values),
      timestamps: fc.array(fc.integer({ min: 0, max: 2 ** 40 }), {
        minLength: values.length,
        maxLength: values.length,
      }),
      keyed: fc.boolean(),
    }),
  )
  .map(({ values, timestamps, keyed }): RecordBatch<unknown> => {
    const uniform = values.every((v) => typeof v === 'object' && v !== null && 'user' in v);
    return {
      values,
      timestamps,
      keys: keyed
        ? values.map((v) => (uniform ? (v as { user: string }).user : typeof v))
        : undefined,
    };
  });

/** Where a header holds a number or a string: paths into it. */
function leavesOf(value: unknown, at: (string | number)[] = [], out: (string | number)[][] = []) {
  if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean')
    out.push(at);
  else if (Array.isArray(value)) value.forEach((v, i) => void leavesOf(v, [...at, i], out));
  else if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value)) leavesOf(v, [...at, k], out);
  return out;
}

function setAt(value: unknown, path: readonly (string | number)[], to: unknown): unknown {
  if (path.length === 0) return to;
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<
    string | number,
    unknown
  >;
  copy[head] = setAt(copy[head], rest, to);
  return copy;
}

const odd = fc.oneof(
  fc.integer({ min: -3, max: 40 }),
  fc.constantFrom(-1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 53, Number.NaN, 1.5, 1e9),
  fc.constantFrom(
    'null',
    'undefined',
    'i32',
    'f64',
    'bool',
    'bigint',
    'date',
    'string',
    'dictionary',
    'bytes',
    'object',
    'array',
    'union',
    'serialized',
    'field',
    'nope',
    '__proto__',
  ),
  fc.boolean(),
);

/** One kind of damage to a frame. */
type Damage =
  | { kind: 'header'; pick: number; to: unknown }
  | { kind: 'flip'; buffer: number; at: number; bit: number }
  | { kind: 'cut'; buffer: number; at: number }
  | { kind: 'swap'; a: number; b: number }
  | { kind: 'drop'; buffer: number };
const damage: fc.Arbitrary<Damage> = fc.oneof(
  fc.record({ kind: fc.constant('header' as const), pick: fc.nat(), to: odd }),
  fc.record({
    kind: fc.constant('flip' as const),
    buffer: fc.nat(),
    at: fc.nat(),
    bit: fc.nat({ max: 7 }),
  }),
  fc.record({ kind: fc.constant('cut' as const), buffer: fc.nat(), at: fc.nat() }),
  fc.record({ kind: fc.constant('swap' as const), a: fc.nat(), b: fc.nat() }),
  fc.record({ kind: fc.constant('drop' as const), buffer: fc.nat() }),
);

function damageFrame(encoded: EncodedBatch, ds: readonly Damage[]): EncodedBatch {
  let header: Record<string, unknown> = { ...encoded, buffers: undefined };
  const buffers = encoded.buffers.map((b) => b.slice(0));
  for (const d of ds) {
    const n = buffers.length;
    if (d.kind === 'header') {
      const leaves = leavesOf(header);
      if (leaves.length > 0)
        header = setAt(
          header,
          leaves[d.pick % leaves.length] as (string | number)[],
          d.to,
        ) as Record<string, unknown>;
    } else if (n > 0 && d.kind === 'flip') {
      const view = new Uint8Array(buffers[d.buffer % n] as ArrayBuffer);
      if (view.length > 0)
        view[d.at % view.length] = (view[d.at % view.length] as number) ^ (1 << d.bit);
    } else if (n > 0 && d.kind === 'cut') {
      const i = d.buffer % n;
      const b = buffers[i] as ArrayBuffer;
      buffers[i] = b.slice(0, d.at % (b.byteLength + 1));
    } else if (n > 0 && d.kind === 'swap') {
      const a = d.a % n;
      const b = d.b % n;
      [buffers[a], buffers[b]] = [buffers[b] as ArrayBuffer, buffers[a] as ArrayBuffer];
    } else if (n > 0 && d.kind === 'drop') {
      buffers.splice(d.buffer % n, 1);
    }
  }
  return { ...(header as unknown as EncodedBatch), buffers };
}

describe('fuzz: batch frames', () => {
  it('a damaged frame decodes to a batch of its length or fails as a damaged frame', () => {
    fc.assert(
      fc.property(batch, fc.array(damage, { minLength: 1, maxLength: 3 }), (b, ds) => {
        const frame = damageFrame(encodeBatch(b), ds);
        const result = outcome(() => decodeBatch(frame));
        if ('error' in result) {
          expect(result.error).toBeInstanceOf(WeirError);
          expect((result.error as WeirError).code).toBe('INTERNAL');
          expect((result.error as WeirError).message).toMatch(
            /damaged encoded batch|encoded batch (lacks|format)|unknown encoded batch/,
          );
          return;
        }
        const decoded = result.value;
        expect(decoded.values.length).toBe(decoded.timestamps.length);
        if (decoded.keys !== undefined) expect(decoded.keys.length).toBe(decoded.values.length);
      }),
      fuzzParameters(),
    );
  });

  it('an undamaged frame decodes to the batch', () => {
    fc.assert(
      fc.property(batch, (b) => {
        const decoded = decodeBatch(encodeBatch(b));
        expect(decoded.values.length).toBe(b.values.length);
        expect(decoded.timestamps).toEqual(b.timestamps);
      }),
      fuzzParameters(100),
    );
  });
});

describe('fuzz: kept batch frames', () => {
  // Frames fuzzing found bugs with, kept as regression cases.
  const strings: RecordBatch<unknown> = {
    values: ['ab', 'cd'],
    timestamps: [1, 2],
    keys: undefined,
  };
  it.each([
    // A length beyond the buffers: a RangeError from a typed-array view.
    {
      name: 'batch length beyond the buffers',
      change: (f: EncodedBatch) => ({ ...f, length: 1e6 }),
    },
    // Offsets that fall: strings decoded from the wrong bytes, silently.
    {
      name: 'string offsets that fall',
      change: (f: EncodedBatch) => {
        const header = f.values as { offsets: number };
        new Uint32Array(f.buffers[header.offsets] as ArrayBuffer)[1] = 3;
        new Uint32Array(f.buffers[header.offsets] as ArrayBuffer)[2] = 1;
        return f;
      },
    },
    // A column of a billion nulls: an allocation without end.
    {
      name: 'a billion nulls',
      change: (f: EncodedBatch) => ({
        ...f,
        values: { kind: 'array', offsets: 99, items: { kind: 'null' } } as never,
        buffers: [...f.buffers, new Uint32Array([0, 1e9, 1e9]).buffer],
        length: 2,
      }),
    },
    // An unknown column kind: undefined values, then a TypeError.
    {
      name: 'unknown column kind',
      change: (f: EncodedBatch) => ({ ...f, values: { kind: 'nope' } as never }),
    },
  ])('$name', ({ change }) => {
    const frame = change(encodeBatch(strings));
    if (frame.values.kind === 'array' && (frame.values as { offsets: number }).offsets === 99) {
      (frame.values as { offsets: number }).offsets = frame.buffers.length - 1;
    }
    const result = outcome(() => decodeBatch(frame));
    expect('error' in result).toBe(true);
    if ('error' in result) {
      expect(result.error).toBeInstanceOf(WeirError);
      expect((result.error as WeirError).message).toMatch(/damaged encoded batch/);
    }
  });
});
