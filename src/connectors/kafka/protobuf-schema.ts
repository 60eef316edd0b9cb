/**
 * Protobuf schemas through protobufjs: parsing `.proto` text or a protobufjs
 * JSON descriptor, finding a message type, its Confluent message indexes,
 * and turning messages into plain objects and back.
 */
import protobuf from 'protobufjs';
import { invalidArgument } from '../../core/errors.js';

/**
 * A parsed schema file: the root with every type it can use (its own and
 * its imports'), the namespace of its `package` there (the root without
 * one), and the same namespace holding only the file's own messages, whose
 * order the message indexes count.
 */
export interface ProtoFile {
  readonly root: protobuf.Root;
  readonly scope: protobuf.Namespace;
  readonly own: protobuf.Namespace;
}

/** An imported `.proto` file: the name the importing file uses for it, and its text. */
export interface ProtoImport {
  readonly name: string;
  readonly schema: string;
}

/** A protobufjs JSON descriptor (`Root.toJSON()`, or `pbjs -t json`). */
export type ProtobufDescriptor = protobuf.INamespace;

/** How 64-bit integers come out of decoding: numbers (exact up to 2^53) or decimal strings. */
export type ProtobufLongs = 'number' | 'string';

/**
 * Parses `.proto` text (field names kept as written, not camel-cased), with
 * the files it imports given as text (dependencies first).
 */
export function parseProto(
  text: string,
  what: string,
  imports: readonly ProtoImport[] = [],
): ProtoFile {
  try {
    // The file alone, to know which messages are its own (message indexes count only those).
    const alone = protobuf.parse(text, { keepCase: true });
    const own = packageOf(alone.root, alone.package);
    const root = new protobuf.Root();
    const wanted = new Set<string>();
    const parse = (source: string) => {
      const parsed = protobuf.parse(source, root, { keepCase: true });
      for (const name of [...(parsed.imports ?? []), ...(parsed.weakImports ?? [])])
        wanted.add(name);
      return parsed;
    };
    for (const i of imports) parse(i.schema);
    const parsed = parse(text);
    // Google's well-known types (timestamp, duration, wrappers, ...) come with protobufjs
    // when no given file provides them.
    const given = new Set(imports.map((i) => i.name));
    for (const name of wanted) {
      const known = given.has(name) ? undefined : protobuf.common.get(name);
      if (known?.nested !== undefined) root.addJSON(known.nested);
    }
    root.resolveAll();
    return { root, scope: packageOf(root, parsed.package), own };
  } catch (cause) {
    throw invalidArgument(`${what}: invalid .proto schema: ${messageOf(cause)}`);
  }
}

function packageOf(root: protobuf.Root, name: string | undefined): protobuf.Namespace {
  const scope = name === undefined ? root : root.lookup(name);
  if (!(scope instanceof protobuf.Namespace)) throw new Error(`no package ${name}`);
  return scope;
}

/** Loads a {@link ProtobufDescriptor}. */
export function protoFromDescriptor(descriptor: ProtobufDescriptor, what: string): ProtoFile {
  try {
    const root = protobuf.Root.fromJSON(descriptor);
    root.resolveAll();
    return { root, scope: root, own: root };
  } catch (cause) {
    throw invalidArgument(`${what}: invalid protobuf descriptor: ${messageOf(cause)}`);
  }
}

function messageTypes(ns: protobuf.NamespaceBase): protobuf.Type[] {
  return ns.nestedArray.filter((x): x is protobuf.Type => x instanceof protobuf.Type);
}

/** The message named `name` (full or relative to the package), or the file's first message. */
export function messageType(
  file: ProtoFile,
  name: string | undefined,
  what: string,
): protobuf.Type {
  if (name === undefined) {
    const first = messageTypes(file.own)[0];
    if (first === undefined) throw invalidArgument(`${what}: the schema declares no message`);
    return inRoot(file, first);
  }
  const found = file.scope.lookup(name) ?? file.root.lookup(name);
  if (!(found instanceof protobuf.Type))
    throw invalidArgument(`${what}: the schema has no message '${name}'`);
  return found;
}

/** The full name of a message, without protobufjs' leading dot. */
export function fullNameOf(type: protobuf.Type): string {
  return type.fullName.replace(/^\./, '');
}

/** The path of indexes of a message through the file's messages and their nested messages. */
export function messageIndexesOf(file: ProtoFile, type: protobuf.Type): number[] {
  const path: number[] = [];
  let at: protobuf.ReflectionObject | null = file.own.root.lookup(type.fullName);
  if (at === null) throw new Error(`message ${type.fullName} is not declared in the schema file`);
  while (at !== file.own) {
    const parent: protobuf.Namespace | null = at.parent;
    if (parent === null)
      throw new Error(`message ${type.fullName} is outside the schema's package`);
    path.unshift(messageTypes(parent).indexOf(at as protobuf.Type));
    at = parent;
  }
  return path;
}

/** The message at a path of indexes (see {@link messageIndexesOf}). */
export function messageAt(file: ProtoFile, indexes: readonly number[]): protobuf.Type {
  let ns: protobuf.NamespaceBase = file.own;
  let type: protobuf.Type | undefined;
  for (const i of indexes) {
    type = messageTypes(ns)[i];
    if (type === undefined) throw new Error(`the schema has no message at indexes [${indexes}]`);
    ns = type;
  }
  if (type === undefined) throw new Error('empty message indexes');
  return inRoot(file, type);
}

/** A message of the file's own namespace as the root with its imports has it (fields resolved). */
function inRoot(file: ProtoFile, type: protobuf.Type): protobuf.Type {
  return file.own === file.scope ? type : file.root.lookupType(type.fullName);
}

/** Decodes one message into a plain object (enums as names, defaults filled in). */
export function decodeMessage<T>(type: protobuf.Type, bytes: Uint8Array, longs: ProtobufLongs): T {
  const message = type.decode(bytes);
  return type.toObject(message, {
    longs: longs === 'string' ? String : Number,
    enums: String,
    defaults: true,
    arrays: true,
    objects: true,
  }) as T;
}

/**
 * Encodes a plain object (enum names or numbers, 64-bit integers as numbers,
 * strings or bigints). protobufjs' `fromObject` converts leniently and drops
 * fields the message does not have, so those (typos, mostly) are refused
 * first, naming the path.
 */
export function encodeMessage(type: protobuf.Type, value: unknown): Buffer {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new Error(`protobuf: a ${type.name} must be an object, got ${typeof value}`);
  checkFields(type, value as Record<string, unknown>, type.name);
  const message = type.fromObject(toPlainLongs(value) as Record<string, unknown>);
  const bytes = type.encode(message).finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
}

/** Throws on a field the message does not declare, in the value or its nested messages. */
function checkFields(type: protobuf.Type, value: Record<string, unknown>, path: string): void {
  for (const [name, v] of Object.entries(value)) {
    const field = type.fields[name];
    if (field === undefined)
      throw new Error(
        `protobuf: ${path} has no field '${name}' (message ${type.fullName.slice(1)})`,
      );
    const nested = field.resolve().resolvedType;
    if (!(nested instanceof protobuf.Type) || v === null || v === undefined) continue;
    // Well-known wrappers (google.protobuf.Any, ...) take other shapes: left to protobufjs.
    if (nested.fullName.startsWith('.google.protobuf.')) continue;
    const items = field.repeated ? (Array.isArray(v) ? v : []) : field.map ? Object.values(v) : [v];
    for (const item of items)
      if (item !== null && typeof item === 'object' && !(item instanceof Uint8Array))
        checkFields(nested, item as Record<string, unknown>, `${path}.${name}`);
  }
}

/** protobufjs reads 64-bit integers from numbers and strings, not bigints. */
function toPlainLongs(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map(toPlainLongs);
  if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = toPlainLongs(v);
    return out;
  }
  return value;
}

function messageOf(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
