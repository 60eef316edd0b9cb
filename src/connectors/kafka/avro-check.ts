import { isUtf8 } from 'node:buffer';
import type avro from 'avsc';

/**
 * Checks that `bytes` is one whole datum of `type` in Avro's binary encoding
 * before avsc decodes it. avsc reads past the end of a buffer and only then
 * notices, so a damaged block count (an array of 2^60 items) would make it
 * loop and allocate without end; and it decodes strings with replacement
 * characters. This walk reads every length and count against the bytes that
 * are left and every string as UTF-8, and throws an `Error` naming the byte
 * where the datum stops making sense.
 */
export function checkAvroDatum(type: avro.Type, bytes: Buffer): void {
  const walker = new Walker(bytes);
  walker.walk(type);
  if (walker.offset !== bytes.length) {
    throw new Error(`${bytes.length - walker.offset} bytes after the end of the datum`);
  }
}

/** Most items of zero bytes each (nulls, empty records) one array or map block may hold. */
const MAX_EMPTY_ITEMS = 1 << 20;

/** The avsc type classes, seen through what this walk reads of them. */
interface Shape {
  readonly typeName: string;
  readonly itemsType?: avro.Type;
  readonly valuesType?: avro.Type;
  readonly types?: readonly avro.Type[];
  readonly fields?: readonly { readonly type: avro.Type }[];
  readonly symbols?: readonly string[];
  readonly size?: number;
  readonly underlyingType?: avro.Type;
}

class Walker {
  offset = 0;
  constructor(private readonly bytes: Buffer) {}

  walk(type: avro.Type): void {
    const t = type as unknown as Shape;
    switch (t.typeName) {
      case 'null':
        return;
      case 'boolean':
        this.skip(1, 'a boolean');
        return;
      case 'int':
      case 'long':
      case 'abstract:long': // the exact 64-bit long (shared/avro-exact-long.ts): the same varint
        this.long();
        return;
      case 'float':
        this.skip(4, 'a float');
        return;
      case 'double':
        this.skip(8, 'a double');
        return;
      case 'bytes':
        this.skip(this.length('bytes'), 'bytes');
        return;
      case 'string':
        this.string();
        return;
      case 'fixed':
        this.skip(t.size ?? 0, 'a fixed');
        return;
      case 'enum':
        this.index(t.symbols?.length ?? 0, 'an enum symbol');
        return;
      case 'array':
        this.blocks(() => this.walk(t.itemsType as avro.Type), t.itemsType as avro.Type);
        return;
      case 'map':
        this.blocks(() => {
          this.string();
          this.walk(t.valuesType as avro.Type);
        }, undefined);
        return;
      case 'record':
      case 'error':
        for (const f of t.fields ?? []) this.walk(f.type);
        return;
      default:
        if (t.typeName.startsWith('union')) {
          const types = t.types ?? [];
          this.walk(types[this.index(types.length, 'a union branch')] as avro.Type);
          return;
        }
        if (t.underlyingType !== undefined) {
          this.walk(t.underlyingType);
          return;
        }
        throw new Error(`unknown Avro type '${t.typeName}'`);
    }
  }

  /** A zig-zag varint, as a number (exact up to 2^53). */
  private long(): number {
    const start = this.offset;
    let n = 0;
    let scale = 1;
    for (let i = 0; ; i++) {
      if (this.offset >= this.bytes.length) throw this.error(start, 'a number is cut off');
      if (i >= 10) throw this.error(start, 'a number is longer than 10 bytes');
      const b = this.bytes[this.offset++] as number;
      n += (b & 0x7f) * scale;
      scale *= 128;
      if ((b & 0x80) === 0) break;
    }
    // Zig-zag: even n is n/2, odd n is -(n+1)/2.
    return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
  }

  private length(what: string): number {
    const at = this.offset;
    const n = this.long();
    if (n < 0) throw this.error(at, `negative length ${n} of ${what}`);
    if (n > this.bytes.length - this.offset) {
      throw this.error(
        at,
        `${what} of ${n} bytes does not fit in the ${this.bytes.length - this.offset} left`,
      );
    }
    return n;
  }

  private string(): void {
    const n = this.length('a string');
    const at = this.offset;
    if (!isUtf8(this.bytes.subarray(at, at + n)))
      throw this.error(at, 'a string is not valid UTF-8');
    this.offset += n;
  }

  private skip(n: number, what: string): void {
    if (n > this.bytes.length - this.offset) throw this.error(this.offset, `${what} is cut off`);
    this.offset += n;
  }

  private index(count: number, what: string): number {
    const at = this.offset;
    const i = this.long();
    if (i < 0 || i >= count) throw this.error(at, `${what} index ${i} is out of range`);
    return i;
  }

  /** Array or map blocks: a count (negative: followed by the block's byte size), items, until a zero count. */
  private blocks(item: () => void, itemType: avro.Type | undefined): void {
    for (;;) {
      const at = this.offset;
      let count = this.long();
      if (count === 0) return;
      if (count < 0) {
        count = -count;
        this.long();
      }
      // Items of at least one byte cannot outnumber the bytes left; items of none are capped.
      const limit = this.bytes.length - this.offset + (canBeEmpty(itemType) ? MAX_EMPTY_ITEMS : 0);
      if (count > limit)
        throw this.error(at, `a block of ${count} items cannot fit in the bytes left`);
      for (let i = 0; i < count; i++) item();
    }
  }

  private error(at: number, problem: string): Error {
    return new Error(`${problem} (at byte ${at})`);
  }
}

/** Whether a value of this type may take zero bytes (null, an empty record, a union of such). */
function canBeEmpty(type: avro.Type | undefined, depth = 0): boolean {
  if (type === undefined || depth > 16) return false;
  const t = type as unknown as Shape;
  if (t.typeName === 'null') return true;
  if (t.typeName === 'fixed') return t.size === 0;
  if (t.typeName === 'record' || t.typeName === 'error') {
    return (t.fields ?? []).every((f) => canBeEmpty(f.type, depth + 1));
  }
  if (t.underlyingType !== undefined) return canBeEmpty(t.underlyingType, depth + 1);
  return false;
}
