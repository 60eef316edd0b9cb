/**
 * Fuzzing the PostgreSQL replication decoders: binary CopyData payloads
 * (keepalives and pgoutput messages) and the text values of each column type
 * converted into change-event values. A payload either decodes to a message
 * whose re-encoding is the payload, or fails with a SOURCE_FAILED error
 * naming the byte offset; a text value either converts or fails naming the
 * column; nothing hangs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TableInfo } from '../../src/connectors/postgres/cdc/catalog.js';
import { ChangeDecoder } from '../../src/connectors/postgres/cdc/change-decoder.js';
import { decodeRow, relationShape } from '../../src/connectors/postgres/cdc/changes.js';
import {
  decodeReplicationMessage,
  type PgOutputMessage,
  type ReplicationMessage,
  type TupleValue,
  UNCHANGED_TOAST,
} from '../../src/connectors/postgres/cdc/pgoutput.js';
import { type TypeInfo, TypeMapper } from '../../src/connectors/postgres/type-mapping.js';
import type { ResolvedTypeMapping } from '../../src/connectors/postgres/values.js';
import type { WeirError } from '../../src/core/errors.js';
import {
  AWKWARD_TEXTS,
  bytesAround,
  expectOurError,
  fuzzParameters,
  outcome,
  timed,
} from './fuzz.js';

const PG_EPOCH_US = 946_684_800_000_000n;

/** Writes messages as the server does (the reverse of the decoder, for valid inputs). */
class Writer {
  private readonly parts: Buffer[] = [];
  u8(v: number): this {
    this.parts.push(Buffer.of(v));
    return this;
  }
  i16(v: number): this {
    const b = Buffer.alloc(2);
    b.writeInt16BE(v);
    this.parts.push(b);
    return this;
  }
  u32(v: number): this {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(v);
    this.parts.push(b);
    return this;
  }
  i32(v: number): this {
    const b = Buffer.alloc(4);
    b.writeInt32BE(v);
    this.parts.push(b);
    return this;
  }
  u64(v: bigint): this {
    const b = Buffer.alloc(8);
    b.writeBigUInt64BE(v);
    this.parts.push(b);
    return this;
  }
  timeUs(us: number): this {
    const b = Buffer.alloc(8);
    b.writeBigInt64BE(BigInt(us) - PG_EPOCH_US);
    this.parts.push(b);
    return this;
  }
  cstring(s: string): this {
    this.parts.push(Buffer.from(s), Buffer.of(0));
    return this;
  }
  bytes(b: Buffer): this {
    this.parts.push(b);
    return this;
  }
  tuple(values: readonly TupleValue[]): this {
    this.i16(values.length);
    for (const v of values) {
      if (v === null) this.u8(0x6e);
      else if (v === UNCHANGED_TOAST) this.u8(0x75);
      else {
        const text = Buffer.from(v);
        this.u8(0x74).i32(text.length).bytes(text);
      }
    }
    return this;
  }
  done(): Buffer {
    return Buffer.concat(this.parts);
  }
}

function encodePgOutput(w: Writer, m: PgOutputMessage): Writer {
  switch (m.tag) {
    case 'begin':
      return w.u8(0x42).u64(m.finalLsn).timeUs(m.commitTimeUs).u32(m.xid);
    case 'commit':
      return w.u8(0x43).u8(0).u64(m.commitLsn).u64(m.endLsn).timeUs(m.commitTimeUs);
    case 'relation': {
      // The server sends pg_catalog as an empty name.
      w.u8(0x52).u32(m.relationId);
      w.cstring(m.schema === 'pg_catalog' ? '' : m.schema).cstring(m.table);
      w.u8(m.replicaIdentity.charCodeAt(0)).i16(m.columns.length);
      for (const c of m.columns)
        w.u8(c.isKey ? 1 : 0)
          .cstring(c.name)
          .u32(c.typeOid)
          .i32(c.typeMod);
      return w;
    }
    case 'type':
      return w.u8(0x59).u32(m.typeOid).cstring(m.schema).cstring(m.name);
    case 'origin':
      return w.u8(0x4f).u64(m.lsn).cstring(m.name);
    case 'insert':
      return w.u8(0x49).u32(m.relationId).u8(0x4e).tuple(m.newTuple);
    case 'update':
      w.u8(0x55).u32(m.relationId);
      if (m.oldKind !== undefined) w.u8(m.oldKind.charCodeAt(0)).tuple(m.oldTuple ?? []);
      return w.u8(0x4e).tuple(m.newTuple);
    case 'delete':
      return w.u8(0x44).u32(m.relationId).u8(m.oldKind.charCodeAt(0)).tuple(m.oldTuple);
    case 'truncate':
      w.u8(0x54).u32(m.relationIds.length);
      w.u8((m.cascade ? 1 : 0) | (m.restartIdentity ? 2 : 0));
      for (const id of m.relationIds) w.u32(id);
      return w;
    case 'message':
      w.u8(0x4d)
        .u8(m.transactional ? 1 : 0)
        .u64(m.lsn)
        .cstring(m.prefix);
      return w.u32(m.content.length).bytes(m.content);
  }
}

function encodeReplication(m: ReplicationMessage): Buffer {
  const w = new Writer();
  if (m.kind === 'keepalive') {
    return w
      .u8(0x6b)
      .u64(m.walEnd)
      .timeUs(m.serverTimeMs * 1000)
      .u8(m.replyRequested ? 1 : 0)
      .done();
  }
  w.u8(0x77).u64(m.start).u64(m.walEnd).u64(0n);
  return encodePgOutput(w, m.message).done();
}

const lsn = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
const u32 = fc.nat({ max: 0xffffffff });
const name = fc.string({ unit: 'grapheme', maxLength: 12 }).filter((s) => !s.includes('\u0000'));
const timeUs = fc.integer({ min: 0, max: 4_102_444_800_000_000 });
const tupleValue: fc.Arbitrary<TupleValue> = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom<TupleValue>(
    null,
    UNCHANGED_TOAST,
    ...AWKWARD_TEXTS.filter((t) => t !== '\uD800'),
  ),
);
const tuple = fc.array(tupleValue, { maxLength: 6 });

const pgOutputMessage: fc.Arbitrary<PgOutputMessage> = fc.oneof(
  fc.record({ tag: fc.constant('begin' as const), finalLsn: lsn, commitTimeUs: timeUs, xid: u32 }),
  fc.record({
    tag: fc.constant('commit' as const),
    commitLsn: lsn,
    endLsn: lsn,
    commitTimeUs: timeUs,
  }),
  fc.record({
    tag: fc.constant('relation' as const),
    relationId: u32,
    schema: name.filter((s) => s !== ''),
    table: name,
    replicaIdentity: fc.constantFrom('d' as const, 'n' as const, 'f' as const, 'i' as const),
    columns: fc.array(
      fc.record({
        name,
        isKey: fc.boolean(),
        typeOid: u32,
        typeMod: fc.integer({ min: -2147483648, max: 2147483647 }),
      }),
      { maxLength: 5 },
    ),
  }),
  fc.record({ tag: fc.constant('type' as const), typeOid: u32, schema: name, name }),
  fc.record({ tag: fc.constant('origin' as const), lsn, name }),
  fc.record({ tag: fc.constant('insert' as const), relationId: u32, newTuple: tuple }),
  fc.oneof(
    fc.record({
      tag: fc.constant('update' as const),
      relationId: u32,
      oldKind: fc.constant(undefined),
      oldTuple: fc.constant(undefined),
      newTuple: tuple,
    }),
    fc.record({
      tag: fc.constant('update' as const),
      relationId: u32,
      oldKind: fc.constantFrom('K' as const, 'O' as const),
      oldTuple: tuple,
      newTuple: tuple,
    }),
  ),
  fc.record({
    tag: fc.constant('delete' as const),
    relationId: u32,
    oldKind: fc.constantFrom('K' as const, 'O' as const),
    oldTuple: tuple,
  }),
  fc.record({
    tag: fc.constant('truncate' as const),
    cascade: fc.boolean(),
    restartIdentity: fc.boolean(),
    relationIds: fc.array(u32, { maxLength: 4 }),
  }),
  fc.record({
    tag: fc.constant('message' as const),
    transactional: fc.boolean(),
    lsn,
    prefix: name,
    content: fc.uint8Array({ maxLength: 32 }).map((b) => Buffer.from(b)),
  }),
);

const replicationMessage: fc.Arbitrary<ReplicationMessage> = fc.oneof(
  fc.record({
    kind: fc.constant('keepalive' as const),
    walEnd: lsn,
    serverTimeMs: fc.integer({ min: 0, max: 4_102_444_800_000 }),
    replyRequested: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('xlog' as const),
    start: lsn,
    walEnd: lsn,
    message: pgOutputMessage,
  }),
);

const payload = replicationMessage.map(encodeReplication);

describe('fuzz: pgoutput payloads', () => {
  it('valid payloads decode to what was encoded', () => {
    fc.assert(
      fc.property(replicationMessage, (m) => {
        expect(timed(() => decodeReplicationMessage(encodeReplication(m)))).toEqual(m);
      }),
      fuzzParameters(),
    );
  });

  it('arbitrary and damaged payloads: a message as long as the payload, or SOURCE_FAILED naming the byte', () => {
    fc.assert(
      fc.property(bytesAround(payload), (bytes) => {
        const result = outcome(() => decodeReplicationMessage(bytes));
        if ('error' in result) {
          expectOurError(result.error, ['SOURCE_FAILED'], /pgoutput|replication message/);
          expect((result.error as WeirError).message).toMatch(/at byte \d+/);
        } else {
          // Nothing read past the end or left over (fields the decoder skips,
          // such as the send time, may differ), nothing decoded with replacements.
          const again = encodeReplication(result.value);
          expect(again.length).toBe(bytes.length);
          // Times beyond ±2^53 microseconds (centuries away) are not exact as numbers.
          if (exactTimes(result.value)) {
            expect(decodeReplicationMessage(again)).toEqual(result.value);
          }
          if (!bytes.includes(Buffer.from('\uFFFD'))) {
            expect(
              JSON.stringify(result.value, (_k, v: unknown) =>
                typeof v === 'bigint' ? `${v}` : v,
              ),
            ).not.toContain('\uFFFD');
          }
        }
      }),
      fuzzParameters(),
    );
  });
});

/** Whether the message's times are exact numbers (so re-encoding gives the same bytes). */
function exactTimes(m: ReplicationMessage): boolean {
  if (m.kind === 'keepalive') return Number.isSafeInteger(m.serverTimeMs * 1000);
  const t = m.message;
  return !('commitTimeUs' in t) || Number.isSafeInteger(t.commitTimeUs);
}

/** An xlog payload around a pgoutput message given as bytes. */
function xlog(message: Buffer): Buffer {
  return new Writer().u8(0x77).u64(1n).u64(2n).u64(0n).bytes(message).done();
}

describe('fuzz: kept pgoutput payloads', () => {
  // Payloads fuzzing found bugs with, kept as regression cases. Before, each
  // either threw a RangeError or TypeError, or decoded silently into something
  // the server did not send.
  it.each([
    // An empty payload: a RangeError from Buffer.readUInt8.
    { name: 'empty payload', bytes: Buffer.alloc(0), at: 0 },
    // A keepalive cut short: a RangeError.
    { name: 'short keepalive', bytes: new Writer().u8(0x6b).u64(5n).done(), at: 9 },
    // A value length beyond the end: the text was cut silently to what was there.
    {
      name: 'value length beyond the end',
      bytes: xlog(
        new Writer()
          .u8(0x49)
          .u32(7)
          .u8(0x4e)
          .i16(1)
          .u8(0x74)
          .i32(100)
          .bytes(Buffer.from('abc'))
          .done(),
      ),
      at: 38,
    },
    // A negative column count: a RangeError (invalid array length).
    {
      name: 'negative column count',
      bytes: xlog(new Writer().u8(0x49).u32(7).u8(0x4e).i16(-1).done()),
      at: 31,
    },
    // A negative value length moved the read position backwards.
    {
      name: 'negative value length',
      bytes: xlog(new Writer().u8(0x49).u32(7).u8(0x4e).i16(1).u8(0x74).i32(-3).done()),
      at: 38,
    },
    // Invalid UTF-8 in a value: decoded with U+FFFD.
    {
      name: 'invalid UTF-8 in a value',
      bytes: xlog(new Writer().u8(0x49).u32(7).u8(0x4e).i16(1).u8(0x74).i32(1).u8(0xff).done()),
      at: 38,
    },
    // Invalid UTF-8 in a table name: decoded with U+FFFD.
    {
      name: 'invalid UTF-8 in a name',
      bytes: xlog(
        new Writer().u8(0x52).u32(7).cstring('public').u8(0xc3).u8(0).u8(0x64).i16(0).done(),
      ),
      at: 37,
    },
    // A content length beyond the end of a logical message: the content was cut silently.
    {
      name: 'content length beyond the end',
      bytes: xlog(
        new Writer().u8(0x4d).u8(1).u64(9n).cstring('p').u32(50).bytes(Buffer.from('xy')).done(),
      ),
      at: 41,
    },
    // Bytes after the message were ignored.
    {
      name: 'trailing bytes',
      bytes: Buffer.concat([
        xlog(new Writer().u8(0x42).u64(1n).timeUs(0).u32(3).done()),
        Buffer.of(0),
      ]),
      at: 46,
    },
    // An unknown replica identity was passed on as one.
    {
      name: 'unknown replica identity',
      bytes: xlog(new Writer().u8(0x52).u32(7).cstring('s').cstring('t').u8(0x78).i16(0).done()),
      at: 34,
    },
    // A delete whose old-tuple marker is neither K nor O was read as O.
    {
      name: 'unknown old-tuple marker',
      bytes: xlog(new Writer().u8(0x44).u32(7).u8(0x58).i16(0).done()),
      at: 30,
    },
  ])('$name', ({ bytes, at }) => {
    const result = outcome(() => decodeReplicationMessage(bytes));
    expect('error' in result).toBe(true);
    if (!('error' in result)) return;
    expectOurError(result.error, ['SOURCE_FAILED'], new RegExp(`at byte ${at}:`));
  });
});

/** Types of a database: array types of built-ins, hstore, a domain and an array of arrays' element. */
function typeInfo(oid: number, name: string, extra: Partial<TypeInfo> = {}): TypeInfo {
  return {
    oid,
    schema: 'pg_catalog',
    name,
    kind: 'b',
    elementOid: 0,
    baseOid: 0,
    domainTypeMod: -1,
    delimiter: ',',
    category: 'U',
    ...extra,
  };
}
const CATALOG: readonly TypeInfo[] = [
  typeInfo(1007, '_int4', { elementOid: 23, category: 'A' }),
  typeInfo(1016, '_int8', { elementOid: 20, category: 'A' }),
  typeInfo(1009, '_text', { elementOid: 25, category: 'A' }),
  typeInfo(1000, '_bool', { elementOid: 16, category: 'A' }),
  typeInfo(1231, '_numeric', { elementOid: 1700, category: 'A' }),
  typeInfo(1185, '_timestamptz', { elementOid: 1184, category: 'A' }),
  typeInfo(1001, '_bytea', { elementOid: 17, category: 'A' }),
  typeInfo(1020, '_box', { elementOid: 603, category: 'A', delimiter: ';' }),
  typeInfo(603, 'box', { delimiter: ';' }),
  typeInfo(90_001, 'hstore'),
  typeInfo(90_002, 'positive', { kind: 'd', baseOid: 23 }),
  typeInfo(90_003, '_hstore', { elementOid: 90_001, category: 'A' }),
];
/** Built-in type oids the mapper converts, with a type modifier each (-1: none). */
const TYPES: readonly (readonly [number, number])[] = [
  [16, -1],
  [17, -1],
  [18, -1],
  [19, -1],
  [20, -1],
  [21, -1],
  [23, -1],
  [25, -1],
  [26, -1],
  [114, -1],
  [142, -1],
  [600, -1],
  [700, -1],
  [701, -1],
  [790, -1],
  [1042, -1],
  [1043, -1],
  [1082, -1],
  [1083, -1],
  [1083, 3],
  [1114, -1],
  [1114, 3],
  [1184, -1],
  [1186, -1],
  [1266, -1],
  [1560, 1],
  [1560, 12],
  [1562, -1],
  [1700, -1],
  [2950, -1],
  [3802, -1],
  ...CATALOG.map((t) => [t.oid, -1] as const),
];

/** Texts shaped like PostgreSQL's output, cut, spliced and mixed with odd values. */
const pgText = fc.oneof(
  fc.string({ maxLength: 24 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.constantFrom(...AWKWARD_TEXTS),
  fc
    .constantFrom(
      't',
      'f',
      '42',
      '-2147483648',
      '9007199254740993',
      '3.14',
      'NaN',
      '-Infinity',
      '$1,234.56',
      '-$0.50',
      '\\x0aff',
      '\\xzz',
      '2024-02-29',
      '0044-03-15 BC',
      'infinity',
      '12:34:56.789',
      '2024-02-29 12:34:56.123456+05:30',
      '2024-02-29 12:34:56',
      '08:15:30.5-07',
      'P1Y2M3DT4H5M6.78S',
      '-P1D',
      '(1.5,-2)',
      '(1,2),(3,4)',
      '101',
      '',
      '"a"=>"1", "b"=>NULL',
      '{}',
      '{1,2,NULL}',
      '{{1,2},{3,4}}',
      '[0:1]={7,8}',
      '{"a b","c\\"d",NULL}',
      '{"x',
      '{1,2',
      '{{{{{{{{{{',
      '{"\\',
      '{',
      '[1:2]',
      '{(1,2),(3,4);(5,6),(7,8)}',
      '{"\\"a\\"=>\\"1\\""}',
    )
    .chain((s) => fc.nat({ max: s.length }).map((cut) => [s, s.slice(0, cut)] as const))
    .chain(([whole, cut]) => fc.constantFrom(whole, cut)),
  fc.nat({ max: 20_000 }).map((n) => '{'.repeat(n)),
);

/** The type mapping options, each value of each option at least once. */
function mappings(): ResolvedTypeMapping[] {
  return [
    {
      decimal: 'string',
      int8: 'number',
      binary: 'bytes',
      timePrecision: 'adaptive',
      interval: 'numeric',
      hstore: 'json',
      unavailableValuePlaceholder: '__u',
    },
    {
      decimal: 'double',
      int8: 'bigint',
      binary: 'hex',
      timePrecision: 'connect',
      interval: 'string',
      hstore: 'map',
      unavailableValuePlaceholder: '__u',
    },
    {
      decimal: 'string',
      int8: 'string',
      binary: 'base64',
      timePrecision: 'adaptive_time_microseconds',
      interval: 'numeric',
      hstore: 'json',
      unavailableValuePlaceholder: '__u',
    },
  ];
}

describe('fuzz: PostgreSQL text values', () => {
  it('a value converts, or fails with SOURCE_FAILED naming table, column and type', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...TYPES),
        fc.constantFrom(...mappings()),
        pgText,
        ([oid, typeMod], mapping, text) => {
          const types = new TypeMapper(mapping);
          types.load(CATALOG);
          const shape = relationShape(
            'src',
            'public',
            'fuzzed',
            [{ name: 'v', typeOid: oid, typeMod, isKey: false }],
            [],
            'd',
            types,
          );
          const result = outcome(() => decodeRow(shape, [text], '__u'));
          if ('error' in result) {
            expectOurError(result.error, ['SOURCE_FAILED'], /public\.fuzzed\.v \(/);
            return;
          }
          expectWellFormed(result.value.v, text);
        },
      ),
      fuzzParameters(1_000),
    );
  });
});

/** A converted value is a PgValue, with no NaN unless the text says NaN. */
function expectWellFormed(v: unknown, text: string): void {
  if (v === null || typeof v === 'boolean' || typeof v === 'string' || typeof v === 'bigint')
    return;
  if (typeof v === 'number') {
    if (Number.isNaN(v)) expect(text).toContain('NaN');
    return;
  }
  if (v instanceof Uint8Array) return;
  if (Array.isArray(v)) {
    for (const x of v) expectWellFormed(x, text);
    return;
  }
  expect(typeof v).toBe('object');
  for (const x of Object.values(v as object)) expectWellFormed(x, text);
}

describe('fuzz: kept PostgreSQL text values', () => {
  // Values fuzzing found bugs with, kept as regression cases.
  it.each([
    // An array literal cut inside a quoted element: parseArrayLiteral looped forever.
    { oid: 1009, text: '{"x' },
    // Cut inside an unquoted element: looped forever.
    { oid: 1007, text: '{1,2' },
    // A backslash as the last character of a quoted element: looped forever.
    { oid: 1009, text: '{"\\' },
    // Nesting beyond PostgreSQL's 6 dimensions: recursed until the stack overflowed.
    { oid: 1007, text: '{'.repeat(20_000) },
    // Not integers, booleans or floats: became NaN, false and NaN.
    { oid: 23, text: 'abc' },
    { oid: 16, text: 'x' },
    { oid: 701, text: '1,5' },
    { oid: 600, text: '(a,b)' },
  ])('$oid: $text', ({ oid, text }) => {
    const types = new TypeMapper(mappings()[0]!);
    types.load(CATALOG);
    const shape = relationShape(
      'src',
      'public',
      't',
      [{ name: 'c', typeOid: oid, typeMod: -1, isKey: false }],
      [],
      'd',
      types,
    );
    const result = outcome(() => decodeRow(shape, [text], '__u'));
    expect('error' in result).toBe(true);
    if ('error' in result) expectOurError(result.error, ['SOURCE_FAILED'], /public\.t\.c \(/);
  });
});

describe('fuzz: pgoutput message sequences', () => {
  const tables = new Map<string, TableInfo>([
    [
      'public.a',
      { schema: 'public', table: 'a', relationId: 1, primaryKey: ['id'], replicaIdentity: 'd' },
    ],
    [
      'public.b',
      { schema: 'public', table: 'b', relationId: 2, primaryKey: [], replicaIdentity: 'f' },
    ],
  ]);
  const relation = (relationId: number, table: string, columns: number): PgOutputMessage => ({
    tag: 'relation',
    relationId,
    schema: 'public',
    table,
    replicaIdentity: 'd',
    columns: Array.from({ length: columns }, (_, i) => ({
      name: i === 0 ? 'id' : `c${i}`,
      isKey: i === 0,
      typeOid: i === 0 ? 23 : 25,
      typeMod: -1,
    })),
  });
  const id = fc.constantFrom(1, 2, 3);
  const row = fc.array(fc.oneof(fc.integer().map(String), tupleValue), { maxLength: 4 });
  const message: fc.Arbitrary<PgOutputMessage> = fc.oneof(
    fc.record({
      tag: fc.constant('begin' as const),
      finalLsn: lsn,
      commitTimeUs: timeUs,
      xid: u32,
    }),
    fc.record({
      tag: fc.constant('commit' as const),
      commitLsn: lsn,
      endLsn: lsn,
      commitTimeUs: timeUs,
    }),
    fc
      .tuple(id, fc.constantFrom('a', 'b', 'c'), fc.nat({ max: 3 }))
      .map(([r, t, n]) => relation(r, t, n)),
    fc.record({ tag: fc.constant('insert' as const), relationId: id, newTuple: row }),
    fc.record({
      tag: fc.constant('update' as const),
      relationId: id,
      oldKind: fc.constantFrom('K' as const, 'O' as const, undefined),
      oldTuple: fc.option(row, { nil: undefined }),
      newTuple: row,
    }),
    fc.record({
      tag: fc.constant('delete' as const),
      relationId: id,
      oldKind: fc.constantFrom('K' as const, 'O' as const),
      oldTuple: row,
    }),
    fc.record({
      tag: fc.constant('truncate' as const),
      cascade: fc.boolean(),
      restartIdentity: fc.boolean(),
      relationIds: fc.array(id, { maxLength: 3 }),
    }),
  );

  it('a row with fewer values than its relation has columns fails (its missing columns became null)', () => {
    const types = new TypeMapper(mappings()[0]!);
    const shape = relationShape(
      'src',
      'public',
      'a',
      [
        { name: 'id', typeOid: 23, typeMod: -1, isKey: true },
        { name: 'c1', typeOid: 25, typeMod: -1, isKey: false },
      ],
      ['id'],
      'd',
      types,
    );
    const result = outcome(() => decodeRow(shape, ['1'], '__u'));
    expect('error' in result).toBe(true);
    if ('error' in result)
      expectOurError(result.error, ['SOURCE_FAILED'], /public\.a has 1 values for its 2 columns/);
  });

  it('any sequence: each message is handled or fails with SOURCE_FAILED; records are well-formed', () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 30 }), fc.boolean(), (messages, flatten) => {
        const types = new TypeMapper(mappings()[0]!);
        const emitted: unknown[] = [];
        const decoder = new ChangeDecoder(
          {
            name: 'src',
            db: 'db',
            tables,
            types,
            records: { flatten, tombstonesOnDelete: true },
            placeholder: '__u',
            truncateEvents: true,
            watermarkDelayMs: 0,
            now: () => 0,
            reloadTypes: async () => {},
          },
          {
            lsn: 0n,
            lastCommitLsn: undefined,
            partial: undefined,
            watermark: Number.NEGATIVE_INFINITY,
          },
          (record) => emitted.push(record),
        );
        for (const m of messages) {
          const result = outcome(() =>
            decoder.handle({ kind: 'xlog', start: 10n, walEnd: 20n, message: m }),
          );
          if ('error' in result) {
            expectOurError(result.error, ['SOURCE_FAILED']);
            return;
          }
        }
        for (const r of emitted) {
          expect(r).toHaveProperty('topic');
          expect(r).toHaveProperty('key');
          expect(r).toHaveProperty('value');
        }
      }),
      fuzzParameters(),
    );
  });
});
