/**
 * A small client of the Confluent Schema Registry REST API (also served by
 * Apicurio Registry under `/apis/ccompat/v7`, Karapace, Redpanda): register a
 * schema, look one up by id, by subject and version or by its text, and test
 * compatibility. Schemas by id never change, so they are cached for the
 * client's life; so are registrations (subject and schema text -> id).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import * as v from 'valibot';
import { parseOptions } from '../../shared/config.js';
import { type HttpAnswer, RegistryUnreachable, requestJson } from './http.js';
import { type RegistryClientOptions, registryClientSchema } from './options.js';

export type { RegistryClientOptions } from './options.js';

/** The schema languages of the Confluent wire format. */
export type SchemaType = 'AVRO' | 'PROTOBUF' | 'JSON';

/** A schema reference (an imported `.proto`, a named Avro type in another subject). */
export interface SchemaReference {
  readonly name: string;
  readonly subject: string;
  readonly version: number;
}

/** A schema as the registry holds it. */
export interface RegisteredSchema {
  readonly schemaType: SchemaType;
  /** The schema text (Avro and JSON Schema: JSON; Protobuf: `.proto` text). */
  readonly schema: string;
  readonly references: readonly SchemaReference[];
}

/** A registered version of a subject. */
export interface SubjectVersion extends RegisteredSchema {
  readonly subject: string;
  readonly id: number;
  readonly version: number;
}

/** A schema to register, look up or test. */
export interface SchemaDefinition {
  readonly schemaType: SchemaType;
  readonly schema: string;
  readonly references?: readonly SchemaReference[];
}

/** The answer of a compatibility test. */
export interface CompatibilityResult {
  readonly compatible: boolean;
  /** The registry's reasons, when it gives any. */
  readonly messages: readonly string[];
}

/**
 * A request the registry answered with an error (`status` and the registry's
 * `errorCode`, such as 40401 subject not found, 40403 schema not found,
 * 409 incompatible), or that never got an answer (`status` 0). The message
 * names the registry URL (without credentials) and what was asked.
 */
export class SchemaRegistryError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly errorCode: number | undefined,
  ) {
    super(message);
    this.name = 'SchemaRegistryError';
  }

  /** The subject, version or schema id asked for does not exist. */
  get notFound(): boolean {
    return this.status === 404;
  }
}

/** Errors of a registry that cannot be reached now, retried until `retryForMs` runs out. */
const TRANSIENT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/**
 * A Confluent-compatible schema registry, with caches.
 *
 * ```ts
 * const registry = new SchemaRegistryClient({
 *   url: 'https://registry.example.com',
 *   auth: { username: 'weir', password: process.env.REGISTRY_PASSWORD! },
 * });
 * ```
 *
 * One client may serve any number of formats, sources and sinks: they share
 * its caches, so a schema id is looked up once per client.
 */
export class SchemaRegistryClient {
  /** The base URL as shown in errors: credentials removed. */
  readonly url: string;
  private readonly target: Parameters<typeof requestJson>[0];
  private readonly retryForMs: number;
  private readonly byId = new Map<number, Promise<RegisteredSchema>>();
  private readonly ids = new Map<string, Promise<number>>();
  private sent = 0;

  constructor(options: RegistryClientOptions) {
    const o = parseOptions('SchemaRegistryClient', registryClientSchema, options);
    const url = new URL(o.url);
    let user = o.auth?.username;
    let password = o.auth?.password;
    // Credentials in the URL work too, but never appear in messages.
    if (url.username !== '' && user === undefined) {
      user = decodeURIComponent(url.username);
      password = decodeURIComponent(url.password);
    }
    url.username = '';
    url.password = '';
    this.url = url.toString().replace(/\/$/, '');
    this.target = {
      url,
      authorization:
        user === undefined
          ? undefined
          : `Basic ${Buffer.from(`${user}:${password ?? ''}`, 'utf8').toString('base64')}`,
      tls: o.tls,
      timeoutMs: o.requestTimeoutMs,
    };
    this.retryForMs = o.retryForMs;
  }

  /** HTTP requests sent so far (each retry counts): shows what the caches save. */
  get requests(): number {
    return this.sent;
  }

  /** The schema with this id (cached: ids are immutable). */
  schemaById(id: number): Promise<RegisteredSchema> {
    let known = this.byId.get(id);
    if (known === undefined) {
      known = this.call('GET', `/schemas/ids/${id}`, undefined, `schema id ${id}`).then((body) =>
        registeredOf(body, `schema registry ${this.url}: schema id ${id}`),
      );
      // A failure is not cached: the next lookup asks again.
      known.catch(() => this.byId.delete(id));
      this.byId.set(id, known);
    }
    return known;
  }

  /** A version of a subject (`'latest'` is asked every time; numbered versions are immutable). */
  async subjectVersion(subject: string, version: number | 'latest'): Promise<SubjectVersion> {
    const what = `subject '${subject}' version ${version}`;
    const body = await this.call(
      'GET',
      `/subjects/${encodeURIComponent(subject)}/versions/${version}`,
      undefined,
      what,
    );
    const found = subjectVersionOf(body, `schema registry ${this.url}: ${what}`);
    if (!this.byId.has(found.id)) this.byId.set(found.id, Promise.resolve(found));
    return found;
  }

  /**
   * Registers `schema` under `subject` (a no-op returning the existing id if
   * it is already there) and returns its id. Cached per subject and text.
   */
  register(subject: string, schema: SchemaDefinition): Promise<number> {
    return this.idOf('register', subject, schema, () =>
      this.call(
        'POST',
        `/subjects/${encodeURIComponent(subject)}/versions`,
        bodyOf(schema),
        `registering a schema under subject '${subject}'`,
      ),
    );
  }

  /** The id of `schema` if it is registered under `subject` (a 404 error otherwise). Cached. */
  lookup(subject: string, schema: SchemaDefinition): Promise<number> {
    return this.idOf('lookup', subject, schema, () =>
      this.call(
        'POST',
        `/subjects/${encodeURIComponent(subject)}`,
        bodyOf(schema),
        `looking up a schema under subject '${subject}'`,
      ),
    );
  }

  /** Whether `schema` is compatible with a version of `subject`, under the subject's compatibility rule. */
  async testCompatibility(
    subject: string,
    schema: SchemaDefinition,
    version: number | 'latest' = 'latest',
  ): Promise<CompatibilityResult> {
    const body = await this.call(
      'POST',
      `/compatibility/subjects/${encodeURIComponent(subject)}/versions/${version}?verbose=true`,
      bodyOf(schema),
      `testing compatibility with subject '${subject}' version ${version}`,
    );
    const b = body as { is_compatible?: unknown; messages?: unknown; reason?: unknown };
    const messages = Array.isArray(b.messages)
      ? b.messages.map(String)
      : typeof b.reason === 'string'
        ? [b.reason]
        : [];
    return { compatible: b.is_compatible === true, messages };
  }

  /** Sets the compatibility rule of a subject (`BACKWARD`, `FORWARD`, `FULL`, `NONE`, ...). */
  async setCompatibility(subject: string, level: string): Promise<void> {
    await this.call(
      'PUT',
      `/config/${encodeURIComponent(subject)}`,
      { compatibility: level },
      `setting compatibility of subject '${subject}'`,
    );
  }

  private idOf(
    kind: string,
    subject: string,
    schema: SchemaDefinition,
    ask: () => Promise<unknown>,
  ): Promise<number> {
    const key = `${kind}\u0000${subject}\u0000${schema.schemaType}\u0000${schema.schema}`;
    let known = this.ids.get(key);
    if (known === undefined) {
      known = ask().then((body) => {
        const id = (body as { id?: unknown }).id;
        if (typeof id !== 'number' || !Number.isInteger(id))
          throw this.error(`${kind} under subject '${subject}': the answer has no id`, 200);
        return id;
      });
      known.catch(() => this.ids.delete(key));
      this.ids.set(key, known);
    }
    return known;
  }

  /** One request, retried while the registry cannot be reached or answers 5xx, up to `retryForMs`. */
  private async call(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    body: unknown,
    what: string,
  ): Promise<unknown> {
    const started = Date.now();
    let backoff = 100;
    for (;;) {
      let answer: HttpAnswer | undefined;
      let failure: string;
      try {
        this.sent++;
        answer = await requestJson(this.target, method, path, body);
        if (answer.status >= 200 && answer.status < 300) return answer.body;
        const b = answer.body as { error_code?: unknown; message?: unknown } | undefined;
        const code = typeof b?.error_code === 'number' ? b.error_code : undefined;
        const message =
          typeof b?.message === 'string' ? b.message : String(answer.body ?? '').slice(0, 200);
        failure = `HTTP ${answer.status}${code === undefined ? '' : ` (error ${code})`}: ${message}`;
        if (answer.status < 500 && answer.status !== 429) {
          throw this.error(`${what}: ${failure}`, answer.status, code);
        }
      } catch (cause) {
        if (!(cause instanceof RegistryUnreachable)) throw cause;
        if (cause.code !== undefined && !TRANSIENT_CODES.has(cause.code))
          throw this.error(`${what}: ${cause.message}`, 0);
        failure = cause.message;
      }
      const elapsed = Date.now() - started;
      if (elapsed + backoff > this.retryForMs)
        throw this.error(`${what}: ${failure} (retried for ${elapsed} ms)`, answer?.status ?? 0);
      await sleep(backoff);
      backoff = Math.min(backoff * 2, 2_000);
    }
  }

  private error(message: string, status: number, code?: number): SchemaRegistryError {
    return new SchemaRegistryError(`schema registry ${this.url}: ${message}`, status, code);
  }
}

function bodyOf(schema: SchemaDefinition): Record<string, unknown> {
  return {
    schema: schema.schema,
    // Avro is the API's default type; some registries refuse an explicit AVRO.
    ...(schema.schemaType === 'AVRO' ? {} : { schemaType: schema.schemaType }),
    ...(schema.references === undefined || schema.references.length === 0
      ? {}
      : { references: schema.references }),
  };
}

const referenceSchema = v.object({ name: v.string(), subject: v.string(), version: v.number() });
const registeredSchema = v.object({
  schema: v.string(),
  schemaType: v.optional(v.picklist(['AVRO', 'PROTOBUF', 'JSON']), 'AVRO'),
  references: v.optional(v.array(referenceSchema), []),
});
const subjectVersionSchema = v.object({
  ...registeredSchema.entries,
  subject: v.string(),
  id: v.number(),
  version: v.number(),
});

function registeredOf(body: unknown, what: string): RegisteredSchema {
  const parsed = v.safeParse(registeredSchema, body);
  if (!parsed.success) throw new SchemaRegistryError(`${what}: unexpected answer`, 200, undefined);
  return parsed.output;
}

function subjectVersionOf(body: unknown, what: string): SubjectVersion {
  const parsed = v.safeParse(subjectVersionSchema, body);
  if (!parsed.success) throw new SchemaRegistryError(`${what}: unexpected answer`, 200, undefined);
  return parsed.output;
}
