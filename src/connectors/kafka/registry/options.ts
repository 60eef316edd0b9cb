/** Options of the schema registry client, declared once as a valibot schema. */
import * as v from 'valibot';
import { nonEmptyString, type OptionsOf, positiveMs, shaped } from '../../shared/config.js';
import type { RegistryTlsOptions } from './http.js';

/** Schema of `SchemaRegistryClient`'s options. */
export const registryClientSchema = v.object({
  /**
   * Base URL of the Confluent-compatible API, `http(s)://host:port[/path]`
   * (Confluent: `http://host:8081`; Apicurio: `http://host:8080/apis/ccompat/v7`).
   */
  url: v.pipe(
    nonEmptyString("must be an 'http://' or 'https://' URL"),
    v.check((u) => {
      try {
        return ['http:', 'https:'].includes(new URL(u).protocol);
      } catch {
        return false;
      }
    }, "must be an 'http://' or 'https://' URL"),
  ),
  /** HTTP basic authentication (Confluent Cloud: API key and secret). */
  auth: v.optional(
    v.object({ username: nonEmptyString(), password: v.string('must be a string') }),
  ),
  /** TLS of an `https:` URL: trusted CAs, a client certificate and key, `rejectUnauthorized`. */
  tls: v.optional(shaped<RegistryTlsOptions>(() => true, 'must be an object')),
  /** Timeout of one request. Default 10 s. */
  requestTimeoutMs: v.optional(positiveMs(), 10_000),
  /**
   * How long a request is retried while the registry cannot be reached or
   * answers 5xx (backoff from 100 ms to 2 s); then it fails. Default 30 s.
   */
  retryForMs: v.optional(
    v.pipe(
      v.number('must be a number of milliseconds >= 0'),
      v.minValue(0, 'must be a number of milliseconds >= 0'),
    ),
    30_000,
  ),
});

/** Options of `SchemaRegistryClient`. */
export type RegistryClientOptions = OptionsOf<typeof registryClientSchema>;
