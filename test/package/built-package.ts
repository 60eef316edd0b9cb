/**
 * The package's dist/, built as `npm run build` builds it (tsconfig.build.json,
 * then the web UI's static files), once for every state of its inputs: the
 * package tests share one build instead of compiling the sources each (the
 * compile is most of their start-up), also when they run at the same time in
 * two workers. It lives in .weir/package-build/<hash of the inputs>/, never
 * in the repository's own dist/. That dist/ is used as it is when `npm run
 * build` made it after the last change of any input (as `npm ci`'s `prepare`
 * does in CI, where building again cost a minute of a busy machine).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const builds = join(root, '.weir', 'package-build');
/** A build on a busy machine takes minutes; a waiter gives up after this. */
const WAIT_MS = 600_000;

/** Everything the build reads: the sources, the configs, the compiler's version. */
async function inputFiles(): Promise<string[]> {
  const files = (await readdir(join(root, 'src'), { recursive: true }))
    .map((f) => join('src', f))
    .sort();
  files.push('tsconfig.json', 'tsconfig.build.json', 'package.json');
  files.push('node_modules/typescript/package.json');
  return files;
}

/** A hash of the inputs' contents. */
async function inputsHash(): Promise<string> {
  const hash = createHash('sha256');
  for (const file of await inputFiles()) {
    const data = await readFile(join(root, file)).catch(() => undefined);
    // Directories (and files gone meanwhile) count by name alone.
    const digest = data === undefined ? '' : createHash('sha256').update(data).digest('hex');
    hash.update(`${file}\0${digest}\0`);
  }
  return hash.digest('hex').slice(0, 16);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function build(dir: string): Promise<void> {
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  const dist = join(dir, 'dist');
  await run(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', dist], {
    maxBuffer: 16 << 20,
  });
  await cp(join(root, 'src/ui/static'), join(dist, 'ui/static'), { recursive: true });
}

/**
 * The directory of the built dist/ for the sources as they are now: built by
 * the first caller, whom any other caller (in this process or another) waits
 * for; a build left half done by a dead process is started again.
 */
/** Files under `dir` (relative), with `suffix` and outside the UI's static files. */
async function modules(dir: string, suffix: RegExp): Promise<string[]> {
  const files = await readdir(dir, { recursive: true });
  return files
    .filter((f) => suffix.test(f) && !f.startsWith(join('ui', 'static')))
    .map((f) => f.replace(suffix, ''))
    .sort();
}

/**
 * Whether the repository's dist/ is `npm run build`'s output for the inputs as
 * they are: a module and its declarations for every source and no other
 * module, the static files, and no file older than the newest input.
 */
async function repositoryDistIsFresh(): Promise<boolean> {
  const dist = join(root, 'dist');
  if (!existsSync(dist)) return false;
  const src = join(root, 'src');
  const sources = await modules(src, /(?<!\.d)\.ts$/);
  if ((await modules(dist, /\.js$/)).join('\n') !== sources.join('\n')) return false;
  if ((await modules(dist, /\.d\.ts$/)).length < sources.length) return false;
  const statics = await readdir(join(src, 'ui/static'), { recursive: true });
  if (!statics.every((f) => existsSync(join(dist, 'ui/static', f)))) return false;
  let newestInput = 0;
  for (const file of await inputFiles()) {
    const info = await stat(join(root, file)).catch(() => undefined);
    if (info?.isFile()) newestInput = Math.max(newestInput, info.mtimeMs);
  }
  for (const file of await readdir(dist, { recursive: true })) {
    const info = await stat(join(dist, file));
    if (info.isFile() && info.mtimeMs < newestInput) return false;
  }
  return true;
}

export async function builtDist(): Promise<string> {
  if (await repositoryDistIsFresh()) return join(root, 'dist');
  const dir = join(builds, await inputsHash());
  const done = join(dir, '.complete');
  const lock = `${dir}.lock`;
  const deadline = Date.now() + WAIT_MS;
  await mkdir(builds, { recursive: true });
  while (!existsSync(done)) {
    try {
      await mkdir(lock);
    } catch {
      const pid = Number(await readFile(join(lock, 'pid'), 'utf8').catch(() => ''));
      // The builder died (or has not written its pid yet, pid 0: wait for it).
      if (pid > 0 && !alive(pid)) await rm(lock, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`no package build in ${dir} after waiting`);
      else await sleep(250);
      continue;
    }
    try {
      await writeFile(join(lock, 'pid'), String(process.pid));
      if (existsSync(done)) break;
      // Only one build is kept: older ones are of sources since changed.
      for (const old of await readdir(builds))
        if (!old.endsWith('.lock')) await rm(join(builds, old), { recursive: true, force: true });
      await build(dir);
      await writeFile(done, '');
    } finally {
      await rm(lock, { recursive: true, force: true });
    }
  }
  return join(dir, 'dist');
}
