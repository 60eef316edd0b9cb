/**
 * What the schema registry formats (Avro, Protobuf, JSON Schema) share: the
 * wire format, resolving writer schemas by id before a chunk is decoded,
 * and resolving the writer's own schema id before anything is written.
 *
 * A registry lookup is asynchronous while `KafkaFormat.deserialize` and
 * `serialize` are synchronous (they run on the hot path). So the lookups
 * happen at the edges the connectors already await:
 *
 * - reading: the source hands every fetched chunk to `prepareToRead` and
 *   awaits it before decoding; it looks up the ids the format has not seen
 *   (once per id and client: the client caches them). `deserialize` then
 *   only reads the cache. An id the registry does not know, or whose schema
 *   the reader's schema cannot read, is remembered as an error and fails
 *   each of its records as a bad record (the source's `onError` policy).
 * - writing: the sink calls `prepareToWrite` when it creates a writer and
 *   holds its task (as backpressure) until the id is known; registration
 *   or lookup failures fail the sink.
 */
import { WeirError } from '../../../core/errors.js';
import { reasonOf } from '../../shared/bad-records.js';
import type { KafkaFormat } from '../formats.js';
import type {
  RegisteredSchema,
  SchemaDefinition,
  SchemaRegistryClient,
  SchemaType,
} from './client.js';
import { SchemaRegistryError } from './client.js';
import { type ResolvedReference, resolveReferences } from './references.js';
import { type SubjectNameStrategy, subjectOf } from './subject.js';
import { HEADER_LENGTH, headerOf, peekSchemaId, schemaIdOf } from './wire.js';

/** Encodes values with one writer schema. */
export interface WriterCodec<T> {
  /** Written after the schema id (Protobuf's message indexes). */
  readonly prefix?: Buffer;
  encode(value: T): Buffer;
}

/** The schema language specific part of a registry format. */
export interface RegistryCodec<T> {
  /** `avro`, `protobuf`, `json-schema`: starts error messages. */
  readonly kind: string;
  readonly schemaType: SchemaType;
  /** The local schema (as registered text) and its record name; undefined when none was given. */
  readonly local: { readonly text: string; readonly recordName: string | undefined } | undefined;
  /**
   * A decoder of data written with `writer` (id `id`), whose references are
   * `references` (dependencies first); throws when the reader cannot read it.
   */
  reader(
    writer: RegisteredSchema,
    id: number,
    references: readonly ResolvedReference[],
  ): (bytes: Buffer, at: number) => T;
  /** An encoder writing with the schema text `text` (the local schema or a registered version). */
  writer(text: string): WriterCodec<T>;
}

/** Options every registry format has. */
export interface RegistryFormatOptions {
  /** The registry (one client may serve many formats: they share its caches). */
  readonly registry: SchemaRegistryClient;
  /** How writers name the subject of their schema. Default `'topic'`. */
  readonly subjectNameStrategy?: SubjectNameStrategy;
  /** The subject writers use, instead of one named by the strategy. */
  readonly subject?: string;
  /** The topic the `'topic'` and `'topic-record'` strategies name, when the sink's topic is chosen per record. */
  readonly topic?: string;
  /**
   * Writers register their schema under the subject if it is not there yet
   * (the registry checks compatibility). Default true; with false, the
   * schema must already be registered under the subject.
   */
  readonly autoRegister?: boolean;
  /**
   * Writers write with this registered version of the subject (`'latest'`
   * is looked up when the sink opens) instead of their own schema.
   */
  readonly useVersion?: number | 'latest';
}

type Reader<T> = ((bytes: Buffer, at: number) => T) | { readonly error: string };

export class RegistryFormat<T> implements KafkaFormat<T> {
  readonly name: string;
  private readonly readers = new Map<number, Reader<T>>();
  private readonly resolving = new Map<number, Promise<void>>();
  private writing: { readonly header: Buffer; readonly codec: WriterCodec<T> } | undefined;
  private writerReady: Promise<void> | undefined;
  private writerSubject: string | undefined;

  constructor(
    private readonly codec: RegistryCodec<T>,
    private readonly options: RegistryFormatOptions,
  ) {
    this.name = `${codec.kind}(registry)`;
  }

  prepareToRead(values: readonly (Buffer | undefined)[]): Promise<void> | undefined {
    let waits: Set<Promise<void>> | undefined;
    for (const bytes of values) {
      const id = peekSchemaId(bytes);
      if (id === undefined || this.readers.has(id)) continue;
      let p = this.resolving.get(id);
      if (p === undefined) {
        p = this.resolveReader(id).finally(() => this.resolving.delete(id));
        this.resolving.set(id, p);
      }
      waits ??= new Set();
      waits.add(p);
    }
    return waits === undefined ? undefined : Promise.all(waits).then(() => undefined);
  }

  private async resolveReader(id: number): Promise<void> {
    const registry = this.options.registry;
    let writer: RegisteredSchema;
    let references: ResolvedReference[];
    try {
      writer = await registry.schemaById(id);
      references = writer.references.length === 0 ? [] : await resolveReferences(registry, writer);
    } catch (cause) {
      if (cause instanceof SchemaRegistryError && cause.notFound) {
        this.readers.set(id, { error: `schema id ${id} is not in the registry ${registry.url}` });
        return;
      }
      throw new WeirError(
        'SOURCE_FAILED',
        `${this.codec.kind}: cannot look up the writer schema: ${reasonOf(cause)}`,
        { cause, domain: 'external', retriable: true },
      );
    }
    if (writer.schemaType !== this.codec.schemaType) {
      this.readers.set(id, {
        error: `schema id ${id} is a ${writer.schemaType} schema, not ${this.codec.schemaType}`,
      });
      return;
    }
    try {
      this.readers.set(id, this.codec.reader(writer, id, references));
    } catch (cause) {
      this.readers.set(id, { error: reasonOf(cause) });
    }
  }

  deserialize(bytes: Buffer | undefined): T {
    const kind = this.codec.kind;
    if (bytes === undefined) throw new Error(`${kind}: the record has no value (null)`);
    const id = schemaIdOf(bytes, kind);
    const reader = this.readers.get(id);
    if (reader === undefined) {
      throw new Error(
        `${kind}: schema id ${id} was not looked up (prepareToRead was not awaited before deserialize)`,
      );
    }
    if (typeof reader !== 'function') throw new Error(`${kind}: ${reader.error}`);
    try {
      return reader(bytes, HEADER_LENGTH);
    } catch (cause) {
      throw new Error(
        `${kind}: the value written with schema id ${id} cannot be decoded: ${reasonOf(cause)}`,
        { cause },
      );
    }
  }

  prepareToWrite(topic: string | undefined): Promise<void> {
    // `serialize` has no topic argument, so one format writes under one subject.
    let subject: string;
    try {
      subject = this.subjectFor(topic);
    } catch (cause) {
      return Promise.reject(cause);
    }
    if (this.writerSubject !== undefined && subject !== this.writerSubject) {
      return Promise.reject(
        new WeirError(
          'INVALID_ARGUMENT',
          `${this.codec.kind}: this format writes under subject '${this.writerSubject}' and cannot also write under '${subject}': give each sink its own format`,
        ),
      );
    }
    this.writerSubject = subject;
    this.writerReady ??= this.resolveWriter(subject);
    return this.writerReady;
  }

  private subjectFor(sinkTopic: string | undefined): string {
    return (
      this.options.subject ??
      subjectOf(
        this.options.subjectNameStrategy ?? 'topic',
        this.options.topic ?? sinkTopic,
        this.codec.local?.recordName,
        this.codec.kind,
      )
    );
  }

  private async resolveWriter(subject: string): Promise<void> {
    const { registry, useVersion } = this.options;
    const { kind, local, schemaType } = this.codec;
    if (useVersion === undefined && local === undefined) {
      throw new WeirError(
        'INVALID_ARGUMENT',
        `${kind}: writing needs the format's schema, or useVersion (a registered version to write with)`,
      );
    }
    let id: number;
    let text: string;
    try {
      if (useVersion !== undefined) {
        const found = await registry.subjectVersion(subject, useVersion);
        if (found.schemaType !== schemaType) {
          throw new Error(
            `subject '${subject}' version ${found.version} is a ${found.schemaType} schema, not ${schemaType}`,
          );
        }
        id = found.id;
        text = found.schema;
      } else {
        const definition: SchemaDefinition = { schemaType, schema: local!.text };
        id =
          this.options.autoRegister === false
            ? await registry.lookup(subject, definition)
            : await registry.register(subject, definition);
        text = local!.text;
      }
    } catch (cause) {
      this.writerReady = undefined;
      const lookup = this.options.autoRegister === false && useVersion === undefined;
      const unreachable =
        cause instanceof SchemaRegistryError && (cause.status === 0 || cause.status >= 500);
      throw new WeirError(
        'SINK_FAILED',
        `${kind}: cannot ${useVersion !== undefined ? `use version ${useVersion} of` : lookup ? 'find the schema (autoRegister is off) in' : 'register the schema under'} subject '${subject}': ${reasonOf(cause)}`,
        { cause, domain: unreachable ? 'external' : 'user', retriable: unreachable },
      );
    }
    const codec = this.codec.writer(text);
    this.writing = { header: headerOf(id, codec.prefix), codec };
  }

  serialize(value: T): Buffer {
    const w = this.writing;
    if (w === undefined) {
      throw new Error(
        `${this.codec.kind}: the writer schema id is not known yet (await prepareToWrite first; the Kafka sink does)`,
      );
    }
    return Buffer.concat([w.header, w.codec.encode(value)]);
  }
}
