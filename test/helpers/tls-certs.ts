/**
 * Certificates made at test time with openssl: a CA, a server certificate
 * for 127.0.0.1 and localhost, a client certificate, and a second CA that
 * signed neither (to test an untrusted server). Keys are unencrypted PKCS#8
 * PEM, which Kafka's PEM key stores and PostgreSQL both read.
 */
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface TestCertificates {
  readonly dir: string;
  /** The CA that signed the server and client certificates. */
  readonly caFile: string;
  /** A CA that signed neither. */
  readonly otherCaFile: string;
  readonly serverCertFile: string;
  readonly serverKeyFile: string;
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
}

async function openssl(dir: string, ...args: string[]): Promise<void> {
  await run('openssl', args, { cwd: dir });
}

async function makeCa(dir: string, name: string): Promise<void> {
  await openssl(
    dir,
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    `/CN=${name}`,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.pem`,
  );
}

async function makeSigned(dir: string, name: string, cn: string, ext: string): Promise<void> {
  await writeFile(join(dir, `${name}.ext`), ext);
  await openssl(
    dir,
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    `/CN=${cn}`,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
  );
  await openssl(
    dir,
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    `${name}.ext`,
    '-out',
    `${name}.pem`,
  );
}

/** Makes a fresh set of certificates in a new temporary directory. */
export async function makeTestCertificates(): Promise<TestCertificates> {
  const dir = await mkdtemp(join(tmpdir(), 'weir-certs-'));
  await Promise.all([makeCa(dir, 'ca'), makeCa(dir, 'other-ca')]);
  await makeSigned(
    dir,
    'server',
    'localhost',
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n',
  );
  await makeSigned(dir, 'client', 'weir-client', 'extendedKeyUsage=clientAuth\n');
  // Servers refuse keys others can read.
  await chmod(join(dir, 'server.key'), 0o600);
  await chmod(dir, 0o755);
  return {
    dir,
    caFile: join(dir, 'ca.pem'),
    otherCaFile: join(dir, 'other-ca.pem'),
    serverCertFile: join(dir, 'server.pem'),
    serverKeyFile: join(dir, 'server.key'),
    clientCertFile: join(dir, 'client.pem'),
    clientKeyFile: join(dir, 'client.key'),
  };
}

/** The client key encrypted with `password` (AES-256), in a new file beside it; returns its path. */
export async function encryptedClientKey(
  certs: TestCertificates,
  password: string,
): Promise<string> {
  const file = join(certs.dir, `client-encrypted-${Date.now().toString(36)}.key`);
  await openssl(
    certs.dir,
    'pkey',
    '-in',
    certs.clientKeyFile,
    '-aes256',
    '-passout',
    `pass:${password}`,
    '-out',
    file,
  );
  return file;
}
