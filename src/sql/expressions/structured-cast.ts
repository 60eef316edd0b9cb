/**
 * CASTs of BYTES and of collections, as Flink has them: STRING to BINARY(n) / VARBINARY(n) /
 * BYTES (UTF-8; BINARY pads with zero bytes, both cut to their length) and back (UTF-8), and
 * ARRAY, MAP and ROW element by element (a ROW to a ROW of as many fields), or to text as
 * Flink writes them (`[1, NULL]`, `{a=1, b=NULL}`, `(1, x)`: each element cast to STRING).
 */
import {
  isCharacterString,
  type LogicalType,
  MAX_LENGTH,
  multisetAsMap,
} from '../types/logical-type.js';
import type { CodeGen } from './code-gen.js';

/** The conversion of one non-null value, as cast.ts gives it (undefined: no such cast). */
export type Convert = (
  g: CodeGen,
  v: string,
  from: LogicalType,
  to: LogicalType,
  tryCast: boolean,
) => string | undefined;

export function isBinaryString(
  t: LogicalType,
): t is LogicalType & { kind: 'BINARY' | 'VARBINARY'; length: number } {
  return t.kind === 'BINARY' || t.kind === 'VARBINARY';
}

/** Bytes fitted to BINARY(n) (zero-padded, cut) or VARBINARY(n) (cut). */
export function fitBytes(b: Uint8Array, length: number, fixed: boolean): Uint8Array {
  if (b.length === length || (!fixed && b.length < length)) return b;
  if (b.length > length) return b.subarray(0, length);
  const out = new Uint8Array(length);
  out.set(b);
  return out;
}

export function utf8Bytes(s: string): Uint8Array {
  return Buffer.from(s, 'utf8');
}

export function utf8Text(b: Uint8Array): string {
  return Buffer.from(b).toString('utf8');
}

function fitted(
  g: CodeGen,
  code: string,
  to: LogicalType & { kind: 'BINARY' | 'VARBINARY'; length: number },
): string {
  if (to.kind === 'VARBINARY' && to.length === MAX_LENGTH) return code;
  return `${g.constant(fitBytes)}(${code}, ${to.length}, ${to.kind === 'BINARY'})`;
}

/** The code converting `v` (not null), or undefined when neither type is BYTES or a collection. */
export function convertStructured(
  g: CodeGen,
  v: string,
  from: LogicalType,
  to: LogicalType,
  tryCast: boolean,
  convert: Convert,
): string | undefined {
  // A MULTISET casts as its MAP of element to multiplicity (Flink's MapAndMultisetToString and
  // MapToMapAndMultisetToMultiset rules): to text, or to another MULTISET.
  if (from.kind === 'MULTISET') {
    if (to.kind !== 'MULTISET' && !isCharacterString(to)) return undefined;
    const target = to.kind === 'MULTISET' ? multisetAsMap(to) : to;
    return convertStructured(g, v, multisetAsMap(from), target, tryCast, convert);
  }
  // TRY_CAST of a collection is NULL when any element fails, not that element NULL (Flink's
  // TRY_CAST(ROW(1, 'abc') AS ROW(a TINYINT, b TIME)) is NULL): convert as CAST, and catch.
  if (tryCast && (from.kind === 'ARRAY' || from.kind === 'MAP' || from.kind === 'ROW')) {
    const inner = convertStructured(g, v, from, to, false, convert);
    return inner === undefined
      ? undefined
      : `(() => { try { return ${inner}; } catch { return null; } })()`;
  }
  if (isBinaryString(to)) {
    if (isBinaryString(from)) return fitted(g, v, to);
    if (isCharacterString(from)) return fitted(g, `${g.constant(utf8Bytes)}(${v})`, to);
    return undefined;
  }
  if (isBinaryString(from) && isCharacterString(to)) return `${g.constant(utf8Text)}(${v})`;
  if (
    isCharacterString(to) &&
    (from.kind === 'ARRAY' || from.kind === 'MAP' || from.kind === 'ROW')
  ) {
    const text = collectionText(g, v, from, tryCast, convert);
    return text === undefined ? undefined : convert(g, text, STRING, to, tryCast);
  }
  if (from.kind === 'ARRAY' && to.kind === 'ARRAY') {
    const e = g.temp();
    const inner = convert(g, e, from.element, to.element, tryCast);
    return inner === undefined ? undefined : `${v}.map((${e}) => ${e} === null ? null : ${inner})`;
  }
  if (from.kind === 'MAP' && to.kind === 'MAP') {
    const k = g.temp();
    const x = g.temp();
    const key = convert(g, k, from.key, to.key, tryCast);
    const value = convert(g, x, from.value, to.value, tryCast);
    if (key === undefined || value === undefined) return undefined;
    return `new Map(Array.from(${v}, ([${k}, ${x}]) => [${k} === null ? null : ${key}, ${x} === null ? null : ${value}]))`;
  }
  if (from.kind === 'ROW' && to.kind === 'ROW') {
    if (from.fields.length !== to.fields.length) return undefined;
    const fields: string[] = [];
    for (let i = 0; i < from.fields.length; i++) {
      const f = g.temp();
      const inner = convert(
        g,
        f,
        (from.fields[i] as { type: LogicalType }).type,
        (to.fields[i] as { type: LogicalType }).type,
        tryCast,
      );
      if (inner === undefined) return undefined;
      fields.push(`((${f} = ${v}[${i}]) === null ? null : ${inner})`);
    }
    return `[${fields.join(', ')}]`;
  }
  return undefined;
}

const STRING: LogicalType = { kind: 'VARCHAR', nullable: false, length: MAX_LENGTH };

/** The code of an ARRAY, MAP or ROW (not null) as text, each element cast to STRING and NULL as `NULL`. */
function collectionText(
  g: CodeGen,
  v: string,
  from: LogicalType & { kind: 'ARRAY' | 'MAP' | 'ROW' },
  tryCast: boolean,
  convert: Convert,
): string | undefined {
  const element = (code: string, type: LogicalType): string | undefined => {
    const text = convert(g, code, type, STRING, tryCast);
    return text === undefined ? undefined : `(${code} === null ? 'NULL' : ${text})`;
  };
  if (from.kind === 'ARRAY') {
    const e = g.temp();
    const inner = element(e, from.element);
    return inner === undefined
      ? undefined
      : `('[' + ${v}.map((${e}) => ${inner}).join(', ') + ']')`;
  }
  if (from.kind === 'MAP') {
    const k = g.temp();
    const x = g.temp();
    const key = element(k, from.key);
    const value = element(x, from.value);
    if (key === undefined || value === undefined) return undefined;
    return `('{' + Array.from(${v}, ([${k}, ${x}]) => ${key} + '=' + ${value}).join(', ') + '}')`;
  }
  const fields: string[] = [];
  for (let i = 0; i < from.fields.length; i++) {
    const f = g.temp();
    const inner = element(f, (from.fields[i] as { type: LogicalType }).type);
    if (inner === undefined) return undefined;
    fields.push(`((${f} = ${v}[${i}]), ${inner})`);
  }
  return `('(' + [${fields.join(', ')}].join(', ') + ')')`;
}
