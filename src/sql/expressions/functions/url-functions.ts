/**
 * PARSE_URL, URL_ENCODE, URL_DECODE and URL_DECODE_RECURSIVE with Java's conventions
 * (java.net.URL parts, `URLEncoder` / `URLDecoder` in UTF-8: a space is '+'). Text that is not
 * a URL, or an escape that does not decode, gives NULL as in Flink.
 */
import { T } from '../../types/logical-type.js';
import type { Compiled } from '../code-gen.js';
import {
  type FunctionCompiler,
  requireInteger,
  requireString,
  strictFunction,
} from './arguments.js';

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

/** Passes URL_DECODE_RECURSIVE makes at most (Flink's default depth). */
const MAX_DECODE_DEPTH = 10;

/**
 * URL_DECODE_RECURSIVE(s[, recursive | depth]): decodes until the text no longer changes, at
 * most `depth` times (once when `recursive` is FALSE). A first decoding that fails gives NULL;
 * a later one that fails leaves the last good text, as in Flink.
 */
export function urlDecodeRecursive(s: string, depth: boolean | number = true): string | null {
  const passes = depth === true ? MAX_DECODE_DEPTH : depth === false ? 1 : depth;
  let text = urlDecode(s);
  for (let i = 1; i < passes && text !== null; i++) {
    const next = urlDecode(text);
    if (next === null || next === text) break;
    text = next;
  }
  return text;
}

export const URL_FUNCTIONS: Readonly<Record<string, FunctionCompiler>> = {
  PARSE_URL: strictFunction('PARSE_URL', 2, 3, strings('PARSE_URL'), T.string(true), parseUrl),
  URL_ENCODE: strictFunction('URL_ENCODE', 1, 1, strings('URL_ENCODE'), T.string(true), urlEncode),
  URL_DECODE: strictFunction('URL_DECODE', 1, 1, strings('URL_DECODE'), T.string(true), urlDecode),
  URL_DECODE_RECURSIVE: strictFunction(
    'URL_DECODE_RECURSIVE',
    1,
    2,
    (c, i, at) => {
      if (i === 0) requireString('URL_DECODE_RECURSIVE', c, at);
      else if (c.type.kind !== 'BOOLEAN') requireInteger('URL_DECODE_RECURSIVE', c, at);
    },
    T.string(true),
    urlDecodeRecursive,
  ),
};
