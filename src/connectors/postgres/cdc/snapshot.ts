/**
 * The initial snapshot: every captured table read in one REPEATABLE READ
 * transaction that imports the snapshot exported when the slot was created.
 * That snapshot shows exactly the transactions committed before the slot's
 * consistent point, and the slot delivers exactly those committed after it,
 * so snapshot + stream holds every change once: nothing lost, nothing twice.
 *
 * Rows are fetched through a cursor, `fetchSize` at a time, and only while
 * fewer than `maxBufferedRows` wait to be emitted (bounded memory).
 */
import type pg from 'pg';
import { WeirError } from '../../../core/errors.js';
import { qualified, quoteLiteral } from '../connection.js';
import { CursorRows } from '../cursor-rows.js';
import type { TableInfo } from './catalog.js';

/** One row of the snapshot, values in text form, with the columns of its query. */
export interface SnapshotRow {
  readonly table: TableInfo;
  readonly fields: readonly SnapshotField[];
  readonly values: readonly (string | null)[];
}

export interface SnapshotField {
  readonly name: string;
  readonly typeOid: number;
  readonly typeMod: number;
}

/** Facts about the snapshot transaction. */
export interface SnapshotStart {
  /** Transaction start time, microseconds since the epoch. */
  readonly timeUs: number;
  /** First transaction id the snapshot does not see. */
  readonly txId: number;
}

/**
 * Imports an exported snapshot into a new REPEATABLE READ transaction of
 * `client`. Must run while the session that exported it is still open.
 */
export async function beginSnapshot(
  client: pg.Client,
  snapshotName: string,
): Promise<SnapshotStart> {
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  await client.query(`SET TRANSACTION SNAPSHOT ${quoteLiteral(snapshotName)}`);
  const r = await client.query<{ us: string; xid: string }>(
    `SELECT (extract(epoch FROM now()) * 1000000)::int8::text AS us, txid_snapshot_xmax(txid_current_snapshot())::text AS xid`,
  );
  const row = r.rows[0]!;
  return { timeUs: Number(row.us), txId: Number(row.xid) };
}

/** Reads the tables in the background into a bounded buffer. */
export class SnapshotLoader extends CursorRows<SnapshotRow> {
  private lastFields: SnapshotField[] | undefined;

  constructor(
    private readonly client: pg.Client,
    private readonly tables: readonly TableInfo[],
    private readonly fetchSize: number,
    maxBufferedRows: number,
    /** The query reading one table (the initial snapshot needs no order; a replay sorts by key). */
    private readonly select: (table: TableInfo) => string = (t) => `SELECT * FROM ${qualified(t)}`,
  ) {
    super(maxBufferedRows);
  }

  start(): void {
    this.startReading(
      () => this.run(),
      (cause) =>
        new WeirError(
          'SOURCE_FAILED',
          `the initial snapshot failed: ${cause instanceof Error ? cause.message : String(cause)}`,
          { domain: 'external', cause, retriable: true },
        ),
    );
  }

  /** The previous fetch's field list if equal, so consumers can cache per field list. */
  private sameFields(fields: SnapshotField[]): SnapshotField[] {
    const last = this.lastFields;
    if (
      last !== undefined &&
      last.length === fields.length &&
      last.every(
        (f, i) =>
          f.name === fields[i]!.name &&
          f.typeOid === fields[i]!.typeOid &&
          f.typeMod === fields[i]!.typeMod,
      )
    ) {
      return last;
    }
    this.lastFields = fields;
    return fields;
  }

  private async run(): Promise<void> {
    for (const table of this.tables) {
      this.lastFields = undefined;
      const read = await this.readCursor(
        this.client,
        'weir_snapshot',
        { text: this.select(table) },
        this.fetchSize,
        (result) => {
          const fields = this.sameFields(
            result.fields.map((f) => ({
              name: f.name,
              typeOid: f.dataTypeID,
              typeMod: f.dataTypeModifier,
            })),
          );
          for (const values of result.rows as (string | null)[][])
            this.rows.push({ table, fields, values });
        },
      );
      if (!read) return;
    }
    await this.client.query('COMMIT');
  }
}
