/**
 * The batch codec against the batch itself: decode(encode(b)) must equal b
 * exactly, compared by a fingerprint that also sees key order, -0, holes and
 * undefined-versus-missing. Property tests cover uniform shapes (the columnar
 * fast path), mixed shapes and kinds (unions), nesting, unicode, keys and empty
 * batches; unsupported values must be refused naming record and field; and a
 * batch must survive a real transfer through a MessageChannel and a worker.
 */
import { MessageChannel, Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WeirError } from '../../src/core/errors.js';
import type { RecordBatch } from '../../src/core/record-batch.js';
import {
  type ColumnHeader,
  decodeBatch,
  type EncodedBatch,
  encodeBatch,
} from '../../src/runtime/transport/index.js';

/** A canonical rendering that distinguishes everything the codec must keep. */
function fingerprint(value: unknown): string {
  switch (typeof value) {
    case 'number':
      return Object.is(value, -0) ? 'n:-0' : `n:${value}`;
    case 'string':
      return `s:${JSON.stringify(value)}`;
    case 'bigint':
      return `b:${value}`;
    case 'boolean':
    case 'undefined':
      return String(value);
    case 'object': {
      if (value === null) return 'null';
      const proto: unknown = Object.getPrototypeOf(value);
      if (Array.isArray(value)) {
        const items: string[] = [];
        for (let i = 0; i < value.length; i++)
          items.push(i in value ? fingerprint(value[i]) : 'hole');
        return `[${items.join(',')}]`;
      }
      if (value instanceof Date) return `date:${value.getTime()}`;
      if (Buffer.isBuffer(value)) return `buffer:${value.toString('hex')}`;
      if (proto === Uint8Array.prototype)
        return `u8:${Buffer.from(value as Uint8Array).toString('hex')}`;
      if (value instanceof Map) {
        return `map{${[...value].map(([k, v]) => `${fingerprint(k)}=>${fingerprint(v)}`).join(',')}}`;
      }
      if (value instanceof Set) return `set{${[...value].map(fingerprint).join(',')}}`;
      const entries = Object.keys(value).map(
        (k) => `${JSON.stringify(k)}:${fingerprint((value as Record<string, unknown>)[k])}`,
      );
      return `{${entries.join(',')}}${proto === Object.prototype ? '' : '<proto>'}`;
    }
    default:
      return `?${typeof value}`;
  }
}

/** `items` with the slot at `index` made a hole. */
function sparse(items: unknown[], index: number): unknown[] {
  delete items[index];
  return items;
}

function roundTrip<T>(batch: RecordBatch<T>, shareStringMemory = false): RecordBatch<T> {
  const encoded = encodeBatch(batch);
  // The header must survive structured cloning on its own (no buffers or typed arrays in it).
  const header = structuredClone({ ...encoded, buffers: [] });
  return decodeBatch<T>({ ...header, buffers: encoded.buffers }, { shareStringMemory });
}

function expectSame<T>(actual: RecordBatch<T>, expected: RecordBatch<T>): void {
  expect(actual.values.map(fingerprint)).toEqual(expected.values.map(fingerprint));
  expect(actual.timestamps.map(fingerprint)).toEqual(expected.timestamps.map(fingerprint));
  expect(actual.keys?.map(fingerprint)).toEqual(expected.keys?.map(fingerprint));
}

function kinds(column: ColumnHeader): string[] {
  switch (column.kind) {
    case 'object':
      return ['object', ...column.fields.flatMap(kinds)];
    case 'array':
      return ['array', ...kinds(column.items)];
    case 'union':
      return ['union', ...column.members.flatMap(kinds)];
    case 'dictionary':
      return ['dictionary', ...kinds(column.dictionary)];
    default:
      return [column.kind];
  }
}

const timestamp = fc.oneof(
  fc.integer({ min: -1e13, max: 1e13 }),
  fc.constant(Number.NEGATIVE_INFINITY),
  fc.double(),
);

const text = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 6 }), // may hold lone surrogates
  fc.constantFrom('', 'Google', 'channel-1234', 'Ünïcödé ✓ 😀', 'a\u0000b'),
);

const leaf = fc.oneof(
  fc.double(), // -0, NaN, ±Infinity included
  fc.integer(),
  fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }),
  text,
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.bigInt(), // beyond 64 bits too
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  fc.date({ noInvalidDate: false }),
);

const fieldName = fc.oneof(
  fc.constantFrom('a', 'b', 'price', '1', '0', '', '__proto__', 'constructor'),
  fc.string({ maxLength: 4 }),
);

const plainValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fieldName, tie('value'), { maxKeys: 4, noNullPrototype: true }),
    fc.sparseArray(fc.integer(), { maxLength: 4 }),
    fc.uint8Array({ maxLength: 4 }),
    fc.uint8Array({ maxLength: 4 }).map((bytes) => Buffer.from(bytes)),
    fc.array(fc.tuple(leaf, leaf), { maxLength: 3 }).map((entries) => new Map(entries)),
    fc.array(fc.integer(), { maxLength: 3 }).map((items) => new Set(items)),
  ),
})).value;

/** Batches of any values: unions of kinds and shapes, nesting, fallbacks. */
const anyBatch = fc.integer({ min: 0, max: 40 }).chain((n) =>
  fc.record({
    values: fc.array(plainValue, { minLength: n, maxLength: n }),
    timestamps: fc.array(timestamp, { minLength: n, maxLength: n }),
    keys: fc.option(
      fc.array(fc.oneof(fc.string(), fc.double(), fc.bigInt(), fc.boolean()), {
        minLength: n,
        maxLength: n,
      }),
      { nil: undefined },
    ),
  }),
);

/** Batches of objects sharing one shape, each field of one leaf kind: the columnar fast path. */
const uniformBatch = fc
  .tuple(
    fc.uniqueArray(fieldName, { minLength: 1, maxLength: 6 }),
    fc.integer({ min: 1, max: 300 }),
  )
  .chain(([keys, n]) =>
    fc
      .tuple(
        ...keys.map(() =>
          fc.oneof(
            fc.array(fc.integer(), { minLength: n, maxLength: n }),
            fc.array(fc.double(), { minLength: n, maxLength: n }),
            fc.array(text, { minLength: n, maxLength: n }),
            fc.array(fc.constantFrom('Google', 'Facebook', 'Baidu', 'Apple', 'ü'), {
              minLength: n,
              maxLength: n,
            }),
            fc.array(fc.option(fc.integer(), { nil: null }), { minLength: n, maxLength: n }),
            fc.array(fc.boolean(), { minLength: n, maxLength: n }),
          ),
        ),
      )
      .map((columns) => {
        const values: Record<string, unknown>[] = [];
        for (let i = 0; i < n; i++) {
          const record: Record<string, unknown> = {};
          keys.forEach((key, k) => {
            Object.defineProperty(record, key, {
              value: (columns[k] as unknown[])[i],
              enumerable: true,
              writable: true,
              configurable: true,
            });
          });
          values.push(record);
        }
        return { values, timestamps: values.map((_, i) => i * 7), keys: undefined };
      }),
  );

describe('batch codec round trip', () => {
  it('keeps arbitrary plain values, keys and timestamps exactly', () => {
    fc.assert(
      fc.property(anyBatch, fc.boolean(), (batch, share) => {
        expectSame(roundTrip(batch, share), batch);
      }),
      { numRuns: 400 },
    );
  });

  it('keeps uniform object batches exactly, as one column per field', () => {
    fc.assert(
      fc.property(uniformBatch, fc.boolean(), (batch, shareStringMemory) => {
        const encoded = encodeBatch(batch);
        expect(encoded.values.kind).toBe('object');
        expectSame(decodeBatch(encoded, { shareStringMemory }), batch);
      }),
      { numRuns: 200 },
    );
  });

  it('sends keys taken from a field as the field name, and any other keys as a column', () => {
    fc.assert(
      fc.property(
        uniformBatch,
        fc.nat(),
        fc.option(fc.nat(), { nil: undefined }),
        (batch, pick, changed) => {
          const fields = Object.keys(batch.values[0] as object);
          const field = fields[pick % fields.length] as string;
          const keys = batch.values.map((v) => v[field]);
          // Optionally one key differs from its field (-0 against 0 counts as different).
          if (changed !== undefined) {
            const i = changed % keys.length;
            keys[i] = Object.is(keys[i], 0) ? -0 : 'other';
          }
          const keyed = { ...batch, keys };
          const encoded = encodeBatch(keyed);
          if (changed === undefined) expect(encoded.keys?.kind).toBe('field');
          else if (encoded.keys?.kind === 'field') expect(encoded.keys.key).not.toBe(field);
          expectSame(decodeBatch(encoded), keyed);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('encodes Nexmark-like bids as typed columns and dictionaries', () => {
    const values = Array.from({ length: 1000 }, (_, i) => ({
      auction: 1000 + (i % 17),
      bidder: 2000 + i,
      price: 100 + i * 3,
      channel: ['Google', 'Facebook', 'Baidu', 'Apple'][i % 4] as string,
      url: `https://www.nexmark.com/item.htm?query=${i % 4}`,
      dateTime: 1_700_000_000_000 + i,
      extra: `x${i}`,
    }));
    const batch = {
      values,
      timestamps: values.map((v) => v.dateTime),
      keys: values.map((v) => v.auction),
    };
    const encoded = encodeBatch(batch);
    expect(kinds(encoded.values)).toEqual([
      'object',
      'i32',
      'i32',
      'i32',
      'dictionary',
      'string',
      'dictionary',
      'string',
      'f64',
      'string',
    ]);
    // The keys are the auction field: only its name is sent.
    expect(encoded.keys).toEqual({ kind: 'field', key: 'auction' });
    expectSame(decodeBatch(encoded), batch);
  });

  it('keeps the cases that are easy to lose', () => {
    const values: unknown[] = [
      { a: -0, b: Number.NaN, c: undefined, d: null },
      { a: 0, b: 1, d: null }, // missing c
      { d: null, b: 1, a: 0, c: undefined }, // same keys, other order
      { 2: 'x', 1: 'y', z: 'z' },
      JSON.parse('{"__proto__": {"polluted": true}, "x": 1}'),
      { s: '\ud800 lone', t: 'ok' },
      sparse([1, 2, 3], 1),
      new Date(Number.NaN),
      2n ** 100n,
      -(2n ** 63n),
      Buffer.from('buf'),
      new Uint8Array([1, 2]),
      new Float32Array([1.5]),
      /re+/gi,
      new Map<unknown, unknown>([[{ k: 1 }, new Set([1])]]),
      {},
      [],
      '',
    ];
    const batch = { values, timestamps: values.map(() => 0), keys: undefined };
    expectSame(roundTrip(batch, true), batch);
    const decoded = roundTrip(batch);
    expectSame(decoded, batch);
    expect(Object.getPrototypeOf(decoded.values[4])).toBe(Object.prototype);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    expect(decoded.values[12]).toBeInstanceOf(Float32Array);
    expect(decoded.values[13]).toEqual(/re+/gi);
  });

  it('reads number fields of one shape straight into typed columns, and notices a record that does not fit', () => {
    const records = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        key: i % 7,
        value: i * 0.5,
        t: 1_700_000_000_000 + i,
      }));
    const plain = {
      values: records(300),
      timestamps: records(300).map((r) => r.t),
      keys: undefined,
    };
    const encoded = encodeBatch(plain);
    expect(kinds(encoded.values)).toEqual(['object', 'i32', 'f64', 'f64']);
    expectSame(decodeBatch(encoded), plain);
    const nullProto = Object.assign(Object.create(null) as object, { key: 1, value: 2, t: 3 });
    const misfits: unknown[] = [
      { key: 1, value: 2, t: 3, extra: 4 },
      { key: 1, value: 2 },
      { value: 2, key: 1, t: 3 },
      { key: '1', value: 2, t: 3 },
      { key: 1, value: 2n, t: 3 },
      { key: -0, value: Number.NaN, t: Number.POSITIVE_INFINITY },
      nullProto,
    ];
    for (const misfit of misfits) {
      for (const at of [1, 150, 299]) {
        const values: unknown[] = records(300);
        values[at] = misfit;
        const batch = { values, timestamps: values.map((_, i) => i), keys: undefined };
        // A null-prototype record comes back with the ordinary prototype, as with structured clone.
        const expected =
          misfit === nullProto
            ? { ...batch, values: values.map((v) => ({ ...(v as object) })) }
            : batch;
        expectSame(roundTrip(batch), expected);
      }
    }
    class Point {
      constructor(
        readonly key: number,
        readonly value: number,
        readonly t: number,
      ) {}
    }
    const withInstance: unknown[] = records(10);
    withInstance[5] = new Point(1, 2, 3);
    expect(() =>
      encodeBatch({ values: withInstance, timestamps: withInstance.map(() => 0), keys: undefined }),
    ).toThrow(/record 5 cannot cross threads/);
  });

  it('encodes a union of shapes as one object column per shape', () => {
    const values = Array.from({ length: 300 }, (_, i) =>
      i % 3 === 0
        ? { type: 'person', person: { id: i, name: `p${i}` } }
        : i % 3 === 1
          ? { type: 'auction', auction: { id: i, reserve: i * 1.5 } }
          : { type: 'bid', bid: { auction: i, price: i } },
    );
    const batch = { values, timestamps: values.map((_, i) => i), keys: undefined };
    const encoded = encodeBatch(batch);
    expect(encoded.values.kind).toBe('union');
    expect(kinds(encoded.values).filter((k) => k === 'object')).toHaveLength(6);
    expectSame(decodeBatch(encoded), batch);
  });

  it('serializes a column with too many shapes as one buffer', () => {
    const values = Array.from({ length: 100 }, (_, i) => ({ [`field${i % 40}`]: i }));
    const batch = { values, timestamps: values.map(() => 0), keys: undefined };
    const encoded = encodeBatch(batch);
    expect(encoded.values.kind).toBe('serialized');
    expectSame(decodeBatch(encoded), batch);
  });

  it('handles empty batches, with and without keys', () => {
    expectSame(roundTrip({ values: [], timestamps: [], keys: undefined }), {
      values: [],
      timestamps: [],
      keys: undefined,
    });
    expectSame(roundTrip({ values: [], timestamps: [], keys: [] }), {
      values: [],
      timestamps: [],
      keys: [],
    });
  });

  it('serializes deeply nested and cyclic values as a whole batch, keeping cycles', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100; i++) deep = { next: deep };
    const cyclic: { name: string; self?: unknown } = { name: 'loop' };
    cyclic.self = cyclic;
    const encoded = encodeBatch({ values: [deep, cyclic], timestamps: [1, 2], keys: undefined });
    expect(encoded.values.kind).toBe('serialized');
    const decoded = decodeBatch<{ self?: unknown }>(encoded);
    expect(fingerprint(decoded.values[0])).toBe(fingerprint(deep));
    const loop = decoded.values[1] as { self?: unknown };
    expect(loop.self).toBe(loop);
  });

  it('does not share memory between decoded values and the transferred buffers', () => {
    const batch = {
      values: [Buffer.from('abc'), Buffer.from('de')],
      timestamps: [0, 0],
      keys: undefined,
    };
    const encoded = encodeBatch(batch);
    const decoded = decodeBatch<Buffer>(encoded);
    for (const b of encoded.buffers) new Uint8Array(b).fill(0);
    expect(decoded.values.map((b) => b.toString())).toEqual(['abc', 'de']);
  });
});

describe('batch codec refuses what cannot cross threads', () => {
  class Point {
    constructor(readonly x: number) {}
  }

  const cases: [string, RecordBatch<unknown>, RegExp][] = [
    [
      'a function in a field',
      { values: [{ a: 1 }, { a: 2, f: () => 1 }], timestamps: [0, 0], keys: undefined },
      /record 1 .*value at field 'f' is a function/,
    ],
    [
      'a class instance nested in an array',
      {
        values: [{ p: [] }, { p: [] }, { p: [1, new Point(1)] }],
        timestamps: [0, 0, 0],
        keys: undefined,
      },
      /record 2 .*value at field 'p\[1\]' is an instance of Point.*plain data/,
    ],
    [
      'a symbol as the whole value',
      { values: ['a', Symbol('s')], timestamps: [0, 0], keys: undefined },
      /record 1 .*value is a symbol/,
    ],
    [
      'a boxed primitive',
      { values: [{ n: new Number(1) }], timestamps: [0], keys: undefined },
      /record 0 .*field 'n' is an instance of Number/,
    ],
    [
      'a function inside a Map',
      { values: [new Map([['k', { cb: () => 0 }]])], timestamps: [0], keys: undefined },
      /record 0 .*<map value>\.cb' is a function/,
    ],
    [
      'a class instance as a key',
      { values: [1, 2], timestamps: [0, 0], keys: ['k', new Point(2)] },
      /record 1 .*its key is an instance of Point/,
    ],
    [
      'a class instance below the nesting limit',
      (() => {
        let deep: unknown = new Point(3);
        for (let i = 0; i < 50; i++) deep = { d: deep };
        return { values: [deep], timestamps: [0], keys: undefined };
      })(),
      /record 0 .*field 'd(\.d){49}' is an instance of Point/,
    ],
  ];

  for (const [name, batch, message] of cases) {
    it(`refuses ${name}`, () => {
      let thrown: unknown;
      try {
        encodeBatch(batch);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(WeirError);
      expect((thrown as WeirError).code).toBe('BAD_RECORD');
      expect((thrown as WeirError).message).toMatch(message);
    });
  }
});

describe('batch codec across threads', () => {
  const batch = {
    values: Array.from({ length: 500 }, (_, i) => ({
      key: `user-${i % 10}`,
      value: i % 3 === 0 ? null : i * 1.5,
      t: 1_700_000_000_000 + i,
      tags: i % 2 === 0 ? ['a', 'ü'] : [],
    })),
    timestamps: Array.from({ length: 500 }, (_, i) => 1_700_000_000_000 + i),
    keys: Array.from({ length: 500 }, (_, i) => `user-${i % 10}`),
  };

  it('moves the buffers through a MessageChannel with a transfer list', async () => {
    const { port1, port2 } = new MessageChannel();
    try {
      const before = batch.values.map(fingerprint);
      const encoded = encodeBatch(batch);
      const received = new Promise<EncodedBatch>((resolve) => port2.once('message', resolve));
      port1.postMessage(encoded, encoded.buffers);
      // Transferred, not copied: the sender's buffers are detached.
      expect(encoded.buffers.every((b) => b.byteLength === 0)).toBe(true);
      expectSame(decodeBatch(await received), batch);
      // The sender's batch is untouched: encoding copies, only the codec's own buffers move.
      expect(batch.values.map(fingerprint)).toEqual(before);
    } finally {
      port1.close();
      port2.close();
    }
  });

  it('survives a trip to a worker thread and back', async () => {
    // The worker sends the encoded batch straight back, transferring its buffers again.
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads');
       parentPort.on('message', (m) => parentPort.postMessage(m, m.buffers));`,
      { eval: true },
    );
    try {
      const encoded = encodeBatch(batch);
      const back = new Promise<EncodedBatch>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      worker.postMessage(encoded, encoded.buffers);
      expectSame(decodeBatch(await back), batch);
    } finally {
      await worker.terminate();
    }
  });
});
