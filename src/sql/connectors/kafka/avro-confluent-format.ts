/**
 * Flink's `avro-confluent` format: a row as an Avro record of the schema derived from the
 * columns (as the `avro` format derives it), framed in the Confluent wire format (magic byte,
 * schema id) with its schema in a schema registry. Writers register the schema under the
 * subject (`<topic>-value` by default, as Flink's); readers look up each
 * record's writer schema by its id and resolve it into the table's schema (Avro's schema
 * evolution), on Weir's registry client and format (`RegistryFormats.avro`).
 */

import { SchemaRegistryClient } from '../../../connectors/kafka/registry/client.js';
import { RegistryFormats } from '../../../connectors/kafka/registry/formats.js';
import type { SourcePosition } from '../../sql-error.js';
import type { Row } from '../connector.js';
import { avroSchemaOfColumns, fromAvro, toAvro } from '../formats/avro-row-format.js';
import type { FormatColumn, RowFormat } from '../formats/format-types.js';

export interface AvroConfluentOptions {
  /** `avro-confluent.url`: the registry's base URL (Confluent's API). */
  readonly url: string;
  /** `avro-confluent.subject`: instead of `<topic>-value` (Confluent's TopicNameStrategy). */
  readonly subject?: string;
}

export function avroConfluentRowFormat(
  columns: readonly FormatColumn[],
  options: AvroConfluentOptions,
  at: SourcePosition,
): RowFormat {
  const registry = new SchemaRegistryClient({ url: options.url });
  const format = RegistryFormats.avro<Record<string, unknown>>({
    registry,
    schema: avroSchemaOfColumns(columns, at),
    // BIGINT over the whole 64-bit range, as Java's long.
    longs: 'exact',
    ...(options.subject === undefined
      ? { subjectNameStrategy: 'topic' as const }
      : { subject: options.subject }),
  });
  return {
    name: 'avro-confluent',
    decode(bytes) {
      if (bytes === undefined) return columns.map(() => null);
      const record = format.deserialize(bytes);
      return columns.map((c) => fromAvro(record[c.name], c.type, c.name));
    },
    encode(row: Row) {
      const record: Record<string, unknown> = {};
      columns.forEach((c, i) => {
        record[c.name] = toAvro(row[i], c.type);
      });
      return format.serialize(record);
    },
    prepareToRead: (values) => format.prepareToRead?.(values),
    prepareToWrite: (topic) => format.prepareToWrite?.(topic) ?? Promise.resolve(),
  };
}
