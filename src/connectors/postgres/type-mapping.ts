/**
 * Column values in PostgreSQL's text format to Debezium's representations.
 * Both the snapshot (query results) and the stream (pgoutput tuples) produce
 * text, so one converter per (type, type modifier) serves both, and a row
 * looks the same whether it was read or streamed.
 */
import {
  formatZonedTime,
  formatZonedTimestamp,
  intervalMicros,
  intervalString,
  parseDateDays,
  parseTimestampUs,
  parseTimeUs,
} from './temporal.js';
import type { PgValue, ResolvedTypeMapping } from './values.js';

/** What the connector knows of a type, from `pg_type`. */
export interface TypeInfo {
  readonly oid: number;
  readonly schema: string;
  readonly name: string;
  /** `b` base, `d` domain, `e` enum, `c` composite, `r` range, `m` multirange, `p` pseudo. */
  readonly kind: string;
  /** Element type of an array type, 0 otherwise. */
  readonly elementOid: number;
  /** Underlying type of a domain, 0 otherwise. */
  readonly baseOid: number;
  /** Type modifier a domain applies to its base type (-1 if none). */
  readonly domainTypeMod: number;
  /** Array element delimiter. */
  readonly delimiter: string;
  /** `A` for array types. */
  readonly category: string;
}

/** The SQL that loads {@link TypeInfo} rows (columns in field order). */
export const TYPE_QUERY = `SELECT t.oid::int8 AS oid, n.nspname AS schema, t.typname AS name, t.typtype AS kind,
  t.typelem::int8 AS element, t.typbasetype::int8 AS base, t.typtypmod AS typmod, t.typdelim AS delim,
  t.typcategory AS category
  FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace`;

export function typeInfoFromRow(row: readonly unknown[]): TypeInfo {
  return {
    oid: Number(row[0]),
    schema: String(row[1]),
    name: String(row[2]),
    kind: String(row[3]),
    elementOid: Number(row[4]),
    baseOid: Number(row[5]),
    domainTypeMod: Number(row[6]),
    delimiter: String(row[7]),
    category: String(row[8]),
  };
}

/** Most dimensions an array value may have (PostgreSQL's MAXDIM). */
const MAX_ARRAY_DIMENSIONS = 6;

/** Turns one text value into an event value. */
export type Converter = (text: string) => PgValue;

const OID = {
  bool: 16,
  bytea: 17,
  char: 18,
  name: 19,
  int8: 20,
  int2: 21,
  int4: 23,
  text: 25,
  oid: 26,
  json: 114,
  xml: 142,
  point: 600,
  float4: 700,
  float8: 701,
  money: 790,
  bpchar: 1042,
  varchar: 1043,
  date: 1082,
  time: 1083,
  timestamp: 1114,
  timestamptz: 1184,
  interval: 1186,
  timetz: 1266,
  bit: 1560,
  varbit: 1562,
  numeric: 1700,
  uuid: 2950,
  jsonb: 3802,
} as const;

/** Fractional-second precision from a time/timestamp type modifier (-1: the default, 6). */
function timePrecision(typeMod: number): number {
  return typeMod < 0 ? 6 : typeMod;
}

/** An integer as PostgreSQL writes it; anything else fails rather than becoming NaN. */
function integerText(t: string): string {
  if (!/^-?\d+$/.test(t)) throw new Error(`not an integer: '${t.slice(0, 40)}'`);
  return t;
}

function integer(t: string): number {
  return Number(integerText(t));
}

/** A float as PostgreSQL writes it (`NaN`, `Infinity` included); anything else fails. */
function float(t: string): number {
  if (!FLOAT_TEXT.test(t)) throw new Error(`not a number: '${t.slice(0, 40)}'`);
  return Number(t);
}

const FLOAT_TEXT = /^(?:-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|NaN|-?Infinity)$/;

function bool(t: string): boolean {
  if (t === 't') return true;
  if (t === 'f') return false;
  throw new Error(`not a boolean: '${t.slice(0, 40)}'`);
}

function int8Converter(mode: ResolvedTypeMapping['int8']): Converter {
  if (mode === 'bigint') return (t) => BigInt(integerText(t));
  if (mode === 'string') return (t) => t;
  return (t) => {
    const n = integer(t);
    if (!Number.isSafeInteger(n)) {
      throw new RangeError(
        `BIGINT value ${t} is beyond ±2^53 and would lose digits as a number; set the source's types.int8 to 'bigint' or 'string'`,
      );
    }
    return n;
  };
}

/** `\x0a0b` (bytea_output hex) to bytes. */
function byteaBytes(text: string): Buffer {
  if (!text.startsWith('\\x')) throw new Error(`bytea not in hex format: '${text.slice(0, 20)}'`);
  return Buffer.from(text.slice(2), 'hex');
}

function binary(bytes: Buffer, mode: ResolvedTypeMapping['binary']): PgValue {
  if (mode === 'base64') return bytes.toString('base64');
  if (mode === 'hex') return bytes.toString('hex');
  return bytes;
}

/** A bit string as Debezium's `Bits`: the number's bytes, least significant first, `minBytes` long at least. */
function bitsBytes(text: string, minBytes: number): Buffer {
  let n = text.length === 0 ? 0n : BigInt(`0b${text}`);
  const out: number[] = [];
  while (n > 0n) {
    out.push(Number(n & 0xffn));
    n >>= 8n;
  }
  while (out.length < minBytes) out.push(0);
  return Buffer.from(out);
}

/** MONEY text (`$1,234.56`, `-$0.50`) as a plain decimal string. */
function moneyDecimal(text: string): string {
  const negative = text.includes('-') || text.includes('(');
  const digits = text.replace(/[^0-9.]/g, '');
  return negative ? `-${digits}` : digits;
}

/** `(x,y)` as Debezium's `Point`: coordinates plus Well-Known Binary. */
function point(text: string, mode: ResolvedTypeMapping['binary']): PgValue {
  const m = /^\(([^,]+),([^)]+)\)$/.exec(text);
  if (m === null) throw new Error(`not a point: '${text}'`);
  const x = float(m[1] as string);
  const y = float(m[2] as string);
  const wkb = Buffer.alloc(21);
  wkb.writeUInt8(1, 0); // little endian
  wkb.writeUInt32LE(1, 1); // Point
  wkb.writeDoubleLE(x, 5);
  wkb.writeDoubleLE(y, 13);
  return { x, y, wkb: binary(wkb, mode), srid: null };
}

/** hstore text (`"a"=>"1", "b"=>NULL`) as an object. */
export function parseHstore(text: string): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  let i = 0;
  const n = text.length;
  const skipSpace = () => {
    while (i < n && (text[i] === ' ' || text[i] === ',')) i++;
  };
  const token = (): string | null => {
    if (text[i] === '"') {
      i++;
      let s = '';
      while (i < n && text[i] !== '"') {
        if (text[i] === '\\') i++;
        s += text[i];
        i++;
      }
      i++;
      return s;
    }
    const start = i;
    while (i < n && text[i] !== ',' && text[i] !== ' ' && text[i] !== '=') i++;
    const raw = text.slice(start, i);
    return raw === 'NULL' ? null : raw;
  };
  skipSpace();
  while (i < n) {
    const key = token() ?? 'NULL';
    while (i < n && (text[i] === ' ' || text[i] === '=' || text[i] === '>')) i++;
    out[key] = token();
    skipSpace();
  }
  return out;
}

/**
 * Splits an array literal (`{1,2,NULL}`, `{{"a b",c},{d,e}}`, with an
 * optional `[1:2]=` dimension prefix) into nested arrays of element texts
 * (null for NULL).
 */
export function parseArrayLiteral(text: string, delimiter = ','): unknown[] {
  const malformed = (): Error => new Error(`malformed array literal: '${text.slice(0, 40)}'`);
  const n = text.length;
  let i = 0;
  if (text[0] === '[') {
    i = text.indexOf('=') + 1;
    if (i === 0) throw malformed();
  }
  // Every step below moves `i` forward or fails; nesting is bounded (PostgreSQL allows 6 dimensions).
  const parse = (depth: number): unknown[] => {
    if (depth > MAX_ARRAY_DIMENSIONS || text[i] !== '{') throw malformed();
    i++;
    const items: unknown[] = [];
    if (text[i] === '}') {
      i++;
      return items;
    }
    for (;;) {
      if (text[i] === '{') items.push(parse(depth + 1));
      else if (text[i] === '"') {
        i++;
        let s = '';
        while (i < n && text[i] !== '"') {
          if (text[i] === '\\') i++;
          if (i >= n) break;
          s += text[i];
          i++;
        }
        if (i >= n) throw malformed();
        i++;
        items.push(s);
      } else {
        const start = i;
        while (i < n && text[i] !== delimiter && text[i] !== '}') i++;
        const raw = text.slice(start, i).trim();
        items.push(raw === 'NULL' ? null : raw);
      }
      if (text[i] === delimiter) {
        i++;
        continue;
      }
      if (text[i] === '}') {
        i++;
        return items;
      }
      throw malformed();
    }
  };
  const items = parse(1);
  if (i !== n) throw malformed();
  return items;
}

/**
 * Converters per (type, modifier), built on first use. Knows the database's
 * types (`pg_type`) so domains, enums, arrays and extension types (hstore,
 * citext) map like their underlying types.
 */
export class TypeMapper {
  private readonly types = new Map<number, TypeInfo>();
  private readonly cache = new Map<string, Converter>();

  constructor(private readonly options: ResolvedTypeMapping) {}

  /** Replaces what is known of the database's types. */
  load(types: Iterable<TypeInfo>): void {
    for (const t of types) this.types.set(t.oid, t);
    this.cache.clear();
  }

  /** Whether a type is known (so a converter can be made without asking the server). */
  knows(oid: number): boolean {
    return this.types.has(oid) || (Object.values(OID) as number[]).includes(oid);
  }

  /** The type's name, for messages. */
  typeName(oid: number): string {
    return this.types.get(oid)?.name ?? `oid ${oid}`;
  }

  converter(oid: number, typeMod: number): Converter {
    const k = `${oid}/${typeMod}`;
    let c = this.cache.get(k);
    if (c === undefined) {
      c = this.build(oid, typeMod, 0);
      this.cache.set(k, c);
    }
    return c;
  }

  private build(oid: number, typeMod: number, depth: number): Converter {
    const o = this.options;
    switch (oid) {
      case OID.bool:
        return bool;
      case OID.int2:
      case OID.int4:
        return integer;
      case OID.int8:
      case OID.oid:
        return int8Converter(o.int8);
      case OID.float4:
      case OID.float8:
        return float;
      case OID.numeric:
        return o.decimal === 'double' ? float : (t) => t;
      case OID.money:
        return o.decimal === 'double' ? (t) => float(moneyDecimal(t)) : moneyDecimal;
      case OID.bytea:
        return (t) => binary(byteaBytes(t), o.binary);
      case OID.date:
        return parseDateDays;
      case OID.time: {
        const ms =
          o.timePrecision === 'connect' ||
          (o.timePrecision === 'adaptive' && timePrecision(typeMod) <= 3);
        return ms ? (t) => Math.floor(parseTimeUs(t).us / 1000) : (t) => parseTimeUs(t).us;
      }
      case OID.timestamp: {
        const ms = o.timePrecision === 'connect' || timePrecision(typeMod) <= 3;
        return ms
          ? (t) => {
              const us = parseTimestampUs(t);
              return Number.isFinite(us) ? Math.floor(us / 1000) : us;
            }
          : parseTimestampUs;
      }
      case OID.timestamptz: {
        const width = timePrecision(typeMod);
        return (t) => formatZonedTimestamp(parseTimestampUs(t), width);
      }
      case OID.timetz:
        return formatZonedTime;
      case OID.interval:
        return o.interval === 'string' ? intervalString : intervalMicros;
      case OID.bit:
        if (typeMod === 1) return (t) => t === '1';
        return (t) => binary(bitsBytes(t, Math.ceil(Math.max(typeMod, 1) / 8)), o.binary);
      case OID.varbit:
        return (t) => binary(bitsBytes(t, Math.ceil(t.length / 8)), o.binary);
      case OID.point:
        return (t) => point(t, o.binary);
      case OID.json:
      case OID.jsonb:
      case OID.xml:
      case OID.uuid:
      case OID.text:
      case OID.varchar:
      case OID.bpchar:
      case OID.name:
      case OID.char:
        return (t) => t;
    }
    const info = this.types.get(oid);
    if (info === undefined || depth > 8) return (t) => t;
    if (info.kind === 'd' && info.baseOid !== 0) {
      return this.build(info.baseOid, typeMod >= 0 ? typeMod : info.domainTypeMod, depth + 1);
    }
    if (info.category === 'A' && info.elementOid !== 0) {
      const element = this.build(info.elementOid, typeMod, depth + 1);
      const delimiter = this.types.get(info.elementOid)?.delimiter ?? ',';
      const convert = (items: unknown[]): PgValue[] =>
        items.map((v) =>
          v === null ? null : Array.isArray(v) ? convert(v) : element(v as string),
        );
      return (t) => convert(parseArrayLiteral(t, delimiter));
    }
    if (info.name === 'hstore') {
      return o.hstore === 'map' ? (t) => parseHstore(t) : (t) => JSON.stringify(parseHstore(t));
    }
    // Enums, ranges, network addresses, citext, ltree, tsvector, geometric types
    // other than point, composite types: their text.
    return (t) => t;
  }
}
