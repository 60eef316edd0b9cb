import { HttpError } from './http-error.js';

/** The path of a request, split into decoded segments. */
export interface RequestTarget {
  /** The path as sent (still percent-encoded), for messages. */
  readonly pathname: string;
  /** Non-empty segments of the path, each percent-decoded. */
  readonly segments: readonly string[];
  /** The query string's parameters. */
  readonly query: URLSearchParams;
}

/**
 * Parses the request target (`/jobs/abc?x=1`) of an HTTP request. Anything
 * malformed, such as a broken percent escape or an absolute URL, is the
 * caller's mistake and becomes a 400, never an exception of the server.
 */
export function parseRequestTarget(raw: string | undefined): RequestTarget {
  const target = raw ?? '/';
  // Origin form only: '//host/...' or 'http://...' must not name another host.
  if (!target.startsWith('/') || target.startsWith('//')) {
    throw new HttpError(400, 'the request target must be a path starting with a single /');
  }
  let url: URL;
  try {
    url = new URL(target, 'http://localhost');
  } catch {
    throw new HttpError(400, 'the request target is not a valid path');
  }
  const segments: string[] = [];
  for (const part of url.pathname.split('/')) {
    if (part.length === 0) continue;
    try {
      segments.push(decodeURIComponent(part));
    } catch {
      throw new HttpError(400, 'the request path has a malformed percent escape');
    }
  }
  return { pathname: url.pathname, segments, query: url.searchParams };
}
