/** Protobuf in the Confluent wire format (message indexes after the id): the registry format's Protobuf codec. */
import type protobuf from 'protobufjs';
import {
  decodeMessage,
  encodeMessage,
  fullNameOf,
  messageAt,
  messageIndexesOf,
  messageType,
  type ProtobufLongs,
  type ProtoFile,
  parseProto,
} from '../protobuf-schema.js';
import type { RegistryCodec } from './registry-format.js';
import { decodeMessageIndexes, encodeMessageIndexes } from './wire.js';

/**
 * Writers register `schema` (`.proto` text) and write `messageName` (default:
 * its first message). Readers decode with the writer's schema, the message
 * the indexes of each record name: Protobuf's own rules (unknown fields
 * skipped, missing ones default) make old and new messages readable.
 */
export function protobufCodec<T>(
  schema: string | undefined,
  messageName: string | undefined,
  longs: ProtobufLongs,
): RegistryCodec<T> {
  const local = schema === undefined ? undefined : parseProto(schema, 'protobuf');
  const localType = local === undefined ? undefined : messageType(local, messageName, 'protobuf');
  return {
    kind: 'protobuf',
    schemaType: 'PROTOBUF',
    local: schema === undefined ? undefined : { text: schema, recordName: fullNameOf(localType!) },
    reader(writer, _id, references) {
      const file = parseProto(writer.schema, 'protobuf: the writer schema', references);
      const types = new Map<string, protobuf.Type>();
      return (bytes, at) => {
        const { indexes, next } = decodeMessageIndexes(bytes, at);
        const key = indexes.join('.');
        let type = types.get(key);
        if (type === undefined) {
          type = messageAt(file, indexes);
          types.set(key, type);
        }
        return decodeMessage<T>(type, bytes.subarray(next), longs);
      };
    },
    writer(text) {
      const file: ProtoFile =
        text === schema && local !== undefined ? local : parseProto(text, 'protobuf');
      const type = messageType(file, messageName, 'protobuf');
      return {
        prefix: encodeMessageIndexes(messageIndexesOf(file, type)),
        encode: (value) => encodeMessage(type, value),
      };
    },
  };
}
