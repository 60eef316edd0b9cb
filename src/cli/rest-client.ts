/**
 * A small client of the REST API that `weir run --ui` / `--metrics-port`
 * serves (docs/observability.md), for `weir jobs` and `weir savepoint`.
 * Every way of not getting an answer (nothing listening, a host that does
 * not resolve, something that is not Weir) becomes a CliError saying so.
 */
import type { JobSummary } from '../ui/index.js';
import { CliError } from './failure.js';

/** A JSON answer of the API, whatever its status. */
export interface ApiResponse {
  readonly status: number;
  readonly body: unknown;
}

export interface ApiRequest {
  readonly method: 'GET' | 'POST';
  /** Sent as JSON. */
  readonly body?: unknown;
  /** Give up after this long; no limit when omitted. */
  readonly timeoutMs?: number;
  /** The job's REST token, sent as `Authorization: Bearer`. */
  readonly token?: string;
}

/** How long `GET` requests may take: they are answered from memory. */
export const READ_TIMEOUT_MS = 10_000;

/** Where to point `--url`, for error messages. */
const WHERE =
  "point --url at a 'weir run' or 'weir demo' started with --ui or --metrics-port (default port of --ui: 8081)";

/** Sends one request to the API at `base` (e.g. `http://127.0.0.1:8081`) and reads its JSON answer. */
export async function requestApi(
  base: string,
  path: string,
  request: ApiRequest,
): Promise<ApiResponse> {
  const url = `${base}${path}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: request.method,
      headers: {
        accept: 'application/json',
        ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(request.token === undefined ? {} : { authorization: `Bearer ${request.token}` }),
      },
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      ...(request.timeoutMs === undefined
        ? {}
        : { signal: AbortSignal.timeout(request.timeoutMs) }),
    });
  } catch (error) {
    throw unreachable(base, error, request.timeoutMs);
  }
  const type = response.headers.get('content-type') ?? '';
  const text = await response.text().catch(() => '');
  let body: unknown;
  try {
    body = type.includes('json') ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (body === undefined) {
    throw new CliError(
      `${url} did not answer as Weir's REST API (HTTP ${response.status}${type === '' ? '' : `, ${type.split(';')[0]}`}); ${WHERE}. ` +
        'A metrics endpoint bound to another interface than loopback (--metrics-host) serves only /metrics.',
    );
  }
  return { status: response.status, body };
}

/** The `error` of an error answer (`{"error": "..."}`), or a description of the status. */
export function errorMessage(response: ApiResponse): string {
  const error: unknown =
    typeof response.body === 'object' && response.body !== null
      ? Reflect.get(response.body, 'error')
      : undefined;
  return typeof error === 'string' ? error : `HTTP ${response.status}`;
}

/** `GET /jobs`: the jobs of the process at `base`. */
export async function listJobs(base: string): Promise<JobSummary[]> {
  const response = await requestApi(base, '/jobs', { method: 'GET', timeoutMs: READ_TIMEOUT_MS });
  if (response.status !== 200) {
    throw new CliError(`${base} could not list its jobs: ${errorMessage(response)}`);
  }
  const jobs: unknown =
    typeof response.body === 'object' && response.body !== null
      ? Reflect.get(response.body, 'jobs')
      : undefined;
  if (!Array.isArray(jobs)) {
    throw new CliError(`${base}/jobs did not answer with a list of jobs; ${WHERE}`);
  }
  return jobs.filter(isJobSummary);
}

function isJobSummary(value: unknown): value is JobSummary {
  if (typeof value !== 'object' || value === null) return false;
  const field = (name: string): unknown => Reflect.get(value, name);
  return (
    typeof field('id') === 'string' &&
    typeof field('name') === 'string' &&
    typeof field('status') === 'string' &&
    typeof field('startTime') === 'number' &&
    typeof field('durationMs') === 'number'
  );
}

/** Why a request got no answer, for people. */
function unreachable(base: string, error: unknown, timeoutMs: number | undefined): CliError {
  if (error instanceof Error && error.name === 'TimeoutError') {
    return new CliError(`${base} did not answer within ${(timeoutMs ?? 0) / 1000} s`, {
      cause: error,
    });
  }
  const code = networkCode(error);
  switch (code) {
    case 'ECONNREFUSED':
      return new CliError(`nothing is listening on ${base}; ${WHERE}`, { cause: error });
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new CliError(`cannot resolve the host of ${base}`, { cause: error });
    default: {
      const reason = innermostMessage(error);
      return new CliError(
        `cannot reach ${base}: ${reason}${code === undefined || reason.includes(code) ? '' : ` (${code})`}`,
        { cause: error },
      );
    }
  }
}

/**
 * The system error code behind a failed fetch: undici wraps it as the
 * `cause` of a TypeError, sometimes in an AggregateError (one error per
 * address tried).
 */
function networkCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code: unknown = Reflect.get(current, 'code');
    if (typeof code === 'string' && !code.startsWith('UND_ERR_')) return code;
    const first: unknown = current instanceof AggregateError ? current.errors[0] : undefined;
    current = first ?? current.cause;
  }
  return undefined;
}

function innermostMessage(error: unknown): string {
  let current: unknown = error;
  let message = String(error);
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current.message !== '') message = current.message;
    current = current instanceof AggregateError ? current.errors[0] : current.cause;
  }
  return message;
}
