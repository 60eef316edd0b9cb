/**
 * The Confluent wire format without a registry: schema id framing and
 * Protobuf's message indexes (zigzag varints), byte for byte as Confluent's
 * serializers write them.
 */
import { describe, expect, it } from 'vitest';
import {
  decodeMessageIndexes,
  encodeMessageIndexes,
  headerOf,
  peekSchemaId,
  schemaIdOf,
} from '../../src/connectors/kafka/registry/wire.js';

describe('Confluent wire format', () => {
  it('frames a schema id as magic byte 0 and 4 big-endian bytes', () => {
    const framed = Buffer.concat([headerOf(0x01020304), Buffer.from([9])]);
    expect([...framed]).toEqual([0, 1, 2, 3, 4, 9]);
    expect(schemaIdOf(framed, 'avro')).toBe(0x01020304);
    expect(peekSchemaId(framed)).toBe(0x01020304);
    expect(peekSchemaId(Buffer.from([1, 0, 0, 0, 1]))).toBeUndefined();
    expect(peekSchemaId(undefined)).toBeUndefined();
    expect(() => schemaIdOf(Buffer.from([1, 0, 0, 0, 1]), 'avro')).toThrow(
      'avro: not in the schema registry wire format: magic byte 1, expected 0',
    );
    expect(() => schemaIdOf(Buffer.from([0, 0, 1]), 'avro')).toThrow(/3 bytes are too short/);
  });

  it('writes message indexes as zigzag varints, [0] as a single 0', () => {
    expect([...encodeMessageIndexes([0])]).toEqual([0]);
    expect([...encodeMessageIndexes([1])]).toEqual([2, 2]);
    expect([...encodeMessageIndexes([1, 0])]).toEqual([4, 2, 0]);
    // 100 zigzags to 200: two varint bytes.
    expect([...encodeMessageIndexes([100])]).toEqual([2, 0xc8, 0x01]);
    for (const indexes of [[0], [1], [3, 2, 1], [100, 70000], [0, 0]]) {
      const bytes = Buffer.concat([encodeMessageIndexes(indexes), Buffer.from([0xaa])]);
      const { indexes: read, next } = decodeMessageIndexes(bytes, 0);
      expect(read).toEqual(indexes);
      expect(bytes[next]).toBe(0xaa);
    }
  });

  it('refuses message indexes that are cut short or make no sense', () => {
    expect(() => decodeMessageIndexes(Buffer.from([4, 2]), 0)).toThrow(/cut short/);
    expect(() => decodeMessageIndexes(Buffer.from([1]), 0)).toThrow(/-1 message indexes/);
    expect(() => decodeMessageIndexes(Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 1]), 0)).toThrow(
      /too long/,
    );
  });
});
