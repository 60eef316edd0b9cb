/**
 * A wrong key password must always be reported as one, whichever way
 * OpenSSL happens to fail on the garbage it decrypts.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { checkKeyPair } from '../../../src/connectors/shared/tls.js';

function encryptedKey(password: string): string {
  return generateKeyPairSync('rsa', {
    modulusLength: 1024,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: {
      type: 'pkcs8',
      format: 'pem',
      cipher: 'aes-256-cbc',
      passphrase: password,
    },
  }).privateKey;
}

function rawFailure(key: string, passphrase: string): string {
  try {
    createSecureContext({ key, passphrase });
    return 'none';
  } catch (cause) {
    return String((cause as { code?: unknown }).code ?? cause);
  }
}

describe('checkKeyPair with a wrong password', () => {
  it('names the password both when decryption fails and when the decoder rejects the garbage', () => {
    const key = encryptedKey('right-pw');
    expect(() => checkKeyPair({ key, passphrase: 'right-pw' }, 'test', 'ssl')).not.toThrow();
    const seen = new Set<string>();
    // About one wrong password in 256 passes the padding check; 4,000 tries
    // find one with near certainty (the chance of none is below 1e-6).
    for (let i = 0; i < 4000 && seen.size < 2; i++) {
      const password = `wrong-${i}`;
      const failure = rawFailure(key, password);
      if (seen.has(failure)) continue;
      seen.add(failure);
      expect(() => checkKeyPair({ key, passphrase: password }, 'test', 'ssl'), failure).toThrow(
        'the key cannot be decrypted with sslPassword',
      );
    }
    expect(seen.size).toBe(2);
  });
});
