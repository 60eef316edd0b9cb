/**
 * The web UI and its REST API, served from this package on the loopback
 * interface (node:http; a handful of routes need no framework):
 *
 *   GET  /                         the UI (static files from ./static)
 *   GET  /jobs                     jobs known to this server
 *   GET  /jobs/:id                 summary and job graph
 *   GET  /jobs/:id/metrics         per-operator metrics with rates
 *   GET  /jobs/:id/checkpoints     checkpoint counts and history
 *   GET  /jobs/:id/exceptions      latest exceptions
 *   POST /jobs/:id/savepoints      {"directory": "..."} -> {"path": "..."}
 *   POST /jobs/:id/stop            {"directory": "..."} -> {"path": "..."}  (stop with a savepoint)
 *   POST /jobs/:id/cancel          {} -> {"status": "cancelled"}
 *   GET  /jobs/:id/state/:uid/:key the current state of a queryable operator for a key
 *   GET  /jobs/:id/group           the process group: tasks, members, rebalances
 *   GET  /metrics                  Prometheus text exposition of all jobs
 *
 * Reads are open on loopback. Every POST needs `Authorization: Bearer
 * <token>`, a JSON body and no foreign `Origin`; without a configured token
 * they are off. Savepoint directories must lie inside one of
 * `savepointDirs`. Any interface other than loopback needs TLS and a token.
 *
 * Documented in docs/observability.md.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { ProcessGroupMembership } from '../core/process-group.js';
import {
  DEFAULT_METRICS_HOST,
  type HttpEndpoint,
  listen,
  serveMetrics,
} from '../metrics/metrics-server.js';
import type { JobClient } from '../runtime/job/job-client.js';
import { HttpError } from './http-error.js';
import {
  jobCheckpoints,
  jobDetails,
  jobExceptions,
  jobMetrics,
  jobSummary,
  RateTracker,
  rateTotals,
} from './job-view.js';
import { isLoopback } from './loopback.js';
import { parseRequestTarget } from './request-target.js';
import { authorizes } from './rest-token.js';
import { confineSavepointTarget } from './savepoint-targets.js';
import { parseStateKey, readState } from './state-query-route.js';
import { forwardStateQuery, isForwarded, routeStateQuery } from './state-routing.js';

export interface WebUiOptions {
  /** Port to listen on; 0 picks a free one. Default 8081. */
  readonly port?: number;
  /** Interface to bind. Default 127.0.0.1. */
  readonly host?: string;
  /** How often rates are sampled (ms). Default 1000. */
  readonly sampleIntervalMs?: number;
  /**
   * The bearer token state-changing requests (savepoints) must carry; see
   * rest-token.ts. Without one they are refused: the API is read-only.
   */
  readonly token?: string;
  /**
   * Directories savepoints may be written into, or inside (absolute paths).
   * Empty or omitted: savepoints are off.
   */
  readonly savepointDirs?: readonly string[];
  /** Serve HTTPS with this certificate and key (PEM); required beyond loopback. */
  readonly tls?: TlsOptions;
}

/** A certificate chain and private key, PEM-encoded. */
export interface TlsOptions {
  readonly cert: string | Buffer;
  readonly key: string | Buffer;
}

/** What the request handler needs to know of the server's configuration. */
interface Policy {
  readonly loopbackOnly: boolean;
  readonly scheme: 'http' | 'https';
  readonly token: string | undefined;
  readonly savepointDirs: readonly string[];
}

export interface WebUi extends HttpEndpoint {
  /**
   * Shows `client` in the UI and the REST API; it stays listed after it
   * ends. With `group`, the job is this process's member of a process
   * group: its page shows the group, and state queries for tasks another
   * member holds are forwarded there.
   */
  addJob(client: JobClient, group?: ProcessGroupMembership): void;
  /** Stops showing a job (one a process group member has replaced with its next run). */
  removeJob(client: JobClient): void;
}

export const DEFAULT_UI_PORT = 8081;

/** The static assets the UI consists of, with their content types. */
const ASSETS: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'graph.js': 'text/javascript; charset=utf-8',
  'format.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
};

/** Where the assets are: next to this module, in src/ui/static or (after the build) dist/ui/static. */
const STATIC_DIR = new URL('./static/', import.meta.url);

interface TrackedJob {
  readonly client: JobClient;
  readonly rates: RateTracker;
  readonly group: ProcessGroupMembership | undefined;
}

/** Starts the web UI; add jobs to it with `addJob`. */
export async function startWebUi(options: WebUiOptions = {}): Promise<WebUi> {
  const jobs = new Map<string, TrackedJob>();
  const host = options.host ?? DEFAULT_METRICS_HOST;
  if (!isLoopback(host) && (options.tls === undefined || options.token === undefined)) {
    throw new Error(
      `the REST API may listen on '${host}' (beyond loopback) only with TLS and a token: give a certificate and key`,
    );
  }
  const policy: Policy = {
    loopbackOnly: isLoopback(host),
    scheme: options.tls === undefined ? 'http' : 'https',
    token: options.token,
    savepointDirs: options.savepointDirs ?? [],
  };
  const sampler = setInterval(() => {
    const now = Date.now();
    for (const job of jobs.values()) {
      if (job.client.monitor.status === 'running') job.rates.sample(rateTotals(job.client), now);
    }
  }, options.sampleIntervalMs ?? 1000);
  sampler.unref();

  const onRequest = (request: IncomingMessage, response: ServerResponse): void => {
    handle(request, response, jobs, policy).catch((error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500;
      const message = error instanceof Error ? error.message : String(error);
      sendJson(
        response,
        status,
        { error: message },
        error instanceof HttpError ? error.headers : {},
      );
    });
  };
  const server =
    options.tls === undefined
      ? createServer(onRequest)
      : createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, onRequest);
  const endpoint = await listen(server, options.port ?? DEFAULT_UI_PORT, host, policy.scheme);
  return {
    ...endpoint,
    close: async () => {
      clearInterval(sampler);
      await endpoint.close();
    },
    addJob(client: JobClient, group?: ProcessGroupMembership): void {
      const rates = new RateTracker();
      rates.sample(rateTotals(client), Date.now());
      jobs.set(client.jobId, { client, rates, group });
    },
    removeJob(client: JobClient): void {
      jobs.delete(client.jobId);
    },
  };
}

async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  jobs: ReadonlyMap<string, TrackedJob>,
  policy: Policy,
): Promise<void> {
  if (policy.loopbackOnly) checkHost(request);
  const { pathname, segments: parts, query } = parseRequestTarget(request.url);
  const method = request.method ?? 'GET';
  const isRead = method === 'GET' || method === 'HEAD';

  if (parts.length === 0) return serveAsset(response, 'index.html');
  if (parts[0] === 'static' && parts.length === 2 && isRead) {
    return serveAsset(response, parts[1]!);
  }
  if (parts[0] === 'favicon.ico' && isRead) return serveAsset(response, 'favicon.svg');
  if (parts[0] === 'metrics' && parts.length === 1 && isRead) {
    return serveMetrics(
      request,
      response,
      [...jobs.values()].map((j) => j.client.metrics),
    );
  }
  if (parts[0] !== 'jobs') throw new HttpError(404, `no such resource: ${pathname}`);
  if (parts.length === 1) {
    requireRead(isRead);
    return sendJson(response, 200, { jobs: [...jobs.values()].map((j) => jobSummary(j.client)) });
  }
  const job = jobs.get(parts[1]!);
  if (job === undefined) {
    // A member forwards to the run of the job its owner last published; a
    // member that restarts its job for a hand-over has a new run by then.
    if (parts[2] === 'state' && isForwarded(request))
      throw new HttpError(
        503,
        `run '${parts[1]}' of the job has ended here (a rebalance restarted it): retry`,
        { 'Retry-After': '1' },
      );
    throw new HttpError(404, `no job with id '${parts[1]}'`);
  }
  const { client } = job;
  if (parts[2] === 'state' && parts.length === 5) {
    requireRead(isRead);
    return answerStateQuery(request, response, job, parts[3]!, parts[4]!, query.get('keyType'));
  }
  const sub = parts.slice(2).join('/');
  switch (sub) {
    case '':
      requireRead(isRead);
      return sendJson(response, 200, jobDetails(client));
    case 'metrics':
      requireRead(isRead);
      return sendJson(response, 200, jobMetrics(client, job.rates));
    case 'checkpoints':
      requireRead(isRead);
      return sendJson(response, 200, jobCheckpoints(client));
    case 'exceptions':
      requireRead(isRead);
      return sendJson(response, 200, jobExceptions(client));
    case 'group':
      requireRead(isRead);
      if (job.group === undefined)
        throw new HttpError(404, `job '${client.jobName}' does not run in a process group`);
      return sendJson(response, 200, job.group.view());
    case 'savepoints': {
      const directory = await authorizedSavepointTarget(request, method, policy, 'a savepoint');
      requireRunning(client);
      const path = await conflictOnFailure(() => client.triggerSavepoint(directory));
      return sendJson(response, 200, { path });
    }
    case 'stop': {
      const directory = await authorizedSavepointTarget(
        request,
        method,
        policy,
        'a stop with a savepoint',
      );
      requireRunning(client);
      const path = await conflictOnFailure(() => client.stopWithSavepoint(directory));
      return sendJson(response, 200, { path });
    }
    case 'cancel': {
      authorizeChange(request, method, policy, 'to cancel the job');
      await readJsonBody(request);
      const status = client.monitor.status;
      if (status !== 'running' && status !== 'restarting' && status !== 'created') {
        throw new HttpError(409, `job is ${status}: there is nothing to cancel`);
      }
      const result = await conflictOnFailure(() => client.cancel());
      return sendJson(response, 200, { status: result.status });
    }
    default:
      throw new HttpError(404, `no such resource: ${pathname}`);
  }
}

/**
 * `GET /jobs/:id/state/:uid/:key`: answered here, or, in a process group,
 * by the member that owns the key (see state-routing.ts), whose answer is
 * passed on as it is.
 */
async function answerStateQuery(
  request: IncomingMessage,
  response: ServerResponse,
  job: TrackedJob,
  uid: string,
  keyText: string,
  keyType: string | null,
): Promise<void> {
  const key = parseStateKey(keyText, keyType);
  const route = routeStateQuery(job.group, uid, key, isForwarded(request));
  const self = job.group?.view().member;
  switch (route.kind) {
    case 'local':
      return sendJson(response, 200, {
        ...(await readState(job.client, uid, key)),
        ...(self === undefined ? {} : { member: self }),
      });
    case 'unowned':
      throw new HttpError(
        503,
        `no member of the group holds task '${route.task}' now (a rebalance is moving it)`,
        {
          'Retry-After': '1',
        },
      );
    case 'moved':
      throw new HttpError(
        503,
        `member '${route.member}' does not hold task '${route.task}' now (a rebalance is moving it): retry`,
        { 'Retry-After': '1' },
      );
    case 'no-address':
      throw new HttpError(
        502,
        `member '${route.owner.member}' holds the key but serves no REST API (start it with --ui-port or --metrics-port)`,
      );
    case 'forward': {
      let answer: Awaited<ReturnType<typeof forwardStateQuery>>;
      try {
        answer = await forwardStateQuery(route.owner, self ?? '', uid, keyText, keyType);
      } catch (error) {
        // It may be leaving or gone: its tasks move to another member soon.
        throw new HttpError(
          503,
          `member '${route.owner.member}' at ${route.owner.url}, which holds the key, did not answer: ${error instanceof Error ? error.message : String(error)}`,
          { 'Retry-After': '1' },
        );
      }
      response.writeHead(answer.status, {
        'Content-Type': 'application/json; charset=utf-8',
        'Cache-Control': 'no-store',
        ...(answer.retryAfter === null ? {} : { 'Retry-After': answer.retryAfter }),
      });
      response.end(answer.body);
      return;
    }
  }
}

/**
 * The checks every state-changing request passes, in this order: the right
 * method, the token, then same-origin JSON (so a web page cannot forge one).
 */
function authorizeChange(
  request: IncomingMessage,
  method: string,
  policy: Policy,
  what: string,
): void {
  if (method !== 'POST') throw new HttpError(405, `use POST ${what}`);
  checkToken(request, policy.token);
  checkOrigin(request, policy.scheme);
}

/** An authorized request's savepoint directory, confined to the allowed ones. */
async function authorizedSavepointTarget(
  request: IncomingMessage,
  method: string,
  policy: Policy,
  what: string,
): Promise<string> {
  authorizeChange(request, method, policy, `to trigger ${what}`);
  return confineSavepointTarget(
    savepointDirectory(await readJsonBody(request)),
    policy.savepointDirs,
  );
}

function requireRunning(client: JobClient): void {
  if (client.monitor.status !== 'running') {
    throw new HttpError(409, `job is ${client.monitor.status}, not running`);
  }
}

/** Runs a job action; its failure (the job ended meanwhile, a savepoint failed) is a 409. */
async function conflictOnFailure<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    throw new HttpError(409, error instanceof Error ? error.message : String(error));
  }
}

function requireRead(isRead: boolean): void {
  if (!isRead) throw new HttpError(405, 'method not allowed');
}

/**
 * Only requests addressed to this machine: a web page elsewhere could
 * otherwise reach the loopback server through a DNS name it controls.
 */
function checkHost(request: IncomingMessage): void {
  const hostHeader = request.headers.host ?? '';
  const hostname = hostHeader.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  if (!isLoopback(hostname)) {
    throw new HttpError(403, 'requests must be addressed to the loopback interface');
  }
}

/** State-changing requests carry the token; without a configured one they are off. */
function checkToken(request: IncomingMessage, token: string | undefined): void {
  if (token === undefined) {
    throw new HttpError(403, 'this server is read-only: it was started without a REST token');
  }
  if (!authorizes(request.headers.authorization, token)) {
    throw new HttpError(
      401,
      "send the REST token as 'Authorization: Bearer <token>' (weir savepoint reads it from the job's token file)",
      { 'WWW-Authenticate': 'Bearer' },
    );
  }
}

/** State-changing requests must come from this UI (or a non-browser client), as JSON. */
function checkOrigin(request: IncomingMessage, scheme: 'http' | 'https'): void {
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== `${scheme}://${request.headers.host ?? ''}`) {
    throw new HttpError(403, 'cross-origin requests are not allowed');
  }
  const type = request.headers['content-type'] ?? '';
  if (!type.startsWith('application/json')) {
    throw new HttpError(415, 'send the request body as application/json');
  }
}

async function readJsonBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > 64 * 1024) throw new HttpError(413, 'request body too large');
    chunks.push(buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, 'the request body is not valid JSON');
  }
}

function savepointDirectory(body: unknown): string {
  const directory: unknown =
    typeof body === 'object' && body !== null ? Reflect.get(body, 'directory') : undefined;
  if (typeof directory !== 'string' || directory.length === 0) {
    throw new HttpError(400, 'give the savepoint directory: {"directory": "/path/to/savepoints"}');
  }
  return directory;
}

async function serveAsset(response: ServerResponse, name: string): Promise<void> {
  const type = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  if (type === undefined) throw new HttpError(404, `no such asset: ${name}`);
  const body = await readFile(new URL(name, STATIC_DIR));
  response.writeHead(200, { 'Content-Type': type, 'Cache-Control': 'no-cache' });
  response.end(body);
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  response.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
  });
  response.end(JSON.stringify(body));
}
