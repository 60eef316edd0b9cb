/**
 * Connection settings and the sessions the connector opens. Every session
 * gets the same output settings, so that values read by the snapshot and
 * values decoded by the walsender have exactly the same text form.
 */
import pg from 'pg';
import { invalidArgument, WeirError } from '../../core/errors.js';
import { tlsFailureOf } from '../shared/tls.js';
import type { PostgresConnection } from './config.js';
import { pgSsl, splitSsl } from './tls.js';

export type { PostgresConnection } from './config.js';

/** Session settings fixing the text form of values (dates ISO in UTC, intervals ISO 8601, bytea hex). */
export const SESSION_OPTIONS =
  '-c DateStyle=ISO -c TimeZone=UTC -c IntervalStyle=iso_8601 -c extra_float_digits=3 -c bytea_output=hex -c client_encoding=UTF8';

/** A `pg` client configuration for a connection setting. */
export function clientConfig(
  connection: PostgresConnection,
  extra: { readonly replication?: boolean; readonly applicationName?: string } = {},
): pg.ClientConfig {
  // TLS settings are Weir's to apply (see tls.ts); pg gets the rest.
  const { rest, ssl } = splitSsl(connection);
  connection = rest;
  const base: pg.ClientConfig =
    typeof connection === 'string'
      ? { connectionString: connection }
      : {
          ...(connection.connectionString === undefined
            ? {}
            : { connectionString: connection.connectionString }),
          ...(connection.host === undefined ? {} : { host: connection.host }),
          ...(connection.port === undefined ? {} : { port: connection.port }),
          ...(connection.user === undefined ? {} : { user: connection.user }),
          ...(connection.password === undefined ? {} : { password: connection.password }),
          ...(connection.database === undefined ? {} : { database: connection.database }),
        };
  const name =
    extra.applicationName ??
    (typeof connection === 'string' ? undefined : connection.applicationName) ??
    'weir';
  const extraOptions = typeof connection === 'string' ? undefined : connection.sessionOptions;
  const config: pg.ClientConfig & { replication?: string } = {
    ...base,
    application_name: name,
    options: extraOptions === undefined ? SESSION_OPTIONS : `${SESSION_OPTIONS} ${extraOptions}`,
  };
  if (extra.replication === true) config.replication = 'database';
  if (ssl !== undefined) config.ssl = pgSsl(ssl);
  return config;
}

/** Opens a session. */
export async function connect(
  connection: PostgresConnection,
  extra: { readonly replication?: boolean; readonly applicationName?: string } = {},
): Promise<pg.Client> {
  const client = new pg.Client(clientConfig(connection, extra));
  // A session error surfaces through the query that is running; without a
  // listener an idle connection's error would crash the process. It is kept
  // to explain the next query's "not queryable" (see `sessionFailure`).
  client.on('error', (error) => sessionErrors.set(client, error));
  try {
    await client.connect();
  } catch (error) {
    throw tlsError(error, client) ?? error;
  }
  return client;
}

const sessionErrors = new WeakMap<pg.Client, Error>();

/**
 * A failed TLS handshake as an error naming the server and what to check
 * (a certificate does not fix itself: it is not retried as an outage).
 */
function tlsError(error: unknown, client: pg.Client): WeirError | undefined {
  const failure = tlsFailureOf(error);
  if (failure === undefined) return undefined;
  return new WeirError(
    'INVALID_ARGUMENT',
    `PostgreSQL server ${client.host}:${client.port}: TLS handshake failed: ${failure.message} [${failure.code}]; ` +
      'check sslrootcert (the CA that signed the server certificate), the host name in the certificate (verify-full), and sslcert/sslkey',
    { cause: error, domain: 'user' },
  );
}

/**
 * What a failed query on `client` is best reported as: a query on a session
 * that broke while idle fails with `pg`'s generic "not queryable", and the
 * reason (for example "terminating connection due to administrator
 * command", SQLSTATE 57P01) is the error the session received before.
 */
export function sessionFailure(client: pg.Client, error: unknown): unknown {
  const earlier = sessionErrors.get(client);
  if (earlier === undefined || earlier === error) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (!/not queryable|Connection terminated/i.test(message)) return error;
  return Object.assign(new Error(`${message}: ${earlier.message}`, { cause: earlier }), {
    code: (earlier as { code?: unknown }).code,
  });
}

/** A quoted SQL identifier. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** A quoted SQL string literal. */
export function quoteLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** A table name: schema and table. */
export interface TableName {
  readonly schema: string;
  readonly table: string;
}

/** Parses `table`, `schema.table` or `"Quoted"."Names"` (unquoted names are folded to lower case, as SQL does). */
export function parseTableName(text: string): TableName {
  const parts: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === '"') {
      let s = '';
      i++;
      while (i < text.length) {
        if (text[i] === '"' && text[i + 1] === '"') {
          s += '"';
          i += 2;
        } else if (text[i] === '"') {
          i++;
          break;
        } else s += text[i++];
      }
      parts.push(s);
    } else {
      const end = text.indexOf('.', i);
      parts.push(text.slice(i, end < 0 ? text.length : end).toLowerCase());
      i = end < 0 ? text.length : end;
    }
    if (text[i] === '.') i++;
  }
  if (parts.length === 1 && parts[0]) return { schema: 'public', table: parts[0] };
  if (parts.length === 2 && parts[0] && parts[1]) return { schema: parts[0], table: parts[1] };
  throw invalidArgument(`'${text}' is not a table name (expected 'table' or 'schema.table')`);
}

/** `"schema"."table"`. */
export function qualified(name: TableName): string {
  return `${quoteIdent(name.schema)}.${quoteIdent(name.table)}`;
}
