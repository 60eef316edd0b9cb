/**
 * One JSON request to a schema registry over node:http or node:https.
 *
 * Not the global `fetch`: on Node 20 it cannot take a private CA, a client
 * certificate or `rejectUnauthorized` without the separate `undici` package
 * (its `dispatcher` option), while node:https takes them directly.
 */
import http from 'node:http';
import https from 'node:https';

/** TLS settings of an `https:` registry URL (PEM text or bytes). */
export interface RegistryTlsOptions {
  /** Certificate authorities to trust instead of Node's default list. */
  readonly ca?: string | Buffer | undefined;
  /** Client certificate, for registries that ask for one (mutual TLS). */
  readonly cert?: string | Buffer | undefined;
  /** The client certificate's private key. */
  readonly key?: string | Buffer | undefined;
  /** Default true; false accepts any server certificate (never in production). */
  readonly rejectUnauthorized?: boolean | undefined;
}

export interface HttpTarget {
  readonly url: URL;
  readonly authorization: string | undefined;
  readonly tls: RegistryTlsOptions | undefined;
  readonly timeoutMs: number;
}

export interface HttpAnswer {
  readonly status: number;
  /** The parsed JSON body, or the text when it is not JSON. */
  readonly body: unknown;
}

/** The request never got an HTTP answer (refused, reset, timed out): worth retrying. */
export class RegistryUnreachable extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'RegistryUnreachable';
  }
}

const CONTENT_TYPE = 'application/vnd.schemaregistry.v1+json';

export function requestJson(
  target: HttpTarget,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<HttpAnswer> {
  const base = target.url;
  const url = new URL(base.pathname.replace(/\/$/, '') + path, base);
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body), 'utf8');
  const headers: Record<string, string> = {
    accept: `${CONTENT_TYPE}, application/json`,
  };
  if (payload !== undefined) {
    headers['content-type'] = CONTENT_TYPE;
    headers['content-length'] = String(payload.length);
  }
  if (target.authorization !== undefined) headers.authorization = target.authorization;
  const secure = url.protocol === 'https:';
  const options: https.RequestOptions = {
    method,
    headers,
    timeout: target.timeoutMs,
    ...(secure && target.tls !== undefined
      ? {
          ca: target.tls.ca,
          cert: target.tls.cert,
          key: target.tls.key,
          rejectUnauthorized: target.tls.rejectUnauthorized ?? true,
        }
      : {}),
  };
  return new Promise<HttpAnswer>((resolve, reject) => {
    const req = (secure ? https : http).request(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (e) => reject(new RegistryUnreachable(e.message, undefined)));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = text.length === 0 ? undefined : JSON.parse(text);
        } catch {
          // Not JSON (a proxy's error page): kept as text for the message.
        }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
    });
    req.on('timeout', () => {
      req.destroy(new RegistryUnreachable(`no answer within ${target.timeoutMs} ms`, 'ETIMEDOUT'));
    });
    req.on('error', (e: NodeJS.ErrnoException) => {
      reject(e instanceof RegistryUnreachable ? e : new RegistryUnreachable(e.message, e.code));
    });
    req.end(payload);
  });
}
