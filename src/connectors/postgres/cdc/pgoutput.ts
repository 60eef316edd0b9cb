/**
 * Decoding of the streaming replication protocol (CopyData payloads) and of
 * the messages of PostgreSQL's built-in logical decoding plugin `pgoutput`
 * (protocol version 1, with logical decoding messages). Values stay in
 * PostgreSQL's text format here; `type-mapping.ts` turns them into event values.
 *
 * Reference: "Streaming Replication Protocol" and "Logical Replication
 * Message Formats" in the PostgreSQL manual.
 */
import { isUtf8 } from 'node:buffer';
import { WeirError } from '../../../core/errors.js';
import type { Lsn } from './lsn.js';

/** Microseconds between the Unix epoch and PostgreSQL's epoch (2000-01-01 UTC). */
const PG_EPOCH_US = 946_684_800_000_000;

/** A column value in a tuple: text, SQL NULL, or "unchanged TOASTed value, not sent". */
export type TupleValue = string | null | typeof UNCHANGED_TOAST;

/** Marker for a TOASTed value that did not change and that the server therefore did not send. */
export const UNCHANGED_TOAST: unique symbol = Symbol('unchanged-toast');

export interface RelationColumn {
  readonly name: string;
  /** Part of the replica identity (with REPLICA IDENTITY FULL: every column). */
  readonly isKey: boolean;
  readonly typeOid: number;
  readonly typeMod: number;
}

export interface RelationMessage {
  readonly tag: 'relation';
  readonly relationId: number;
  readonly schema: string;
  readonly table: string;
  /** `d` default (primary key), `n` nothing, `f` full, `i` index. */
  readonly replicaIdentity: 'd' | 'n' | 'f' | 'i';
  readonly columns: readonly RelationColumn[];
}

export type PgOutputMessage =
  | {
      readonly tag: 'begin';
      /** LSN of the transaction's commit record. */
      readonly finalLsn: Lsn;
      /** Commit time, microseconds since the Unix epoch. */
      readonly commitTimeUs: number;
      readonly xid: number;
    }
  | {
      readonly tag: 'commit';
      readonly commitLsn: Lsn;
      /** End of the commit record: resuming here skips this transaction. */
      readonly endLsn: Lsn;
      readonly commitTimeUs: number;
    }
  | RelationMessage
  | {
      readonly tag: 'type';
      readonly typeOid: number;
      readonly schema: string;
      readonly name: string;
    }
  | { readonly tag: 'origin'; readonly lsn: Lsn; readonly name: string }
  | { readonly tag: 'insert'; readonly relationId: number; readonly newTuple: TupleValue[] }
  | {
      readonly tag: 'update';
      readonly relationId: number;
      /** `K`: old replica-identity key (its columns changed); `O`: whole old row (REPLICA IDENTITY FULL). */
      readonly oldKind: 'K' | 'O' | undefined;
      readonly oldTuple: TupleValue[] | undefined;
      readonly newTuple: TupleValue[];
    }
  | {
      readonly tag: 'delete';
      readonly relationId: number;
      readonly oldKind: 'K' | 'O';
      readonly oldTuple: TupleValue[];
    }
  | {
      readonly tag: 'truncate';
      readonly cascade: boolean;
      readonly restartIdentity: boolean;
      readonly relationIds: readonly number[];
    }
  | {
      readonly tag: 'message';
      readonly transactional: boolean;
      readonly lsn: Lsn;
      readonly prefix: string;
      readonly content: Buffer;
    };

/** A CopyData message from a walsender. */
export type ReplicationMessage =
  | {
      readonly kind: 'xlog';
      /** WAL position of the data (for changes: the change record's LSN). */
      readonly start: Lsn;
      /** The server's current end of WAL. */
      readonly walEnd: Lsn;
      readonly message: PgOutputMessage;
    }
  | {
      readonly kind: 'keepalive';
      /** Everything before this position has been sent. */
      readonly walEnd: Lsn;
      /** Server clock, milliseconds since the Unix epoch. */
      readonly serverTimeMs: number;
      readonly replyRequested: boolean;
    };

/**
 * A malformed payload: damaged on the way, or a protocol this decoder does
 * not speak. Names the byte where decoding stopped.
 */
function malformed(offset: number, problem: string): WeirError {
  return new WeirError(
    'SOURCE_FAILED',
    `malformed replication message at byte ${offset}: ${problem}`,
    { domain: 'external' },
  );
}

/** Reads a payload front to back; every read checks that the bytes are there. */
class Reader {
  offset: number;
  constructor(
    private readonly buf: Buffer,
    offset = 0,
  ) {
    this.offset = offset;
  }
  private take(n: number, what: string): number {
    const at = this.offset;
    if (n < 0 || at + n > this.buf.length) {
      throw malformed(at, `${what} needs ${n} bytes, ${this.buf.length - at} left`);
    }
    this.offset = at + n;
    return at;
  }
  u8(what = 'a byte'): number {
    return this.buf[this.take(1, what)] as number;
  }
  i16(what = 'an int16'): number {
    return this.buf.readInt16BE(this.take(2, what));
  }
  i32(what = 'an int32'): number {
    return this.buf.readInt32BE(this.take(4, what));
  }
  u32(what = 'a uint32'): number {
    return this.buf.readUInt32BE(this.take(4, what));
  }
  u64(what = 'an LSN'): bigint {
    return this.buf.readBigUInt64BE(this.take(8, what));
  }
  /** A timestamp (int64 microseconds since 2000-01-01) as microseconds since the Unix epoch. */
  timeUs(): number {
    return Number(this.buf.readBigInt64BE(this.take(8, 'a timestamp'))) + PG_EPOCH_US;
  }
  cstring(what: string): string {
    const start = this.offset;
    const end = this.buf.indexOf(0, start);
    if (end < 0) throw malformed(start, `${what} is not terminated`);
    this.offset = end + 1;
    return this.text(start, end, what);
  }
  bytes(n: number, what: string): Buffer {
    const at = this.take(n, what);
    return this.buf.subarray(at, at + n);
  }
  /** Text as the server sends it: UTF-8, refused rather than decoded with replacements. */
  private text(start: number, end: number, what: string): string {
    const bytes = this.buf.subarray(start, end);
    if (!isUtf8(bytes)) {
      throw malformed(start, `${what} is not valid UTF-8 (the database's encoding must be UTF8)`);
    }
    return bytes.toString('utf8');
  }
  tuple(): TupleValue[] {
    const at = this.offset;
    const n = this.i16('a column count');
    if (n < 0) throw malformed(at, `negative column count ${n}`);
    const values = new Array<TupleValue>(n);
    for (let i = 0; i < n; i++) {
      const kindAt = this.offset;
      const kind = this.u8('a column kind');
      if (kind === 0x74 /* t */) {
        const len = this.i32('a value length');
        const start = this.take(len, `column ${i}'s value`);
        values[i] = this.text(start, start + len, `column ${i}'s value`);
      } else if (kind === 0x6e /* n */) {
        values[i] = null;
      } else if (kind === 0x75 /* u */) {
        values[i] = UNCHANGED_TOAST;
      } else {
        throw malformed(
          kindAt,
          `unsupported tuple value kind 0x${kind.toString(16)} (binary mode is not used)`,
        );
      }
    }
    return values;
  }
  /** The next byte, not consumed. */
  peek(): number {
    if (this.offset >= this.buf.length) throw malformed(this.offset, 'the message ends early');
    return this.buf[this.offset] as number;
  }
  /** Bytes not yet read. */
  get remaining(): number {
    return this.buf.length - this.offset;
  }
  /** Fails unless the next byte is `expected`. */
  expect(expected: number, what: string): void {
    const at = this.offset;
    const got = this.u8(what);
    if (got !== expected) {
      throw malformed(
        at,
        `expected ${what} '${String.fromCharCode(expected)}', got 0x${got.toString(16)}`,
      );
    }
  }
  /** Fails if bytes are left after a whole message. */
  end(): void {
    if (this.offset !== this.buf.length) {
      throw malformed(
        this.offset,
        `${this.buf.length - this.offset} bytes after the end of the message`,
      );
    }
  }
}

const REPLICA_IDENTITIES: ReadonlySet<string> = new Set(['d', 'n', 'f', 'i']);

function decodePgOutput(r: Reader): PgOutputMessage {
  const tag = r.u8();
  switch (tag) {
    case 0x42 /* B */:
      {
        const finalLsn = r.u64();
        const commitTimeUs = r.timeUs();
        const xid = r.u32();
        return { tag: 'begin', finalLsn, commitTimeUs, xid };
      }
    case 0x43 /* C */:
      {
        r.u8(); // flags, unused
        const commitLsn = r.u64();
        const endLsn = r.u64();
        const commitTimeUs = r.timeUs();
        return { tag: 'commit', commitLsn, endLsn, commitTimeUs };
      }
    case 0x52 /* R */:
      {
        const relationId = r.u32();
        const schema = r.cstring('the schema name');
        const table = r.cstring('the table name');
        const identityAt = r.offset;
        const replicaIdentity = String.fromCharCode(r.u8('the replica identity'));
        if (!REPLICA_IDENTITIES.has(replicaIdentity)) {
          throw malformed(identityAt, `unknown replica identity '${replicaIdentity}'`);
        }
        const countAt = r.offset;
        const n = r.i16('a column count');
        if (n < 0) throw malformed(countAt, `negative column count ${n}`);
        const columns: RelationColumn[] = [];
        for (let i = 0; i < n; i++) {
          const flags = r.u8();
          const name = r.cstring(`column ${i}'s name`);
          const typeOid = r.u32();
          const typeMod = r.i32();
          columns.push({ name, isKey: (flags & 1) === 1, typeOid, typeMod });
        }
        return {
          tag: 'relation',
          relationId,
          schema: schema === '' ? 'pg_catalog' : schema,
          table,
          replicaIdentity: replicaIdentity as RelationMessage['replicaIdentity'],
          columns,
        };
      }
    case 0x59 /* Y */:
      {
        const typeOid = r.u32();
        const schema = r.cstring('the schema name');
        const name = r.cstring('the type name');
        return { tag: 'type', typeOid, schema, name };
      }
    case 0x4f /* O */:
      {
        const lsn = r.u64();
        const name = r.cstring('the origin name');
        return { tag: 'origin', lsn, name };
      }
    case 0x49 /* I */:
      {
        const relationId = r.u32();
        r.expect(0x4e, 'the new tuple marker');
        return { tag: 'insert', relationId, newTuple: r.tuple() };
      }
    case 0x55 /* U */:
      {
        const relationId = r.u32();
        const kind = r.peek();
        let oldKind: 'K' | 'O' | undefined;
        let oldTuple: TupleValue[] | undefined;
        if (kind === 0x4b /* K */ || kind === 0x4f /* O */) {
          r.u8();
          oldKind = kind === 0x4b ? 'K' : 'O';
          oldTuple = r.tuple();
        }
        r.expect(0x4e, 'the new tuple marker');
        return { tag: 'update', relationId, oldKind, oldTuple, newTuple: r.tuple() };
      }
    case 0x44 /* D */:
      {
        const relationId = r.u32();
        const kindAt = r.offset;
        const kind = r.u8('the old tuple marker');
        if (kind !== 0x4b /* K */ && kind !== 0x4f /* O */) {
          throw malformed(
            kindAt,
            `expected the old tuple marker 'K' or 'O', got 0x${kind.toString(16)}`,
          );
        }
        return {
          tag: 'delete',
          relationId,
          oldKind: kind === 0x4b ? 'K' : 'O',
          oldTuple: r.tuple(),
        };
      }
    case 0x54 /* T */:
      {
        const countAt = r.offset;
        const n = r.u32('a relation count');
        const options = r.u8();
        if (n * 4 > r.remaining) {
          throw malformed(countAt, `${n} relation ids do not fit in ${r.remaining} bytes`);
        }
        const relationIds: number[] = [];
        for (let i = 0; i < n; i++) relationIds.push(r.u32());
        return {
          tag: 'truncate',
          cascade: (options & 1) === 1,
          restartIdentity: (options & 2) === 2,
          relationIds,
        };
      }
    case 0x4d /* M */:
      {
        const transactional = r.u8() === 1;
        const lsn = r.u64();
        const prefix = r.cstring('the message prefix');
        const len = r.u32('a content length');
        return { tag: 'message', transactional, lsn, prefix, content: r.bytes(len, 'the content') };
      }
    default:
      throw malformed(
        r.offset - 1,
        `unknown pgoutput message type '${String.fromCharCode(tag)}' (0x${tag.toString(16)})`,
      );
  }
}

/** Decodes one CopyData payload of a logical replication stream. */
export function decodeReplicationMessage(chunk: Buffer): ReplicationMessage {
  const r = new Reader(chunk);
  const kind = r.u8();
  if (kind === 0x77 /* w */) {
    const start = r.u64();
    const walEnd = r.u64();
    r.u64('the send time');
    const message = decodePgOutput(r);
    r.end();
    return { kind: 'xlog', start, walEnd, message };
  }
  if (kind === 0x6b /* k */) {
    const walEnd = r.u64();
    const serverTimeMs = Math.floor(r.timeUs() / 1000);
    const replyRequested = r.u8() === 1;
    r.end();
    return { kind: 'keepalive', walEnd, serverTimeMs, replyRequested };
  }
  throw malformed(0, `unknown replication message type 0x${kind.toString(16)}`);
}

/**
 * A standby status update: `flushed` is what the server may forget (the
 * slot's confirmed position); `received` is informational.
 */
export function encodeStatusUpdate(
  received: Lsn,
  flushed: Lsn,
  nowMs: number,
  replyRequested = false,
): Buffer {
  const buf = Buffer.alloc(34);
  buf.write('r', 0, 'latin1');
  buf.writeBigUInt64BE(received, 1);
  buf.writeBigUInt64BE(flushed, 9);
  buf.writeBigUInt64BE(flushed, 17);
  buf.writeBigInt64BE(BigInt(Math.round(nowMs * 1000 - PG_EPOCH_US)), 25);
  buf.writeUInt8(replyRequested ? 1 : 0, 33);
  return buf;
}
