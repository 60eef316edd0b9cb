/**
 * TLS to PostgreSQL with libpq's settings and meanings: `sslmode`
 * (`disable`, `require`, `verify-ca`, `verify-full`), `sslrootcert`,
 * `sslcert`, `sslkey` and `sslpassword`, given as parameters of a
 * `postgres://` URL or as `sslMode`, `sslRootCert`, `sslCert`, `sslKey`,
 * `sslPassword` of the object form. Weir reads them itself rather than
 * leaving them to `pg`, whose `sslmode=require` verifies the certificate
 * (unlike libpq) and whose file errors do not say which setting failed.
 * Files are read when a session is opened, so when the connector opens and
 * on every reconnection (a renewed certificate is picked up).
 */
import { readFileSync } from 'node:fs';
import type { ConnectionOptions as TlsOptions } from 'node:tls';
import { invalidArgument, WeirError } from '../../core/errors.js';
import { checkKeyPair } from '../shared/tls.js';

/** The modes Weir supports; `allow` and `prefer` need a fallback to plaintext that `pg` cannot make. */
export const SSL_MODES = ['disable', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof SSL_MODES)[number];

/** TLS settings of a connection, before files are read. */
export interface SslSettings {
  readonly mode: SslMode | undefined;
  /** A PEM file of trusted CAs, or `system` for the CAs Node trusts. */
  readonly rootCert: string | undefined;
  readonly cert: string | undefined;
  readonly key: string | undefined;
  readonly password: string | undefined;
}

const URL_PARAMS = ['sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'sslpassword'] as const;

function isUrl(text: string): boolean {
  return /^postgres(ql)?:\/\//i.test(text);
}

/** The connection without its TLS settings, and those settings (undefined when it has none). */
export function splitSsl<C extends string | ObjectConnection>(
  connection: C,
): { readonly rest: C; readonly ssl: SslSettings | undefined } {
  if (typeof connection === 'string') {
    if (!isUrl(connection)) return { rest: connection, ssl: undefined };
    let url: URL;
    try {
      url = new URL(connection);
    } catch {
      // Left to pg, whose error the connector reports without the URL.
      return { rest: connection, ssl: undefined };
    }
    const p = url.searchParams;
    if (!URL_PARAMS.some((name) => p.has(name))) return { rest: connection, ssl: undefined };
    const ssl: SslSettings = {
      mode: (p.get('sslmode') ?? undefined) as SslMode | undefined,
      rootCert: p.get('sslrootcert') ?? undefined,
      cert: p.get('sslcert') ?? undefined,
      key: p.get('sslkey') ?? undefined,
      password: p.get('sslpassword') ?? undefined,
    };
    for (const name of URL_PARAMS) p.delete(name);
    return { rest: url.toString() as C, ssl };
  }
  const { sslMode, sslRootCert, sslCert, sslKey, sslPassword, ...rest } =
    connection as ObjectConnection;
  if (
    [sslMode, sslRootCert, sslCert, sslKey, sslPassword].every((x) => x === undefined) &&
    connection.connectionString === undefined
  )
    return { rest: connection, ssl: undefined };
  // Settings of the object win over those of its connectionString.
  const inner =
    connection.connectionString === undefined
      ? { rest: undefined, ssl: undefined }
      : splitSsl(connection.connectionString);
  const ssl: SslSettings = {
    mode: (sslMode ?? inner.ssl?.mode) as SslMode | undefined,
    rootCert: sslRootCert ?? inner.ssl?.rootCert,
    cert: sslCert ?? inner.ssl?.cert,
    key: sslKey ?? inner.ssl?.key,
    password: sslPassword ?? inner.ssl?.password,
  };
  const none = Object.values(ssl).every((x) => x === undefined);
  return {
    rest: {
      ...rest,
      ...(inner.rest === undefined ? {} : { connectionString: inner.rest }),
    } as C,
    ssl: none ? undefined : ssl,
  };
}

/** The TLS fields of the object form of a connection. */
export interface ObjectConnection {
  readonly connectionString?: string | undefined;
  readonly sslMode?: string | undefined;
  readonly sslRootCert?: string | undefined;
  readonly sslCert?: string | undefined;
  readonly sslKey?: string | undefined;
  readonly sslPassword?: string | undefined;
}

/** Why the TLS settings of `connection` are unusable, or undefined (checked when a connector is created). */
export function sslProblem(connection: string | ObjectConnection): string | undefined {
  const { ssl } = splitSsl(connection);
  if (ssl === undefined) return undefined;
  if (ssl.mode !== undefined && !(SSL_MODES as readonly string[]).includes(ssl.mode))
    return `sslmode must be one of ${SSL_MODES.map((m) => `'${m}'`).join(', ')}, got '${ssl.mode}'`;
  if ((ssl.cert === undefined) !== (ssl.key === undefined))
    return 'sslcert and sslkey go together (a client certificate and its key)';
  if (ssl.mode === 'verify-ca' && (ssl.rootCert === undefined || ssl.rootCert === 'system'))
    return "sslmode 'verify-ca' needs sslrootcert (the CA file): any certificate of a public CA would pass";
  return undefined;
}

function readPem(setting: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (cause) {
    const reason = (cause as { code?: unknown }).code ?? (cause as Error).message;
    throw new WeirError(
      'INVALID_ARGUMENT',
      `PostgreSQL connection: ${setting} '${path}' cannot be read (${String(reason)})`,
      {
        cause,
        domain: 'user',
      },
    );
  }
}

/**
 * `pg`'s `ssl` setting for TLS settings, files read now: `false` for
 * `disable`; without `sslmode`, `verify-full` when any TLS setting is given.
 */
export function pgSsl(ssl: SslSettings): TlsOptions | false {
  const problem = sslProblem({
    sslMode: ssl.mode,
    sslCert: ssl.cert,
    sslKey: ssl.key,
    sslRootCert: ssl.rootCert,
  });
  if (problem !== undefined) throw invalidArgument(`PostgreSQL connection: ${problem}`);
  const mode = ssl.mode ?? 'verify-full';
  if (mode === 'disable') return false;
  const options: TlsOptions = {};
  if (ssl.rootCert !== undefined && ssl.rootCert !== 'system')
    options.ca = readPem('sslrootcert', ssl.rootCert);
  if (ssl.cert !== undefined) options.cert = readPem('sslcert', ssl.cert);
  if (ssl.key !== undefined) options.key = readPem('sslkey', ssl.key);
  if (ssl.password !== undefined) options.passphrase = ssl.password;
  checkKeyPair(options, 'PostgreSQL connection', 'ssl');
  // libpq: `require` encrypts only, unless a root certificate is given (then as verify-ca).
  if (mode === 'require' && options.ca === undefined) options.rejectUnauthorized = false;
  else if (mode === 'require' || mode === 'verify-ca')
    options.checkServerIdentity = () => undefined;
  return options;
}
