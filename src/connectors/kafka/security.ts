/**
 * Secure connections to Kafka: the `sasl` and `tls` options every Kafka
 * connector shares, how they become the client's settings (certificate and
 * key files are read when a client is made, so when the connector opens and
 * again on every reconnection, which picks up rotated files), and how a
 * refused login or an untrusted certificate is told from an outage: it is
 * reported at once, naming the broker and the mechanism, instead of being
 * retried for the whole reconnect budget.
 */
import { readFileSync } from 'node:fs';
import type { ConnectionOptions as TlsOptions } from 'node:tls';
import * as v from 'valibot';
import { WeirError } from '../../core/errors.js';
import { fn, nonEmptyString } from '../shared/config.js';
import { checkKeyPair, isTlsFailureCode } from '../shared/tls.js';

/** Returns a fresh OAUTHBEARER token (a JWT, without the `Bearer ` prefix). */
export type KafkaTokenProvider = () => string | Promise<string>;

const PASSWORD_MECHANISMS = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'] as const;

const extensionsSchema = v.record(
  v.pipe(v.string(), v.regex(/^[A-Za-z]+$/, 'must be extension names of letters')),
  v.string('must be strings'),
  'must be an object of strings',
);

/**
 * SASL authentication: `{ mechanism: 'PLAIN' | 'SCRAM-SHA-256' |
 * 'SCRAM-SHA-512', username, password }` or `{ mechanism: 'OAUTHBEARER',
 * token }` / `{ mechanism: 'OAUTHBEARER', tokenProvider }` (with optional
 * `extensions`, e.g. Confluent Cloud's `logicalCluster` and `identityPoolId`).
 * Use it over TLS (`tls`): PLAIN sends the password as it is.
 */
export const saslEntry = v.optional(
  v.variant(
    'mechanism',
    [
      v.object({
        mechanism: v.picklist(PASSWORD_MECHANISMS),
        username: nonEmptyString(),
        password: v.string('must be a string'),
      }),
      v.pipe(
        v.object({
          mechanism: v.literal('OAUTHBEARER'),
          /** A token used as it is (it is not refreshed: for tests and short jobs). */
          token: v.optional(nonEmptyString()),
          /**
           * Asked for a token whenever a connection logs in, including the
           * re-authentication the broker asks for before a token expires.
           */
          tokenProvider: v.optional(fn<KafkaTokenProvider>()),
          /** SASL extensions sent with the token. */
          extensions: v.optional(extensionsSchema),
        }),
        v.check(
          (o) => (o.token === undefined) !== (o.tokenProvider === undefined),
          'OAUTHBEARER needs exactly one of token and tokenProvider',
        ),
      ),
    ],
    "must be { mechanism: 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512', username, password } or { mechanism: 'OAUTHBEARER', token | tokenProvider }",
  ),
);

/**
 * TLS: `true` trusts the CAs Node trusts (managed services with public
 * certificates), or `{ caFile?, certFile?, keyFile?, keyPassword? }` with PEM
 * files: `caFile` the CA(s) that signed the brokers' certificates (instead of
 * Node's), `certFile` + `keyFile` a client certificate (mutual TLS),
 * `keyPassword` when the key is encrypted. The brokers' certificates are
 * always verified, host name included.
 */
export const tlsEntry = v.optional(
  v.union(
    [
      v.literal(true),
      v.pipe(
        v.object({
          caFile: v.optional(nonEmptyString('must be a file path')),
          certFile: v.optional(nonEmptyString('must be a file path')),
          keyFile: v.optional(nonEmptyString('must be a file path')),
          keyPassword: v.optional(v.string('must be a string')),
        }),
        v.check(
          (o) => (o.certFile === undefined) === (o.keyFile === undefined),
          'tls needs both certFile and keyFile for a client certificate',
        ),
      ),
    ],
    'must be true or { caFile?, certFile?, keyFile?, keyPassword? }',
  ),
);

/** Validated `sasl`. */
export type KafkaSasl = NonNullable<v.InferOutput<typeof saslEntry>>;
/** Validated `tls` as plain data: `{}` for `true`. */
export interface KafkaTls {
  readonly caFile?: string | undefined;
  readonly certFile?: string | undefined;
  readonly keyFile?: string | undefined;
  readonly keyPassword?: string | undefined;
}

/** `tls` as validated, as plain data. */
export function tlsOf(tls: v.InferOutput<typeof tlsEntry>): KafkaTls | undefined {
  return tls === undefined ? undefined : tls === true ? {} : { ...tls };
}

/** What the client needs to log in and encrypt: both absent for a plaintext cluster. */
export interface SecuritySettings {
  readonly sasl?: KafkaSasl | undefined;
  readonly tls?: KafkaTls | undefined;
}

function readPem(what: string, option: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (cause) {
    const reason = (cause as { code?: unknown }).code ?? (cause as Error).message;
    throw new WeirError(
      'INVALID_ARGUMENT',
      `${what}: tls.${option} '${path}' cannot be read (${String(reason)})`,
      {
        cause,
        domain: 'user',
      },
    );
  }
}

/**
 * The client's `sasl` setting (a subset of @platformatic/kafka's
 * `SASLOptions`, declared here so that the published declarations of the
 * options never load the client's types).
 */
export interface ClientSasl {
  readonly mechanism: 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512' | 'OAUTHBEARER';
  readonly username?: string;
  readonly password?: string;
  readonly token?: string | KafkaTokenProvider;
  readonly oauthBearerExtensions?: Record<string, string>;
}

/**
 * The client's `tls` and `sasl` settings, files read now. `what` names the
 * connector in the error a missing file raises.
 */
export function clientSecurity(
  settings: SecuritySettings,
  what: string,
): { tls?: TlsOptions; sasl?: ClientSasl } {
  const out: { tls?: TlsOptions; sasl?: ClientSasl } = {};
  const tls = settings.tls;
  if (tls !== undefined) {
    const options: TlsOptions = {};
    if (tls.caFile !== undefined) options.ca = readPem(what, 'caFile', tls.caFile);
    if (tls.certFile !== undefined) options.cert = readPem(what, 'certFile', tls.certFile);
    if (tls.keyFile !== undefined) options.key = readPem(what, 'keyFile', tls.keyFile);
    if (tls.keyPassword !== undefined) options.passphrase = tls.keyPassword;
    checkKeyPair(options, what, 'tls.');
    out.tls = options;
  }
  const sasl = settings.sasl;
  if (sasl !== undefined) {
    if (sasl.mechanism === 'OAUTHBEARER') {
      out.sasl = {
        mechanism: 'OAUTHBEARER',
        token: sasl.tokenProvider ?? sasl.token!,
        ...(sasl.extensions === undefined ? {} : { oauthBearerExtensions: sasl.extensions }),
      };
    } else {
      out.sasl = { mechanism: sasl.mechanism, username: sasl.username, password: sasl.password };
    }
  }
  return out;
}

/** How a connection was secured, for messages: never a secret. */
export function describeSecurity(settings: SecuritySettings): string {
  const sasl = settings.sasl;
  const login =
    sasl === undefined
      ? 'no SASL'
      : sasl.mechanism === 'OAUTHBEARER'
        ? 'SASL OAUTHBEARER'
        : `SASL ${sasl.mechanism} as '${sasl.username}'`;
  return `${login}, ${settings.tls === undefined ? 'no TLS' : 'TLS'}`;
}

/** Kafka error codes of a login that was refused. */
const SASL_API_ERRORS = new Set([
  'SASL_AUTHENTICATION_FAILED',
  'UNSUPPORTED_SASL_MECHANISM',
  'ILLEGAL_SASL_STATE',
]);

/** What went wrong when a connection could not be secured. */
export interface SecurityFailure {
  readonly kind: 'sasl' | 'tls';
  /** The broker named by the client's error (`host:port`), when it names one. */
  readonly broker: string | undefined;
  /** The most telling message of the error tree, with its code. */
  readonly detail: string;
}

/**
 * Whether `error`, or an error it wraps (`errors`, `cause`), is a refused
 * login or a TLS handshake that failed: a setting to fix, not an outage.
 */
export function securityFailureOf(error: unknown): SecurityFailure | undefined {
  let kind: 'sasl' | 'tls' | undefined;
  let detail: string | undefined;
  let broker: string | undefined;
  const seen = new Set<unknown>();
  const walk = (e: unknown, depth: number): void => {
    if (e === null || typeof e !== 'object' || depth > 8 || seen.has(e)) return;
    seen.add(e);
    const x = e as { code?: unknown; apiId?: unknown; message?: unknown };
    const code = typeof x.code === 'string' ? x.code : undefined;
    const message = typeof x.message === 'string' ? x.message : '';
    broker ??= /Connection to (\S+?:\d+)/.exec(message)?.[1];
    if (typeof x.apiId === 'string' && SASL_API_ERRORS.has(x.apiId)) {
      kind ??= 'sasl';
      detail ??= `${message} [${x.apiId}]`;
    } else if (code === 'PLT_KFK_AUTHENTICATION') {
      kind ??= 'sasl';
    } else if (code !== undefined && isTlsFailureCode(code)) {
      kind ??= 'tls';
      detail ??= `${message} [${code}]`;
    } else if (code === 'PLT_KFK_USER' && /TLS handshake failed/.test(message)) {
      kind ??= 'tls';
    }
    const inner = (e as { errors?: unknown }).errors;
    if (Array.isArray(inner)) for (const i of inner) walk(i, depth + 1);
    walk((e as { cause?: unknown }).cause, depth + 1);
    if (kind !== undefined && detail === undefined && message !== '' && code !== undefined)
      detail = message;
  };
  walk(error, 0);
  if (kind === undefined) return undefined;
  return { kind, broker, detail: detail ?? 'the handshake failed' };
}

/** Whether `error` is a refused login or a failed TLS handshake (see {@link securityFailureOf}). */
export function isSecurityFailure(error: unknown): boolean {
  return securityFailureOf(error) !== undefined;
}

/**
 * The error a refused login or a failed TLS handshake becomes: it names the
 * connector, the broker, how the connection was secured and what to check,
 * never a secret. Undefined when `cause` is something else.
 */
export function securityError(
  cause: unknown,
  settings: SecuritySettings & { readonly brokers: readonly string[] },
  what: string,
  code: 'SOURCE_FAILED' | 'SINK_FAILED',
): WeirError | undefined {
  const failure = securityFailureOf(cause);
  if (failure === undefined) return undefined;
  const broker = failure.broker ?? settings.brokers.join(',');
  const how = describeSecurity(settings);
  const hint =
    failure.kind === 'sasl'
      ? 'check sasl (mechanism and credentials) and that the listener accepts this mechanism'
      : settings.tls === undefined
        ? 'the listener may expect TLS (set tls) or not be a Kafka listener'
        : 'check tls.caFile (the CA that signed the broker certificate), the certificate host names, and tls.certFile/keyFile where the broker asks for a client certificate';
  const failed = failure.kind === 'sasl' ? 'SASL authentication failed' : 'TLS handshake failed';
  return new WeirError(
    code,
    `${what} cannot connect to broker ${broker} (${how}): ${failed}: ${failure.detail}; ${hint}`,
    { cause, domain: 'user', retriable: false },
  );
}
