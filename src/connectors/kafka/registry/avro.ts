/** Avro in the Confluent wire format, with avsc: the registry format's Avro codec. */
import avro from 'avsc';
import { invalidArgument } from '../../../core/errors.js';
import { exactLongRegistry } from '../../shared/avro-exact-long.js';
import { reasonOf } from '../../shared/bad-records.js';
import { checkAvroDatum } from '../avro-check.js';
import type { AvroSchema } from '../formats.js';
import type { RegistryCodec } from './registry-format.js';

/** `number`: avsc's longs (exact to 2^53); `exact`: a bigint beyond 2^53, all 64 bits kept. */
export type AvroLongs = 'number' | 'exact';

/** A fresh type registry: named types of one schema (and its references), longs as asked. */
function registryFor(longs: AvroLongs): Record<string, avro.Type> {
  return longs === 'exact' ? exactLongRegistry() : {};
}

function typeOf(schema: AvroSchema, what: string, longs: AvroLongs): avro.Type {
  try {
    return avro.Type.forSchema(schema, { registry: registryFor(longs) });
  } catch (cause) {
    throw invalidArgument(`avro: invalid ${what}: ${reasonOf(cause)}`);
  }
}

/** Checks and encodes values with one Avro type (as `KafkaFormats.avro` does). */
function encoder<T>(type: avro.Type): (value: T) => Buffer {
  return (value) => {
    const errors: string[] = [];
    if (!type.isValid(value, { errorHook: (path) => errors.push(path.join('.') || '(root)') })) {
      throw new Error(`avro: value does not match the schema at ${errors.join(', ')}`);
    }
    return type.toBuffer(value);
  };
}

/**
 * `schema`, when given, is what writers register and write with, and what
 * readers decode into: data written with another (registered) schema is
 * resolved into it by avsc's resolver, Avro's schema evolution rules
 * (fields added with defaults, removed fields, promoted types). A writer
 * schema it cannot resolve fails each of that schema's records.
 */
export function avroCodec<T>(
  schema: AvroSchema | undefined,
  longs: AvroLongs = 'number',
): RegistryCodec<T> {
  const local = schema === undefined ? undefined : typeOf(schema, 'schema', longs);
  return {
    kind: 'avro',
    schemaType: 'AVRO',
    local:
      local === undefined
        ? undefined
        : { text: JSON.stringify(local.schema()), recordName: local.name },
    reader(writer, id, references) {
      // Named types of referenced schemas first, in one registry the writer schema then uses.
      const registry = registryFor(longs);
      for (const ref of references)
        avro.Type.forSchema(JSON.parse(ref.schema) as AvroSchema, { registry });
      const written = avro.Type.forSchema(JSON.parse(writer.schema) as AvroSchema, { registry });
      let resolver: avro.Resolver | undefined;
      if (local !== undefined && !local.equals(written)) {
        try {
          resolver = local.createResolver(written);
        } catch (cause) {
          throw new Error(
            `the reader schema ${local.name ?? local.typeName} cannot read data written with schema id ${id} (${written.name ?? written.typeName}): ${reasonOf(cause)}`,
          );
        }
      }
      const reader = local ?? written;
      return (bytes, at) => {
        const body = bytes.subarray(at);
        // Lengths, counts and UTF-8 first: avsc itself reads past the end before it notices.
        checkAvroDatum(written, body);
        return (
          resolver === undefined ? reader.fromBuffer(body) : reader.fromBuffer(body, resolver)
        ) as T;
      };
    },
    writer(text) {
      const type =
        local !== undefined && text === JSON.stringify(local.schema())
          ? local
          : typeOf(JSON.parse(text) as AvroSchema, 'registered schema', longs);
      return { encode: encoder<T>(type) };
    },
  };
}
