/** JSON Schema in the Confluent wire format (UTF-8 JSON after the id), validated with Ajv. */
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { invalidArgument } from '../../../core/errors.js';
import { reasonOf } from '../../shared/bad-records.js';
import { decodeUtf8 } from '../../shared/utf8.js';
import type { ResolvedReference } from './references.js';
import type { RegistryCodec } from './registry-format.js';

/** A JSON Schema document. */
export type JsonSchema = Readonly<Record<string, unknown>> | boolean;

function compile(
  schema: JsonSchema,
  what: string,
  references: readonly ResolvedReference[] = [],
): ValidateFunction {
  // Registered schemas may carry keywords Ajv does not know (strict: false);
  // draft 2020-12 needs Ajv's 2020 class, the others (draft-07 and older) the default one.
  const draft2020 = typeof schema === 'object' && String(schema.$schema ?? '').includes('2020-12');
  const ajv = draft2020
    ? new Ajv2020({ strict: false, allErrors: false })
    : new Ajv({ strict: false, allErrors: false });
  try {
    // A `$ref` names a referenced schema as the reference's name.
    for (const ref of references) ajv.addSchema(JSON.parse(ref.schema) as JsonSchema, ref.name);
    return ajv.compile(schema);
  } catch (cause) {
    throw invalidArgument(`json-schema: invalid ${what}: ${reasonOf(cause)}`);
  }
}

function problemOf(validate: ValidateFunction): string {
  const e = validate.errors?.[0];
  return e === undefined ? 'invalid' : `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`;
}

/**
 * Writers register `schema` and (with `validateWrites`, the default) refuse
 * values it does not accept; readers parse the JSON and, with
 * `validateReads`, check it against the writer's schema (the one registered
 * under the record's id).
 */
export function jsonSchemaCodec<T>(
  schema: JsonSchema | undefined,
  validateWrites: boolean,
  validateReads: boolean,
): RegistryCodec<T> {
  const local = schema === undefined ? undefined : compile(schema, 'schema');
  const title =
    typeof schema === 'object' && typeof schema.title === 'string' ? schema.title : undefined;
  return {
    kind: 'json-schema',
    schemaType: 'JSON',
    local: schema === undefined ? undefined : { text: JSON.stringify(schema), recordName: title },
    reader(writer, _id, references) {
      const validate = validateReads
        ? compile(JSON.parse(writer.schema) as JsonSchema, 'writer schema', references)
        : undefined;
      return (bytes, at) => {
        const value: unknown = JSON.parse(decodeUtf8(bytes.subarray(at), 'json-schema: the value'));
        if (validate !== undefined && !validate(value))
          throw new Error(`the value does not match the writer schema: ${problemOf(validate)}`);
        return value as T;
      };
    },
    writer(text) {
      const validate = !validateWrites
        ? undefined
        : schema !== undefined && text === JSON.stringify(schema)
          ? local
          : compile(JSON.parse(text) as JsonSchema, 'registered schema');
      return {
        encode: (value) => {
          if (validate !== undefined && !validate(value))
            throw new Error(`json-schema: value does not match the schema: ${problemOf(validate)}`);
          const text = JSON.stringify(value);
          if (text === undefined) throw new Error(`json-schema: value cannot be serialized`);
          return Buffer.from(text, 'utf8');
        },
      };
    },
  };
}
