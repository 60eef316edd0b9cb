/**
 * Raw HTTP requests to the REST API, with the path sent exactly as given
 * (fetch would normalize it) and the Host header of the loopback address.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { JobClient } from '../../src/index.js';

export interface Answer {
  readonly status: number;
  readonly body: string;
}

export interface RawRequest {
  readonly method?: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** The CA to trust: the request goes over HTTPS. */
  readonly ca?: Buffer;
}

/** One request to the server at `base`. */
export function send(base: string, raw: RawRequest): Promise<Answer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const options = {
      host: hostname,
      port: Number(port),
      method: raw.method ?? 'GET',
      path: raw.path,
      headers: { Host: `127.0.0.1:${port}`, ...raw.headers },
      ...(raw.ca === undefined ? {} : { ca: raw.ca, servername: 'localhost' }),
    };
    const onResponse = (response: IncomingMessage): void => {
      const chunks: Buffer[] = [];
      response.on('data', (c: Buffer) => chunks.push(c));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
      );
      response.on('error', reject);
    };
    const request =
      raw.ca === undefined ? httpRequest(options, onResponse) : httpsRequest(options, onResponse);
    request.on('error', reject);
    request.end(raw.body);
  });
}

/** Resolves once `client` has left `created` (or after a minute): its API answers as for a running job. */
export async function untilStarted(client: JobClient): Promise<void> {
  const since = Date.now();
  while (client.monitor.status === 'created' && Date.now() - since < 60_000) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
