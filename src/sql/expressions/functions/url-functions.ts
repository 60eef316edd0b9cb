/**
 * PARSE_URL, URL_ENCODE and URL_DECODE with Java's conventions (java.net.URL parts,
 * `URLEncoder` / `URLDecoder` in UTF-8: a space is '+'). Text that is not a URL, or an escape
 * that does not decode, gives NULL as in Flink.
 */
import { T } from '../../types/logical-type.js';
import type { Compiled } from '../code-gen.js';
import { type FunctionCompiler, requireString, strictFunction } from './arguments.js';

function strings(name: string) {
  return (c: Compiled, _i: number, at: Parameters<typeof requireString>[2]) =>
    requireString(name, c, at);
}

/** The value of `key` in a query string, as Flink finds it: `(&|^)key=([^&]*)`. */
function queryParameter(query: string, key: string): string | null {
  for (const pair of query.split('&')) {
    if (pair.startsWith(`${key}=`)) return pair.slice(key.length + 1);
  }
  return null;
}

export function parseUrl(text: string, part: string, key?: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  const query = url.search === '' ? null : url.search.slice(1);
  const userInfo =
    url.username === ''
      ? null
      : url.password === ''
        ? url.username
        : `${url.username}:${url.password}`;
  const hostPort = url.port === '' ? url.hostname : `${url.hostname}:${url.port}`;
  if (key !== undefined)
    return part === 'QUERY' && query !== null ? queryParameter(query, key) : null;
  switch (part) {
    case 'HOST':
      return url.hostname === '' ? null : url.hostname;
    case 'PATH':
      return url.pathname;
    case 'QUERY':
      return query;
    case 'REF':
      return url.hash === '' ? null : url.hash.slice(1);
    case 'PROTOCOL':
      return url.protocol.slice(0, -1);
    case 'FILE':
      return query === null ? url.pathname : `${url.pathname}?${query}`;
    case 'AUTHORITY':
      return userInfo === null ? hostPort : `${userInfo}@${hostPort}`;
    case 'USERINFO':
      return userInfo;
    default:
      return null;
  }
}

/** `URLEncoder.encode(s, UTF-8)`: letters, digits and `.-*_` stay, a space is '+'. */
export function urlEncode(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()~]/g, (c) => `%${(c.codePointAt(0) as number).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** `URLDecoder.decode(s, UTF-8)`: NULL for a broken escape. */
export function urlDecode(s: string): string | null {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

export const URL_FUNCTIONS: Readonly<Record<string, FunctionCompiler>> = {
  PARSE_URL: strictFunction('PARSE_URL', 2, 3, strings('PARSE_URL'), T.string(true), parseUrl),
  URL_ENCODE: strictFunction('URL_ENCODE', 1, 1, strings('URL_ENCODE'), T.string(true), urlEncode),
  URL_DECODE: strictFunction('URL_DECODE', 1, 1, strings('URL_DECODE'), T.string(true), urlDecode),
};
