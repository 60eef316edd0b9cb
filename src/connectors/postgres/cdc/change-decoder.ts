/**
 * The streaming half of the CDC source: pgoutput messages to change records,
 * transaction by transaction, keeping the position a checkpoint stores (the
 * end of the last transaction emitted completely, plus how far into a
 * partly emitted one) and the watermark (newest commit time).
 */
import { WeirError } from '../../../core/errors.js';
import type { TypeMapper } from '../type-mapping.js';
import type { TableInfo } from './catalog.js';
import {
  decodeRow,
  type EventContext,
  emitDelete,
  emitInsert,
  emitTruncate,
  emitUpdate,
  type RecordOptions,
  type RelationShape,
  relationShape,
} from './changes.js';
import type { ChangeRecord } from './envelope.js';
import { formatLsn, type Lsn, lsnToNumber, maxLsn } from './lsn.js';
import type { RelationMessage, ReplicationMessage } from './pgoutput.js';

/** A transaction partly emitted before a restore: its first `emitted` records are skipped. */
export interface PartialTransaction {
  readonly finalLsn: Lsn;
  readonly emitted: number;
}

/** A transaction being emitted. */
interface OpenTransaction {
  readonly xid: number;
  readonly finalLsn: Lsn;
  readonly commitTimeUs: number;
  readonly commitMs: number;
  /** Records of this transaction produced so far (emitted or skipped). */
  emitted: number;
  /** Records still to skip (already emitted before a restore). */
  skip: number;
}

export interface ChangeDecoderOptions {
  readonly name: string;
  readonly db: string;
  /** Captured tables by `schema.table`. */
  readonly tables: ReadonlyMap<string, TableInfo>;
  readonly types: TypeMapper;
  readonly records: RecordOptions;
  readonly placeholder: string;
  readonly truncateEvents: boolean;
  readonly watermarkDelayMs: number;
  readonly now: () => number;
  /** Reloads the database's types (a column of a type created after the start). */
  readonly reloadTypes: () => Promise<void>;
}

export class ChangeDecoder {
  /** Where to restart: the end of the last transaction emitted completely (or a later keepalive position). */
  resumeLsn: Lsn;
  lastCommitLsn: Lsn | undefined;
  /** Newest commit time − delay − 1. */
  watermark = Number.NEGATIVE_INFINITY;
  /** While set, messages must wait (a catalog lookup is running). */
  waitingFor: Promise<void> | undefined;
  /** Set when a lookup failed. */
  failure: unknown;
  private tx: OpenTransaction | undefined;
  private skip: PartialTransaction | undefined;
  private readonly relations = new Map<number, RelationShape | null>();
  private readonly reloadedTypes = new Set<number>();
  private readonly emitRecord: (record: ChangeRecord<unknown>) => void;

  constructor(
    private readonly options: ChangeDecoderOptions,
    start: {
      readonly lsn: Lsn;
      readonly lastCommitLsn: Lsn | undefined;
      readonly partial: PartialTransaction | undefined;
      readonly watermark: number;
    },
    /** Receives each record and its event time. */
    emit: (record: ChangeRecord<unknown>, timestamp: number) => void,
  ) {
    this.resumeLsn = start.lsn;
    this.lastCommitLsn = start.lastCommitLsn;
    this.skip = start.partial;
    this.watermark = start.watermark;
    this.emitRecord = (record) => {
      const tx = this.tx!;
      tx.emitted++;
      if (tx.skip > 0) {
        tx.skip--;
        return;
      }
      emit(record, tx.commitMs);
    };
  }

  /** Inside a transaction (its commit not yet seen). */
  get inTransaction(): boolean {
    return this.tx !== undefined;
  }

  /** The transaction emitted in part at this point, if any (for a checkpoint). */
  partial(): PartialTransaction | undefined {
    const tx = this.tx;
    if (tx !== undefined && tx.emitted > 0) return { finalLsn: tx.finalLsn, emitted: tx.emitted };
    return this.skip;
  }

  /** Processes one message; false when it must wait for {@link waitingFor} first. */
  handle(m: ReplicationMessage): boolean {
    if (m.kind === 'keepalive') {
      // Everything before walEnd has been received and, outside a
      // transaction, emitted: the position may move there even when the
      // captured tables are quiet (other tables or databases write WAL).
      if (this.tx === undefined && this.skip === undefined)
        this.resumeLsn = maxLsn(this.resumeLsn, m.walEnd);
      return true;
    }
    const msg = m.message;
    switch (msg.tag) {
      case 'begin': {
        const skip = this.skip;
        if (skip !== undefined && skip.finalLsn !== msg.finalLsn) {
          throw new WeirError(
            'SOURCE_FAILED',
            `cannot resume: expected the transaction committed at ${formatLsn(skip.finalLsn)} first, got ${formatLsn(msg.finalLsn)}`,
            { domain: 'internal' },
          );
        }
        this.skip = undefined;
        this.tx = {
          xid: msg.xid,
          finalLsn: msg.finalLsn,
          commitTimeUs: msg.commitTimeUs,
          commitMs: Math.floor(msg.commitTimeUs / 1000),
          emitted: 0,
          skip: skip?.emitted ?? 0,
        };
        return true;
      }
      case 'commit': {
        const tx = this.tx;
        this.tx = undefined;
        this.resumeLsn = maxLsn(this.resumeLsn, msg.endLsn);
        this.lastCommitLsn = msg.commitLsn;
        if (tx !== undefined) {
          const w = tx.commitMs - this.options.watermarkDelayMs - 1;
          if (w > this.watermark) this.watermark = w;
        }
        return true;
      }
      case 'relation':
        return this.onRelation(msg);
      case 'insert':
      case 'update':
      case 'delete': {
        const shape = this.relations.get(msg.relationId);
        if (shape === null || shape === undefined) return true; // a table the source does not capture
        const ctx = this.eventContext();
        const lsn = lsnToNumber(m.start);
        const { placeholder, records } = this.options;
        if (msg.tag === 'insert') {
          emitInsert(
            this.emitRecord,
            shape,
            ctx,
            lsn,
            decodeRow(shape, msg.newTuple, placeholder),
            records,
          );
        } else if (msg.tag === 'update') {
          const old =
            msg.oldTuple === undefined ? null : decodeRow(shape, msg.oldTuple, placeholder);
          const after = decodeRow(
            shape,
            msg.newTuple,
            placeholder,
            msg.oldKind === 'O' ? (old ?? undefined) : undefined,
          );
          emitUpdate(this.emitRecord, shape, ctx, lsn, old, after, records);
        } else {
          emitDelete(
            this.emitRecord,
            shape,
            ctx,
            lsn,
            decodeRow(shape, msg.oldTuple, placeholder),
            records,
          );
        }
        return true;
      }
      case 'truncate': {
        if (!this.options.truncateEvents) return true;
        const ctx = this.eventContext();
        for (const id of msg.relationIds) {
          const shape = this.relations.get(id);
          if (shape !== null && shape !== undefined) {
            emitTruncate(this.emitRecord, shape, ctx, lsnToNumber(m.start), this.options.records);
          }
        }
        return true;
      }
      case 'message': // logical messages (the heartbeat's among them) carry no row changes
      case 'type':
      case 'origin':
        return true;
    }
  }

  private eventContext(): EventContext {
    const tx = this.tx;
    if (tx === undefined) {
      throw new WeirError('SOURCE_FAILED', 'received a row change outside a transaction', {
        domain: 'internal',
      });
    }
    return {
      name: this.options.name,
      db: this.options.db,
      commitTimeUs: tx.commitTimeUs,
      txId: tx.xid,
      snapshot: 'false',
      lastCommitLsn: this.lastCommitLsn === undefined ? null : this.lastCommitLsn.toString(),
      now: this.options.now(),
    };
  }

  /**
   * A table's (possibly new) columns: later rows of it decode with them, so
   * an added column appears without a restart.
   */
  private onRelation(msg: RelationMessage): boolean {
    const o = this.options;
    const table = o.tables.get(`${msg.schema}.${msg.table}`);
    if (table === undefined) {
      this.relations.set(msg.relationId, null);
      return true;
    }
    const unknown = msg.columns.filter(
      (c) => !o.types.knows(c.typeOid) && !this.reloadedTypes.has(c.typeOid),
    );
    if (unknown.length > 0) {
      for (const c of unknown) this.reloadedTypes.add(c.typeOid);
      // Shapes already built keep their converters; new ones see the new types.
      this.waitingFor = o.reloadTypes().then(
        () => {
          this.waitingFor = undefined;
        },
        (cause: unknown) => {
          this.failure = cause;
          this.waitingFor = undefined;
        },
      );
      return false;
    }
    this.relations.set(
      msg.relationId,
      relationShape(
        o.name,
        msg.schema,
        msg.table,
        msg.columns,
        table.primaryKey,
        msg.replicaIdentity,
        o.types,
      ),
    );
    return true;
  }
}
