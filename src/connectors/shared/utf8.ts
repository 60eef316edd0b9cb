import { isUtf8 } from 'node:buffer';

/**
 * Decodes UTF-8 bytes, refusing invalid ones instead of replacing them with
 * U+FFFD: a silently altered key or value would be counted and grouped as a
 * different record. Validation is one vectorised pass (`isUtf8`), so decoding
 * costs about what `toString('utf8')` does. Throws an `Error` naming `what`
 * (e.g. `json: the value`), which sources treat as a bad record.
 */
export function decodeUtf8(bytes: Buffer, what: string): string {
  if (!isUtf8(bytes)) throw new Error(`${what} is not valid UTF-8`);
  return bytes.toString('utf8');
}
