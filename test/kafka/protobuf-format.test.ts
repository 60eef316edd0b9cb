/**
 * The plain Protobuf format in process (no broker): values as plain objects,
 * fields the message does not declare refused by path, bad bytes refused,
 * and the message indexes of the registry's wire format.
 */
import { describe, expect, it } from 'vitest';
import { KafkaFormats } from '../../src/connectors/kafka/index.js';
import {
  messageAt,
  messageIndexesOf,
  messageType,
  parseProto,
} from '../../src/connectors/kafka/protobuf-schema.js';

const PROTO = `
syntax = "proto3";
package shop.v1;
enum Kind { A = 0; B = 1; }
message Header { string source = 1; }
message Order {
  message Line { string sku = 1; int64 cents = 2; }
  int32 id = 1;
  Kind kind = 2;
  repeated Line lines = 3;
  map<string, Line> by_sku = 4;
}
`;

describe('KafkaFormats.protobuf', () => {
  const format = KafkaFormats.protobuf<Record<string, unknown>>({
    proto: PROTO,
    messageType: 'Order',
  });

  it('round-trips plain objects: enums by name, 64-bit integers as numbers, defaults filled in', () => {
    const order = {
      id: 7,
      kind: 'B',
      lines: [{ sku: 'x', cents: 2 ** 40 }],
      by_sku: { x: { sku: 'x', cents: 1 } },
    };
    expect(format.deserialize(format.serialize(order))).toEqual(order);
    expect(format.deserialize(format.serialize({ id: 1, kind: 1 }))).toEqual({
      id: 1,
      kind: 'B',
      lines: [],
      by_sku: {},
    });
    expect(
      format.deserialize(format.serialize({ id: 2, lines: [{ sku: 'y', cents: 5n }] })),
    ).toEqual({
      id: 2,
      kind: 'A',
      lines: [{ sku: 'y', cents: 5 }],
      by_sku: {},
    });
  });

  it('refuses fields the message does not declare, naming the path', () => {
    expect(() => format.serialize({ id: 1, kidn: 'A' })).toThrow(
      "protobuf: Order has no field 'kidn' (message shop.v1.Order)",
    );
    expect(() => format.serialize({ lines: [{ sku: 'x', cent: 1 }] })).toThrow(
      "protobuf: Order.lines has no field 'cent' (message shop.v1.Order.Line)",
    );
    expect(() => format.serialize({ by_sku: { x: { sku: 'x', price: 1 } } })).toThrow(
      /Order\.by_sku has no field 'price'/,
    );
    expect(() => format.serialize('order' as never)).toThrow(/must be an object/);
  });

  it('refuses bytes that are not a message of the type', () => {
    expect(() => format.deserialize(Buffer.from([0xff, 0xff, 0xff]))).toThrow(
      /protobuf: the value cannot be decoded/,
    );
    expect(() => format.deserialize(undefined)).toThrow(/no value/);
  });
});

describe('Protobuf message indexes', () => {
  it('count the messages of the file (not enums), through nested messages', () => {
    const file = parseProto(PROTO, 'test');
    const order = messageType(file, 'Order', 'test');
    expect(messageIndexesOf(file, order)).toEqual([1]);
    const line = messageType(file, 'Order.Line', 'test');
    expect(messageIndexesOf(file, line)).toEqual([1, 0]);
    expect(messageAt(file, [1, 0]).fullName).toBe('.shop.v1.Order.Line');
    expect(messageAt(file, [0]).name).toBe('Header');
    expect(() => messageAt(file, [5])).toThrow(/no message at indexes \[5\]/);
  });
});
