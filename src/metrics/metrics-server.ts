/**
 * A minimal HTTP endpoint for Prometheus to scrape: `GET /metrics` returns
 * the text exposition of the registries it is given. Built on node:http (one
 * route needs no framework), bound to the loopback interface by default.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { PROMETHEUS_CONTENT_TYPE, renderPrometheus } from './prometheus.js';
import type { MetricRegistry } from './registry.js';

/** How a job exposes its metrics (`EnvironmentOptions.metrics`). */
/** How long closing waits for requests in flight before dropping their connections. */
const CLOSE_GRACE_MS = 5_000;

export interface MetricsOptions {
  /** Serve Prometheus metrics on this port (0: any free port). Off when omitted. */
  readonly port?: number;
  /** Interface to bind. Default 127.0.0.1 (this machine only). */
  readonly host?: string;
  /**
   * Per-step timing of tasks, records in, watermarks and sink latency. On by
   * default (its cost is per batch, not per record); `false` leaves only the
   * counters the runtime always keeps.
   */
  readonly instrumentation?: boolean;
}

export const DEFAULT_METRICS_HOST = '127.0.0.1';

export interface HttpEndpoint {
  /** Base URL, e.g. `http://127.0.0.1:9249`. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Starts a server for `GET /metrics`; `registries` is read on every scrape. */
export async function startMetricsServer(
  options: { readonly port: number; readonly host?: string },
  registries: () => readonly MetricRegistry[],
): Promise<HttpEndpoint> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      reply(response, 405, 'text/plain; charset=utf-8', 'method not allowed\n');
    } else if (path === '/metrics') {
      serveMetrics(request, response, registries());
    } else if (path === '/') {
      reply(response, 200, 'text/plain; charset=utf-8', 'Weir metrics: GET /metrics\n');
    } else {
      reply(response, 404, 'text/plain; charset=utf-8', 'not found\n');
    }
  });
  return listen(server, options.port, options.host ?? DEFAULT_METRICS_HOST);
}

/** Answers a scrape with the exposition of `registries`. */
export function serveMetrics(
  request: IncomingMessage,
  response: ServerResponse,
  registries: readonly MetricRegistry[],
): void {
  let body: string;
  try {
    body = renderPrometheus(registries);
  } catch (error) {
    reply(response, 500, 'text/plain; charset=utf-8', `${String(error)}\n`);
    return;
  }
  reply(response, 200, PROMETHEUS_CONTENT_TYPE, request.method === 'HEAD' ? '' : body);
}

function reply(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
  response.end(body);
}

/**
 * Listens on host:port and resolves with the endpoint; rejects if the port is
 * taken. `scheme` is that of the endpoint's URL: `https` for a TLS server.
 */
export function listen(
  server: Server | HttpsServer,
  port: number,
  host: string,
  scheme: 'http' | 'https' = 'http',
): Promise<HttpEndpoint> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      // A scrape or a browser's keep-alive connection must not keep the process alive.
      server.unref();
      const address = server.address() as AddressInfo;
      const hostText = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve({
        url: `${scheme}://${hostText}:${address.port}`,
        port: address.port,
        close: () =>
          new Promise<void>((done) => {
            // Requests in flight (a stop or cancel that ends the job, and so
            // closes this server) still get their answer, within a grace period.
            const force = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
            server.close(() => {
              clearTimeout(force);
              done();
            });
            server.closeIdleConnections();
          }),
      });
    });
  });
}
