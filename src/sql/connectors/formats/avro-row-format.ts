/**
 * The `avro` format: a record per row in Avro's binary encoding, its schema derived from the
 * table's columns as Flink's avro format derives it (a record named `record`, a nested ROW a
 * record named after its path, a nullable column a union with `null` first and a null
 * default; DECIMAL as `bytes` with the `decimal` logical type, DATE `int` date, TIME `int`
 * time-millis, TIMESTAMP and TIMESTAMP_LTZ `long` timestamp-millis). The bytes carry no schema
 * and no registry header: writer and reader share the table's schema, as with Flink's format.
 * `avsc` encodes and decodes (already a dependency, for the Kafka connector's Avro formats).
 */
import avro from 'avsc';
import { exactLongRegistry } from '../../../connectors/shared/avro-exact-long.js';
import { type SourcePosition, sqlError } from '../../sql-error.js';
import { fitPrecision } from '../../types/decimal.js';
import { formatType, type LogicalType } from '../../types/logical-type.js';
import type { Row } from '../connector.js';
import { FieldError } from './field-values.js';
import type { FormatColumn, RowFormat } from './format-types.js';

type AvroSchema = avro.Schema;

/** The Avro schema of a column type; `path` names nested records (`record_order_item`). */
function schemaOf(type: LogicalType, path: string, at: SourcePosition): AvroSchema {
  const base = ((): AvroSchema => {
    switch (type.kind) {
      case 'BOOLEAN':
        return 'boolean';
      case 'TINYINT':
      case 'SMALLINT':
      case 'INTEGER':
        return 'int';
      case 'BIGINT':
        return 'long';
      case 'FLOAT':
        return 'float';
      case 'DOUBLE':
        return 'double';
      case 'CHAR':
      case 'VARCHAR':
        return 'string';
      case 'BINARY':
      case 'VARBINARY':
        return 'bytes';
      case 'DECIMAL':
        return {
          type: 'bytes',
          logicalType: 'decimal',
          precision: type.precision,
          scale: type.scale,
        } as AvroSchema;
      case 'DATE':
        return { type: 'int', logicalType: 'date' } as AvroSchema;
      case 'TIME':
        return { type: 'int', logicalType: 'time-millis' } as AvroSchema;
      case 'TIMESTAMP':
      case 'TIMESTAMP_LTZ':
        // Above p = 3 a value is epoch nanoseconds, which timestamp-millis does not hold.
        if (type.precision > 3)
          return sqlError(`format 'avro' does not support ${formatType(type)} columns yet`, at);
        return { type: 'long', logicalType: 'timestamp-millis' } as AvroSchema;
      case 'ARRAY':
        return { type: 'array', items: schemaOf(type.element, path, at) } as AvroSchema;
      case 'ROW':
        return {
          type: 'record',
          name: path,
          fields: type.fields.map((f) => field(f.name, f.type, `${path}_${f.name}`, at)),
        };
      default:
        return sqlError(`format 'avro' does not support ${formatType(type)} columns`, at);
    }
  })();
  return type.nullable ? (['null', base] as AvroSchema) : base;
}

function field(
  name: string,
  type: LogicalType,
  path: string,
  at: SourcePosition,
): avro.schema.RecordType['fields'][number] {
  const schema = schemaOf(type, path, at);
  return type.nullable ? { name, type: schema, default: null } : { name, type: schema };
}

/** The Avro schema Weir reads and writes for a table's columns. */
export function avroSchemaOfColumns(
  columns: readonly FormatColumn[],
  at: SourcePosition,
): AvroSchema {
  return {
    type: 'record',
    name: 'record',
    fields: columns.map((c) => field(c.name, c.type, `record_${c.name}`, at)),
  };
}

/** An unscaled DECIMAL as Avro's big-endian two's complement bytes, and back. */
function decimalBytes(unscaled: bigint): Buffer {
  let hex = (unscaled < 0n ? -unscaled - 1n : unscaled).toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  let bytes = Buffer.from(hex, 'hex');
  // A leading byte whose top bit is set would read as negative: make room for the sign.
  if (bytes.length === 0 || (bytes[0] as number) & 0x80)
    bytes = Buffer.concat([Buffer.alloc(1), bytes]);
  if (unscaled < 0n) for (let i = 0; i < bytes.length; i++) bytes[i] = ~(bytes[i] as number) & 0xff;
  return bytes;
}

function decimalOfBytes(bytes: Buffer): bigint {
  if (bytes.length === 0) return 0n;
  const unsigned = BigInt(`0x${bytes.toString('hex')}`);
  return (bytes[0] as number) & 0x80 ? unsigned - (1n << BigInt(bytes.length * 8)) : unsigned;
}

/** A SQL value as the value avsc encodes for its schema. */
export function toAvro(value: unknown, type: LogicalType): unknown {
  if (value === null || value === undefined) return null;
  switch (type.kind) {
    case 'DECIMAL':
      return decimalBytes(value as bigint);
    case 'BINARY':
    case 'VARBINARY':
      return Buffer.from(value as Uint8Array);
    case 'ARRAY':
      return (value as unknown[]).map((e) => toAvro(e, type.element));
    case 'ROW': {
      const out: Record<string, unknown> = {};
      const values = value as unknown[];
      type.fields.forEach((f, i) => {
        out[f.name] = toAvro(values[i], f.type);
      });
      return out;
    }
    default:
      return value;
  }
}

/** A decoded Avro value as the SQL value of `type`; `field` names it in errors. */
export function fromAvro(value: unknown, type: LogicalType, field: string): unknown {
  if (value === null || value === undefined) {
    if (!type.nullable)
      throw new FieldError(field, `is null but the column is ${formatType(type)}`);
    return null;
  }
  switch (type.kind) {
    case 'DECIMAL': {
      const fitted = fitPrecision(decimalOfBytes(value as Buffer), type.precision);
      if (fitted === null) throw new FieldError(field, `does not fit ${formatType(type)}`);
      return fitted;
    }
    case 'BINARY':
    case 'VARBINARY':
      return new Uint8Array(value as Buffer);
    case 'ARRAY':
      return (value as unknown[]).map((e, i) => fromAvro(e, type.element, `${field}[${i}]`));
    case 'ROW': {
      const record = value as Record<string, unknown>;
      return type.fields.map((f) => fromAvro(record[f.name], f.type, `${field}.${f.name}`));
    }
    default:
      return value;
  }
}

export function avroRowFormat(columns: readonly FormatColumn[], at: SourcePosition): RowFormat {
  const type = avro.Type.forSchema(avroSchemaOfColumns(columns, at), {
    wrapUnions: false,
    registry: exactLongRegistry(),
  });
  return {
    name: 'avro',
    decode(bytes) {
      if (bytes === undefined) return columns.map(() => null);
      let record: Record<string, unknown>;
      try {
        record = type.fromBuffer(bytes) as Record<string, unknown>;
      } catch (error) {
        throw new Error(
          `not an Avro record of the table's schema: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      return columns.map((c) => fromAvro(record[c.name], c.type, c.name));
    },
    encode(row: Row) {
      const record: Record<string, unknown> = {};
      columns.forEach((c, i) => {
        record[c.name] = toAvro(row[i], c.type);
      });
      const errors: string[] = [];
      if (!type.isValid(record, { errorHook: (path) => errors.push(path.join('.')) })) {
        throw new Error(`avro: the row does not match the table's schema at ${errors.join(', ')}`);
      }
      return type.toBuffer(record);
    },
  };
}
