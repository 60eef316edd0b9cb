/**
 * The bearer token that state-changing REST requests must carry. It is made
 * fresh when the server starts and kept in a file only the job's user can
 * read, so other local users (and other machines) cannot trigger savepoints.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, mkdir, open, readFile, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** A new random token: 32 bytes, base64url. */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Where the token of the REST API on `port` is kept unless a path is given:
 * `$XDG_RUNTIME_DIR/weir/rest-token-<port>`, else `~/.weir/rest-token-<port>`.
 * Both the server and `weir savepoint` derive it from the port alone.
 */
export function defaultTokenFile(port: number, env: NodeJS.ProcessEnv = process.env): string {
  const runtime = env.XDG_RUNTIME_DIR;
  const base =
    runtime !== undefined && runtime !== '' ? join(runtime, 'weir') : join(homedir(), '.weir');
  return join(base, `rest-token-${port}`);
}

/**
 * Writes `token` to `path` with mode 0600 (its directory 0700 if created
 * here). Modes are set explicitly: the umask must not widen or narrow them.
 */
export async function writeTokenFile(path: string, token: string): Promise<void> {
  const parent = dirname(path);
  const created = await mkdir(parent, { recursive: true, mode: 0o700 });
  if (created !== undefined) await chmod(parent, 0o700);
  // Replaced, not rewritten: an existing file may have had wider permissions.
  await rm(path, { force: true });
  const handle = await open(path, 'wx', 0o600);
  try {
    await handle.chmod(0o600);
    await handle.writeFile(`${token}\n`);
  } finally {
    await handle.close();
  }
}

/** The token in `path`, without surrounding whitespace. */
export async function readTokenFile(path: string): Promise<string> {
  return (await readFile(path, 'utf8')).trim();
}

/** Removes the token file; it is useless once its server is gone. */
export async function removeTokenFile(path: string): Promise<void> {
  await rm(path, { force: true });
}

/**
 * Whether the `Authorization` header carries `Bearer <token>`. Compared in
 * constant time (over digests, so lengths need not match) to give away
 * nothing about the token through timing.
 */
export function authorizes(header: string | undefined, token: string): boolean {
  if (header === undefined) return false;
  const match = /^Bearer +(\S+) *$/i.exec(header);
  if (match === null) return false;
  return timingSafeEqual(digest(match[1]!), digest(token));
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
