/**
 * Snapshot rows as `r` (read) change records: shared by the streaming
 * source's initial snapshot and a replay's snapshot, so both emit the same
 * records for the same rows.
 */
import type { TypeMapper } from '../type-mapping.js';
import type { TableInfo } from './catalog.js';
import {
  decodeRow,
  type Emit,
  type EventContext,
  emitRead,
  type RecordOptions,
  type RelationShape,
  relationShape,
} from './changes.js';
import type { SnapshotField, SnapshotRow } from './snapshot.js';

export class SnapshotReads {
  /** Keyed by the loader's field list, which it reuses while a table's columns stay the same. */
  private readonly shapes = new WeakMap<readonly SnapshotField[], RelationShape>();

  constructor(
    private readonly name: string,
    private readonly types: TypeMapper,
    private readonly placeholder: string,
    private readonly options: RecordOptions,
  ) {}

  /** Emits the read of `row`; `last` marks the snapshot's very last row (`snapshot: 'last'`). */
  emit(emit: Emit, row: SnapshotRow, ctx: EventContext, lsn: number, last: boolean): void {
    const shape = this.shape(row.table, row.fields);
    const values = decodeRow(shape, row.values, this.placeholder);
    emitRead(emit, shape, last ? { ...ctx, snapshot: 'last' } : ctx, lsn, values, this.options);
  }

  private shape(table: TableInfo, fields: readonly SnapshotField[]): RelationShape {
    let shape = this.shapes.get(fields);
    if (shape === undefined) {
      shape = relationShape(
        this.name,
        table.schema,
        table.table,
        fields.map((f) => ({ ...f, isKey: false })),
        table.primaryKey,
        table.replicaIdentity,
        this.types,
      );
      this.shapes.set(fields, shape);
    }
    return shape;
  }
}
