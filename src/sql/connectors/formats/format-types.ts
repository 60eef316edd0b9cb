/** What every row format shares: the columns it reads and writes, and the codec itself. */
import type { LogicalType } from '../../types/logical-type.js';
import type { Row } from '../connector.js';

export interface FormatColumn {
  readonly name: string;
  readonly type: LogicalType;
}

/** Bytes of a record to a row and back. `undefined` bytes (a Kafka tombstone) decode to null values. */
export interface RowFormat {
  readonly name: string;
  decode(bytes: Buffer | undefined): Row;
  encode(row: Row): Buffer;
  /** For a format that looks its schemas up (a registry): awaited before a chunk is decoded. */
  prepareToRead?(values: readonly (Buffer | undefined)[]): Promise<void> | undefined;
  /** Awaited before the first write to `topic` (registers or looks up the writer's schema). */
  prepareToWrite?(topic: string | undefined): Promise<void>;
}
