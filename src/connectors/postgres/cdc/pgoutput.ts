/**
 * Decoding of the streaming replication protocol (CopyData payloads) and of
 * the messages of PostgreSQL's built-in logical decoding plugin `pgoutput`
 * (protocol version 1, with logical decoding messages). Values stay in
 * PostgreSQL's text format here; `type-mapping.ts` turns them into event values.
 *
 * Reference: "Streaming Replication Protocol" and "Logical Replication
 * Message Formats" in the PostgreSQL manual.
 */
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

class Reader {
  offset: number;
  constructor(
    private readonly buf: Buffer,
    offset = 0,
  ) {
    this.offset = offset;
  }
  u8(): number {
    return this.buf.readUInt8(this.offset++);
  }
  i16(): number {
    const v = this.buf.readInt16BE(this.offset);
    this.offset += 2;
    return v;
  }
  i32(): number {
    const v = this.buf.readInt32BE(this.offset);
    this.offset += 4;
    return v;
  }
  u32(): number {
    const v = this.buf.readUInt32BE(this.offset);
    this.offset += 4;
    return v;
  }
  u64(): bigint {
    const v = this.buf.readBigUInt64BE(this.offset);
    this.offset += 8;
    return v;
  }
  /** A timestamp (int64 microseconds since 2000-01-01) as microseconds since the Unix epoch. */
  timeUs(): number {
    const v = this.buf.readBigInt64BE(this.offset);
    this.offset += 8;
    return Number(v) + PG_EPOCH_US;
  }
  cstring(): string {
    const end = this.buf.indexOf(0, this.offset);
    if (end < 0) throw new Error('malformed pgoutput message: unterminated string');
    const s = this.buf.toString('utf8', this.offset, end);
    this.offset = end + 1;
    return s;
  }
  bytes(n: number): Buffer {
    const b = this.buf.subarray(this.offset, this.offset + n);
    this.offset += n;
    return b;
  }
  tuple(): TupleValue[] {
    const n = this.i16();
    const values = new Array<TupleValue>(n);
    const buf = this.buf;
    for (let i = 0; i < n; i++) {
      const kind = buf[this.offset++];
      if (kind === 0x74 /* t */) {
        const len = buf.readInt32BE(this.offset);
        this.offset += 4;
        values[i] = buf.toString('utf8', this.offset, this.offset + len);
        this.offset += len;
      } else if (kind === 0x6e /* n */) {
        values[i] = null;
      } else if (kind === 0x75 /* u */) {
        values[i] = UNCHANGED_TOAST;
      } else {
        throw new Error(
          `unsupported tuple value kind '${String.fromCharCode(kind ?? 0)}' (binary mode is not used)`,
        );
      }
    }
    return values;
  }
}

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
        const schema = r.cstring();
        const table = r.cstring();
        const replicaIdentity = String.fromCharCode(r.u8()) as RelationMessage['replicaIdentity'];
        const n = r.i16();
        const columns: RelationColumn[] = [];
        for (let i = 0; i < n; i++) {
          const flags = r.u8();
          const name = r.cstring();
          const typeOid = r.u32();
          const typeMod = r.i32();
          columns.push({ name, isKey: (flags & 1) === 1, typeOid, typeMod });
        }
        return {
          tag: 'relation',
          relationId,
          schema: schema === '' ? 'pg_catalog' : schema,
          table,
          replicaIdentity,
          columns,
        };
      }
    case 0x59 /* Y */:
      {
        const typeOid = r.u32();
        const schema = r.cstring();
        const name = r.cstring();
        return { tag: 'type', typeOid, schema, name };
      }
    case 0x4f /* O */:
      {
        const lsn = r.u64();
        const name = r.cstring();
        return { tag: 'origin', lsn, name };
      }
    case 0x49 /* I */:
      {
        const relationId = r.u32();
        r.u8(); // 'N'
        return { tag: 'insert', relationId, newTuple: r.tuple() };
      }
    case 0x55 /* U */:
      {
        const relationId = r.u32();
        let kind = r.u8();
        let oldKind: 'K' | 'O' | undefined;
        let oldTuple: TupleValue[] | undefined;
        if (kind === 0x4b /* K */ || kind === 0x4f /* O */) {
          oldKind = kind === 0x4b ? 'K' : 'O';
          oldTuple = r.tuple();
          kind = r.u8();
        }
        return { tag: 'update', relationId, oldKind, oldTuple, newTuple: r.tuple() };
      }
    case 0x44 /* D */:
      {
        const relationId = r.u32();
        const kind = r.u8();
        return {
          tag: 'delete',
          relationId,
          oldKind: kind === 0x4b ? 'K' : 'O',
          oldTuple: r.tuple(),
        };
      }
    case 0x54 /* T */:
      {
        const n = r.u32();
        const options = r.u8();
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
        const prefix = r.cstring();
        const len = r.u32();
        return { tag: 'message', transactional, lsn, prefix, content: r.bytes(len) };
      }
    default:
      throw new Error(
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
    r.u64(); // send time
    return { kind: 'xlog', start, walEnd, message: decodePgOutput(r) };
  }
  if (kind === 0x6b /* k */) {
    const walEnd = r.u64();
    const serverTimeMs = Math.floor(r.timeUs() / 1000);
    const replyRequested = r.u8() === 1;
    return { kind: 'keepalive', walEnd, serverTimeMs, replyRequested };
  }
  throw new Error(`unknown replication message type '${String.fromCharCode(kind)}'`);
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
