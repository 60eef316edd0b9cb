/**
 * The TLS settings of PostgreSQL connections, without a server: libpq's
 * meanings of `sslmode`, the URL and object forms, what pg is given.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConnectionOptions as TlsOptions } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { clientConfig } from '../../src/connectors/postgres/connection.js';
import { pgSsl, splitSsl, sslProblem } from '../../src/connectors/postgres/tls.js';

describe('PostgreSQL TLS settings', () => {
  it('takes the ssl parameters out of a URL and leaves the rest to pg', () => {
    const { rest, ssl } = splitSsl(
      'postgres://weir:p%40ss@db.example.com:5432/shop?sslmode=require&application_name=x&sslrootcert=system',
    );
    expect(rest).toBe('postgres://weir:p%40ss@db.example.com:5432/shop?application_name=x');
    expect(ssl).toEqual({
      mode: 'require',
      rootCert: 'system',
      cert: undefined,
      key: undefined,
      password: undefined,
    });
    expect(splitSsl('postgres://weir@db/shop').ssl).toBeUndefined();
  });

  it('gives libpq meanings to sslmode', () => {
    const settings = { rootCert: undefined, cert: undefined, key: undefined, password: undefined };
    expect(pgSsl({ ...settings, mode: 'disable' })).toBe(false);
    expect(pgSsl({ ...settings, mode: 'require' })).toEqual({ rejectUnauthorized: false });
    const full = pgSsl({ ...settings, mode: 'verify-full' });
    expect(full).toEqual({});
    expect(() => pgSsl({ ...settings, mode: 'verify-ca', rootCert: 'system' })).toThrow(
      /'verify-ca' needs sslrootcert/,
    );
    const dir = mkdtempSync(join(tmpdir(), 'weir-tls-settings-'));
    try {
      const ca = join(dir, 'ca.pem');
      writeFileSync(ca, 'CA');
      // verify-ca: the chain is checked, the host name is not.
      const verifyCa = pgSsl({ ...settings, mode: 'verify-ca', rootCert: ca }) as TlsOptions;
      expect(verifyCa.ca).toBe('CA');
      expect(verifyCa.rejectUnauthorized).toBeUndefined();
      expect(verifyCa.checkServerIdentity?.('db', {} as never)).toBeUndefined();
      // require with a root certificate behaves as verify-ca (libpq).
      const require = pgSsl({ ...settings, mode: 'require', rootCert: ca }) as TlsOptions;
      expect(require.rejectUnauthorized).toBeUndefined();
      expect(typeof require.checkServerIdentity).toBe('function');
      // Any other ssl setting without sslmode means verify-full.
      expect(pgSsl({ ...settings, mode: undefined, rootCert: ca })).toEqual({ ca: 'CA' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses modes pg cannot honour and half a client certificate', () => {
    expect(sslProblem('postgres://db/x?sslmode=prefer')).toMatch(/got 'prefer'/);
    expect(sslProblem({ host: 'db', sslCert: '/c.pem' } as never)).toMatch(/go together/);
    expect(sslProblem({ sslMode: 'verify-ca' })).toMatch(/needs sslrootcert/);
    expect(sslProblem({ sslMode: 'verify-ca', sslRootCert: 'system' })).toMatch(
      /needs sslrootcert/,
    );
    expect(sslProblem('postgres://db/x?sslmode=verify-full')).toBeUndefined();
  });

  it('passes pg an ssl setting and no ssl parameters', () => {
    const config = clientConfig({
      host: 'db.example.com',
      user: 'weir',
      password: 'secret',
      database: 'shop',
      sslMode: 'require',
    });
    expect(config.ssl).toEqual({ rejectUnauthorized: false });
    expect(config).not.toHaveProperty('sslMode');
    const fromUrl = clientConfig('postgres://weir@db/shop?sslmode=verify-full');
    expect(fromUrl.ssl).toEqual({});
    expect(fromUrl.connectionString).toBe('postgres://weir@db/shop');
    expect(clientConfig('postgres://weir@db/shop').ssl).toBeUndefined();
  });
});
