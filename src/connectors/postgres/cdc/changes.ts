/**
 * Turns decoded rows into change records: the Debezium envelope, keys,
 * primary-key changes as delete + create, tombstones, the flattened form.
 */
import { describeRecord, WeirError } from '../../../core/errors.js';
import type { Converter, TypeMapper } from '../type-mapping.js';
import type { PgValue, Row } from '../values.js';
import {
  type ChangeEvent,
  type ChangeOperation,
  type ChangeRecord,
  flatten,
  keyOf,
  type SourceInfo,
  sameKey,
} from './envelope.js';
import type { RelationColumn, TupleValue } from './pgoutput.js';
import { UNCHANGED_TOAST } from './pgoutput.js';

/** Version of Weir written into `source.version`. */
export const WEIR_VERSION = '0.1.0';

/** A table's columns and how to read them, from a Relation message or a query's fields. */
export interface RelationShape {
  readonly schema: string;
  readonly table: string;
  readonly topic: string;
  readonly columns: readonly {
    readonly name: string;
    readonly typeName: string;
    readonly convert: Converter;
  }[];
  /** Columns of the record key (the primary key), empty for tables without one. */
  readonly keyColumns: readonly string[];
}

/** Builds the shape of a relation. */
export function relationShape(
  name: string,
  schema: string,
  table: string,
  columns: readonly Pick<RelationColumn, 'name' | 'typeOid' | 'typeMod' | 'isKey'>[],
  primaryKey: readonly string[] | undefined,
  replicaIdentity: string,
  types: TypeMapper,
): RelationShape {
  const keyColumns =
    primaryKey !== undefined && primaryKey.length > 0
      ? primaryKey
      : replicaIdentity === 'i' || replicaIdentity === 'd'
        ? columns.filter((c) => c.isKey).map((c) => c.name)
        : [];
  return {
    schema,
    table,
    topic: `${name}.${schema}.${table}`,
    columns: columns.map((c) => ({
      name: c.name,
      typeName: types.typeName(c.typeOid),
      convert: types.converter(c.typeOid, c.typeMod),
    })),
    keyColumns,
  };
}

/**
 * A row from text values. Unchanged TOASTed values (not sent by the server)
 * are taken from `fallback` (the old row, under REPLICA IDENTITY FULL) or
 * become the placeholder.
 */
export function decodeRow(
  shape: RelationShape,
  values: readonly TupleValue[],
  placeholder: string,
  fallback?: Row,
): Row {
  const row: Record<string, PgValue> = {};
  const columns = shape.columns;
  if (values.length !== columns.length) {
    // The server sends every column: a mismatch means a row read with another relation's shape.
    throw new WeirError(
      'SOURCE_FAILED',
      `a row of ${shape.schema}.${shape.table} has ${values.length} values for its ${columns.length} columns`,
      { domain: 'external' },
    );
  }
  for (let i = 0; i < columns.length; i++) {
    const column = columns[i]!;
    const v = values[i];
    if (v === null || v === undefined) row[column.name] = null;
    else if (v === UNCHANGED_TOAST) {
      const old = fallback?.[column.name];
      row[column.name] = old !== undefined && old !== null ? old : placeholder;
    } else {
      try {
        row[column.name] = column.convert(v);
      } catch (cause) {
        throw new WeirError(
          'SOURCE_FAILED',
          `cannot convert column ${shape.schema}.${shape.table}.${column.name} (${column.typeName}) value ${describeRecord(v)}: ${cause instanceof Error ? cause.message : String(cause)}`,
          {
            domain: cause instanceof RangeError ? 'user' : 'internal',
            cause,
            record: describeRecord(v),
          },
        );
      }
    }
  }
  return row;
}

/** What every event of one transaction (or of the snapshot) shares. */
export interface EventContext {
  readonly name: string;
  readonly db: string;
  readonly commitTimeUs: number;
  readonly txId: number | null;
  readonly snapshot: SourceInfo['snapshot'];
  /** Decimal string of the last committed LSN, or null. */
  readonly lastCommitLsn: string | null;
  readonly now: number;
}

/** How records are emitted. */
export interface RecordOptions {
  readonly flatten: boolean;
  readonly tombstonesOnDelete: boolean;
}

/** Receives the records of a change, in order. */
export type Emit = (record: ChangeRecord<unknown>) => void;

function source(shape: RelationShape, ctx: EventContext, lsn: number | null): SourceInfo {
  return {
    version: WEIR_VERSION,
    connector: 'postgresql',
    name: ctx.name,
    ts_ms: Math.floor(ctx.commitTimeUs / 1000),
    ts_us: ctx.commitTimeUs,
    snapshot: ctx.snapshot,
    db: ctx.db,
    sequence: `[${ctx.lastCommitLsn === null ? 'null' : `"${ctx.lastCommitLsn}"`},${lsn === null ? 'null' : `"${lsn}"`}]`,
    schema: shape.schema,
    table: shape.table,
    txId: ctx.txId,
    lsn,
    xmin: null,
  };
}

function record(
  shape: RelationShape,
  key: Row | null,
  event: ChangeEvent,
  options: RecordOptions,
): ChangeRecord<unknown> | undefined {
  if (!options.flatten) return { topic: shape.topic, key, value: event };
  const flat = flatten(event);
  return flat === undefined ? undefined : { topic: shape.topic, key, value: flat };
}

function emitEvent(
  emit: Emit,
  shape: RelationShape,
  ctx: EventContext,
  lsn: number | null,
  op: ChangeOperation,
  before: Row | null,
  after: Row | null,
  options: RecordOptions,
): void {
  const row = after ?? before;
  const key = row === null ? null : keyOf(row, shape.keyColumns);
  const event: ChangeEvent = { before, after, source: source(shape, ctx, lsn), op, ts_ms: ctx.now };
  const r = record(shape, key, event, options);
  if (r !== undefined) emit(r);
  if (op === 'd' && options.tombstonesOnDelete && key !== null) {
    emit({ topic: shape.topic, key, value: null });
  }
}

export function emitRead(
  emit: Emit,
  shape: RelationShape,
  ctx: EventContext,
  lsn: number,
  row: Row,
  options: RecordOptions,
): void {
  emitEvent(emit, shape, ctx, lsn, 'r', null, row, options);
}

export function emitInsert(
  emit: Emit,
  shape: RelationShape,
  ctx: EventContext,
  lsn: number,
  row: Row,
  options: RecordOptions,
): void {
  emitEvent(emit, shape, ctx, lsn, 'c', null, row, options);
}

/**
 * An update; a change of the key columns becomes a delete of the old key
 * (plus tombstone) and a create of the new one, as Debezium does.
 */
export function emitUpdate(
  emit: Emit,
  shape: RelationShape,
  ctx: EventContext,
  lsn: number,
  before: Row | null,
  after: Row,
  options: RecordOptions,
): void {
  if (before !== null && shape.keyColumns.length > 0 && !sameKey(before, after, shape.keyColumns)) {
    emitEvent(emit, shape, ctx, lsn, 'd', before, null, options);
    emitEvent(emit, shape, ctx, lsn, 'c', null, after, options);
    return;
  }
  emitEvent(emit, shape, ctx, lsn, 'u', before, after, options);
}

export function emitDelete(
  emit: Emit,
  shape: RelationShape,
  ctx: EventContext,
  lsn: number,
  before: Row,
  options: RecordOptions,
): void {
  emitEvent(emit, shape, ctx, lsn, 'd', before, null, options);
}

export function emitTruncate(
  emit: Emit,
  shape: RelationShape,
  ctx: EventContext,
  lsn: number,
  options: RecordOptions,
): void {
  if (options.flatten) return;
  const event: ChangeEvent = {
    before: null,
    after: null,
    source: source(shape, ctx, lsn),
    op: 't',
    ts_ms: ctx.now,
  };
  emit({ topic: shape.topic, key: null, value: event });
}
