/**
 * Telling a TLS handshake that failed (an untrusted or mismatched
 * certificate, a refused client certificate, a bad key) from an outage:
 * waiting does not fix it, so connectors report it at once.
 */

import { createSecureContext } from 'node:tls';
import { WeirError } from '../../core/errors.js';

/** Node's codes of a peer certificate that does not verify. */
const CERTIFICATE_CODES = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Whether an error code is one of a failed TLS handshake (certificates, alerts, keys). */
export function isTlsFailureCode(code: string): boolean {
  return CERTIFICATE_CODES.has(code) || code.startsWith('ERR_SSL_') || code.startsWith('ERR_OSSL_');
}

/** The first error in `error`'s cause chain whose code says a TLS handshake failed. */
export function tlsFailureOf(error: unknown): (Error & { code: string }) | undefined {
  let e: unknown = error;
  for (let depth = 0; depth < 8 && e !== null && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && isTlsFailureCode(code)) return e as Error & { code: string };
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Checks that a client key (decrypted with its password, if any) and its
 * certificate can be used, when a connector opens: Node would otherwise
 * throw from inside the client library's connect. Names the options with
 * `prefix` (`tls.`, `ssl`), never the password.
 */
export function checkKeyPair(
  options: { cert?: unknown; key?: unknown; passphrase?: string | undefined },
  what: string,
  prefix: string,
): void {
  if (options.key === undefined) return;
  try {
    createSecureContext({
      cert: options.cert as string,
      key: options.key as string,
      ...(options.passphrase === undefined ? {} : { passphrase: options.passphrase }),
    });
  } catch (cause) {
    const code = String((cause as { code?: unknown }).code ?? '');
    // A wrong password usually fails the decryption's padding check (bad
    // decrypt), but about one time in 256 the garbage passes it and OpenSSL's
    // decoder then rejects the bytes as an unsupported key instead.
    const garbledByPassword =
      options.passphrase !== undefined &&
      /ENCRYPTED/.test(String(options.key)) &&
      (code === 'ERR_OSSL_UNSUPPORTED' || /DECODER routines|unsupported/i.test(String(cause)));
    const reason =
      code === 'ERR_OSSL_BAD_DECRYPT' ||
      garbledByPassword ||
      /bad decrypt|bad password/i.test(String(cause))
        ? `the key cannot be decrypted with ${prefix}${prefix === 'tls.' ? 'keyPassword' : 'Password'}`
        : /KEY_VALUES_MISMATCH|does not match/i.test(`${code} ${String(cause)}`)
          ? 'the key does not belong to the certificate'
          : `the certificate or key is unusable (${(cause as Error).message})`;
    throw new WeirError('INVALID_ARGUMENT', `${what}: ${reason} [${code || 'TLS'}]`, {
      domain: 'user',
    });
  }
}
