/**
 * The package as `npm install` delivers it: `npm pack` of this repository
 * (its files, with the build the package tests share),
 * installed (from the npm cache where it can: --prefer-offline) into two
 * fresh projects, one ES module package and one CommonJS package as
 * `npm init -y` makes it. An ES module consumer and a CommonJS one (in a
 * CommonJS package inside the ES module project: one program checks both)
 * type-check with the TypeScript of this repository (5.x) and the newest
 * major npm offers, with no `skipLibCheck`; in each project a job module of
 * each extension runs with `npx weir run`;
 * and SIGTERM and SIGINT stop a job through `npx` and `npm exec` as they do
 * directly. Nothing here is skipped: without npm or the registry it fails.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtDist } from './built-package.js';

const exec = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
/** The newest TypeScript major on npm when this was written (`npm view typescript version`). */
const NEWEST_TYPESCRIPT = '7.0.2';
/**
 * Dependencies of @platformatic/kafka that declare Node >= 22.19 although the
 * Kafka client itself supports 20.19.4 and Weir's Kafka tests run on Node 20:
 * npm warns about them (EBADENGINE) on Node 20. docs/getting-started.md says so.
 */
const KNOWN_ENGINE_WARNINGS = ['@platformatic/dynamic-buffer', '@platformatic/wasm-utils'];

/** The environment without npm's own variables: the tests run under npm, the projects are new. */
const env: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')),
);

let work: string;
let esm: string;
let cjs: string;
let tarball: string;
const installOutput: Record<string, string> = {};
/** What `npm init -y` writes, in substance: no "type", so CommonJS. */
const CJS_PACKAGE = '{ "name": "cjs-consumer", "version": "1.0.0" }\n';

async function install(project: string, packages: readonly string[]): Promise<void> {
  const { stdout, stderr } = await exec(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=warn', ...packages],
    { cwd: project, env, maxBuffer: 16 << 20 },
  );
  installOutput[project] = stdout + stderr;
}

/**
 * This repository as `npm pack` sees it after its `prepare` (the build): the
 * manifest's `files` and the package.json and README that npm always packs,
 * with the dist/ the package tests share (./built-package.ts), so that
 * packing (with --ignore-scripts) needs no build of its own.
 */
async function stage(dir: string): Promise<string> {
  const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
    files: readonly string[];
  };
  await mkdir(dir);
  for (const file of ['package.json', 'README.md']) await cp(join(root, file), join(dir, file));
  for (const entry of manifest.files) {
    const from = entry === 'dist' ? await builtDist() : join(root, entry);
    await cp(from, join(dir, entry), { recursive: true });
  }
  return dir;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'weir-package-'));
  const packArgs = ['pack', '--json', '--ignore-scripts', '--pack-destination', work];
  const { stdout } = await exec('npm', packArgs, {
    cwd: await stage(join(work, 'stage')),
    env,
    maxBuffer: 16 << 20,
  });
  const packed = JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string }[];
  tarball = join(work, packed[0]!.filename);
  esm = join(work, 'esm');
  cjs = join(work, 'cjs');
  await mkdir(esm);
  await mkdir(cjs);
  await writeFile(join(esm, 'package.json'), '{ "name": "esm-consumer", "type": "module" }\n');
  await writeFile(join(cjs, 'package.json'), CJS_PACKAGE);
  await Promise.all([
    install(esm, [tarball, `typescript@${NEWEST_TYPESCRIPT}`]),
    install(cjs, [tarball]),
  ]);
}, 600_000);

afterAll(async () => {
  for (const child of running) if (child.pid !== undefined) killGroup(child.pid);
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  it('ships no source maps (it ships no sources for them to point to)', async () => {
    const dist = join(esm, 'node_modules/weir/dist');
    const files = await readdir(dist, { recursive: true });
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    const main = await readFile(join(dist, 'index.js'), 'utf8');
    expect(main).not.toContain('sourceMappingURL');
  });

  it('installs on this Node without engine warnings but the documented ones', async () => {
    const guide = await readFile(join(root, 'docs/getting-started.md'), 'utf8');
    for (const project of [esm, cjs]) {
      const output = installOutput[project]!;
      const warned = [...output.matchAll(/package: '(@?[^@']+)@/g)].map((m) => m[1]!);
      expect(warned.filter((p) => !KNOWN_ENGINE_WARNINGS.includes(p))).toEqual([]);
    }
    for (const name of KNOWN_ENGINE_WARNINGS) expect(guide).toContain(name);
  });
});

const ESM_CONSUMER = `
import { defineJob, PrintSink, StreamEnvironment, Time, WatermarkStrategy, Windows } from 'weir';
import { KafkaSink, KafkaSource, type KafkaConsumerRecord } from 'weir/kafka';
import { postgresCdc, PostgresTransactionalSink } from 'weir/postgres';
import { MetricRegistry, renderPrometheus } from 'weir/metrics';
import { startWebUi } from 'weir/ui';
import * as testing from 'weir/testing';
import * as nexmark from 'weir/nexmark';

interface Click { readonly user: string; readonly time: number }
const env = new StreamEnvironment({ parallelism: 2 });
env
  .fromArray<Click>([{ user: 'a', time: 1 }])
  .assignTimestampsAndWatermarks(
    WatermarkStrategy.forBoundedOutOfOrderness<Click>(5).withTimestampAssigner((c) => c.time),
  )
  .keyBy((c) => c.user)
  .window(Windows.tumbling(Time.seconds(1)))
  .reduce((_a, b) => b)
  .sinkTo(new PrintSink());
export const job = defineJob((e, ctx) => { e.fromArray(ctx.args).sinkTo(new PrintSink()); });
const text: string = renderPrometheus([new MetricRegistry()]);
const record: KafkaConsumerRecord | undefined = undefined;
// @ts-expect-error the engine's graph is not part of the published declarations.
void env.graph;
void [KafkaSink, KafkaSource, postgresCdc, PostgresTransactionalSink, startWebUi, testing, nexmark, text, record];
`;

/** The same from CommonJS: an \`import\` compiled to \`require\` (TypeScript >= 5.8), and \`import = require\`. */
const CJS_CONSUMER = `
import { defineJob, PrintSink, StreamEnvironment } from 'weir';
import { KafkaSource } from 'weir/kafka';
import weir = require('weir');
const env = new StreamEnvironment({ parallelism: 2 });
env.fromArray([1, 2]).map((n) => n * 2).sinkTo(new PrintSink());
export const job = defineJob((e) => { e.fromArray(['x']).sinkTo(new weir.PrintSink()); });
void KafkaSource;
`;

/** A fresh project's settings: TypeScript's defaults but for the module system, no skipLibCheck. */
const TSCONFIGS: Record<string, Record<string, unknown>> = {
  minimal: { module: 'nodenext', strict: true, noEmit: true },
  // What TypeScript >= 6 assumes, and what `tsc --init` writes: no global types unless listed.
  'no types': { module: 'nodenext', strict: true, noEmit: true, types: [] },
  strictest: {
    module: 'nodenext',
    target: 'esnext',
    strict: true,
    noEmit: true,
    types: [],
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    isolatedModules: true,
    moduleDetection: 'force',
  },
};

describe('type-checking a consumer with the published declarations', () => {
  // Each check takes seconds on a busy machine: the settings that tell something.
  const cases = [
    {
      compiler: 'TypeScript of this repository (5.x)',
      tsc: () => join(root, 'node_modules/typescript/bin/tsc'),
      config: 'no types',
    },
    // Its defaults list no `types`: `minimal` is `no types` there.
    ...['minimal', 'strictest'].map((config) => ({
      compiler: `TypeScript ${NEWEST_TYPESCRIPT}`,
      tsc: () => join(esm, 'node_modules/typescript/bin/tsc'),
      config,
    })),
  ];

  // The ES module and the CommonJS consumer in one program: the CommonJS one is
  // in a CommonJS package (a package.json as `npm init -y` writes it) inside
  // the ES module project, so both resolve the same installed declarations,
  // each with its own module system, and the (long) check of those
  // declarations is done once for both.
  it.each(cases)(
    'esm and cjs projects, $config tsconfig, $compiler',
    async ({ tsc, config }) => {
      const dir = join(esm, `check-${Math.random().toString(36).slice(2)}`);
      await mkdir(join(dir, 'cjs'), { recursive: true });
      await writeFile(join(dir, 'consumer.ts'), ESM_CONSUMER);
      await writeFile(join(dir, 'cjs', 'package.json'), CJS_PACKAGE);
      await writeFile(join(dir, 'cjs', 'consumer.ts'), CJS_CONSUMER);
      await writeFile(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: TSCONFIGS[config]!,
          files: ['consumer.ts', 'cjs/consumer.ts'],
        }),
      );
      const output = await exec(process.execPath, [tsc(), '-p', '.'], { cwd: dir, env }).then(
        (r) => r.stdout,
        (error: { stdout?: string }) => error.stdout ?? String(error),
      );
      expect(output.trim()).toBe('');
    },
    240_000,
  );
});

/** A job of each kind: prints 2, 4, 6, and fails if it was handed a second copy of Weir. */
const ESM_JOB = `import { defineJob, PrintSink } from 'weir';
export default defineJob(async (env) => {
  const self = await import('weir');
  if (self.PrintSink !== PrintSink) throw new Error('a second copy of weir');
  env.fromArray([1, 2, 3]).map((n) => n * 2).sinkTo(new PrintSink());
});
`;
const CJS_JOB = `const { defineJob, PrintSink } = require('weir');
module.exports = defineJob(async (env) => {
  const self = await import('weir');
  if (self.PrintSink !== PrintSink) throw new Error('a second copy of weir');
  env.fromArray([1, 2, 3]).map((n) => n * 2).sinkTo(new PrintSink());
});
`;

function jobSource(kind: 'esm' | 'cjs', extension: string): string {
  if (extension === '.cjs') return CJS_JOB;
  if (extension === '.js') return kind === 'esm' ? ESM_JOB : CJS_JOB;
  // TypeScript (tsx compiles .cts, and .ts in a CommonJS package, to CommonJS) and .mjs.
  return ESM_JOB;
}

describe('npx weir run, job modules of every extension', () => {
  const extensions = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'];
  const cases = (['esm', 'cjs'] as const).flatMap((kind) =>
    extensions.map((extension) => ({ kind, extension })),
  );
  it.each(cases)(
    '$kind project, job$extension',
    async ({ kind, extension }) => {
      const project = kind === 'esm' ? esm : cjs;
      const file = `job-${kind}${extension}`;
      await writeFile(join(project, file), jobSource(kind, extension));
      // Worker threads for the TypeScript ones: each worker loads the module itself.
      const workers = extension.endsWith('ts') ? '2' : '0';
      const { stdout, stderr } = await exec('npx', ['weir', 'run', file, '--workers', workers], {
        cwd: project,
        env,
      });
      expect(stdout.trim().split('\n').sort()).toEqual(['2', '4', '6']);
      expect(stderr).toMatch(/✓ job '.+' finished in .+ · 3 records read/);
    },
    120_000,
  );
});

/** A TypeScript scalar function a SQL script names with CREATE FUNCTION, and the script. */
const FUNCTIONS_TS = `import { defineScalarFunction } from 'weir';
export const twice = defineScalarFunction({
  arguments: ['INT'],
  result: 'INT',
  eval: (n: number | null) => (n === null ? null : n * 2),
});
`;
const FUNCTIONS_SQL = `CREATE TABLE nums (n INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3',
  'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '3');
CREATE TABLE out_t (n INT) WITH ('connector' = 'print');
CREATE TEMPORARY FUNCTION twice AS 'functions.ts#twice' LANGUAGE TYPESCRIPT;
INSERT INTO out_t SELECT twice(n) FROM nums;
`;

describe('npx weir sql, a TypeScript function module', () => {
  it.each(['esm', 'cjs'] as const)(
    '%s project, on worker threads',
    async (kind) => {
      const project = kind === 'esm' ? esm : cjs;
      await writeFile(join(project, 'functions.ts'), FUNCTIONS_TS);
      await writeFile(join(project, 'functions.sql'), FUNCTIONS_SQL);
      const { stdout } = await exec(
        'npx',
        ['weir', 'sql', '-f', 'functions.sql', '--workers', '2'],
        {
          cwd: project,
          env,
        },
      );
      expect(
        stdout
          .trim()
          .split('\n')
          .map((l) => l.replace(/^\d+> /, ''))
          .sort(),
      ).toEqual(['+I[2]', '+I[4]', '+I[6]']);
    },
    120_000,
  );
});

/** An endless job, stopped by the tests below. */
const ENDLESS_JOB = `import { defineJob, DiscardingSink } from 'weir';
export default defineJob((env) => {
  env.fromGenerator({ name: 'ticks', ratePerSecond: 200, generate: (i) => i }).sinkTo(new DiscardingSink());
});
`;

const running = new Set<ChildProcess>();

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}

interface Stopped {
  /** The exit code of the process the signal was sent to (npx, npm exec or weir). */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Weir's JSON log, complete: stderr is closed only when weir has exited. */
  readonly log: Record<string, unknown>[];
  readonly savepoints: string[];
}

/**
 * Starts `command` in a process group of its own (as a shell or a supervisor
 * would), waits until the job runs, sends `signal` to the first process only
 * (a supervisor) or to the whole group (Ctrl-C in a terminal), and waits
 * until weir has exited (its stderr closes).
 */
async function stopWith(
  command: readonly string[],
  signal: NodeJS.Signals,
  target: 'process' | 'group',
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<Stopped> {
  const savepointDir = join(esm, `sp-${Math.random().toString(36).slice(2)}`);
  const [cmd, ...args] = command;
  const child = spawn(
    cmd!,
    [
      ...args,
      'run',
      'endless.mjs',
      '--workers',
      '0',
      '--log-format',
      'json',
      '--savepoint-on-stop',
      savepointDir,
    ],
    { cwd: esm, env: { ...env, ...extraEnv }, detached: true, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  running.add(child);
  let stderr = '';
  const started = new Promise<void>((resolve, reject) => {
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      if (stderr.includes('"job_started"')) resolve();
    });
    child.stderr!.on('close', () => reject(new Error(`exited before the job started: ${stderr}`)));
  });
  const stderrClosed = new Promise<void>((resolve) => child.stderr!.on('close', resolve));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, sig) => resolve({ code, signal: sig })),
  );
  await started;
  if (target === 'group') process.kill(-child.pid!, signal);
  else child.kill(signal);
  const [{ code, signal: exitSignal }] = await Promise.all([exited, stderrClosed]);
  running.delete(child);
  const log = stderr
    .trim()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const savepoints = existsSync(savepointDir) ? await readdir(savepointDir) : [];
  return { code, signal: exitSignal, log, savepoints };
}

function expectStoppedWithSavepoint(stopped: Stopped, reason: string): void {
  const events = stopped.log.map((r) => r.event);
  expect(stopped.log.find((r) => r.event === 'job_stopping')).toMatchObject({ reason });
  expect(events).toContain('savepoint_completed');
  expect(events.at(-1)).toBe('job_cancelled');
  expect(stopped.savepoints.filter((s) => s.startsWith('savepoint-'))).toHaveLength(1);
}

// The stops mostly wait (for a job to start, for a savepoint): all at once.
describe.concurrent('signals through npx and npm exec', () => {
  beforeAll(() => writeFile(join(esm, 'endless.mjs'), ENDLESS_JOB));
  const weirBin = (): string => join(esm, 'node_modules/.bin/weir');
  // npm runs the command through `sh -c` (its script-shell); with bash, which
  // replaces itself with the command, npm's own forwarding reaches weir.
  const bash = { npm_config_script_shell: '/bin/bash' };

  it('directly: SIGTERM stops with a savepoint and exit status 0', async () => {
    const stopped = await stopWith([weirBin()], 'SIGTERM', 'process');
    expect({ code: stopped.code, signal: stopped.signal }).toEqual({ code: 0, signal: null });
    expectStoppedWithSavepoint(stopped, 'SIGTERM');
  }, 120_000);

  it('directly: Ctrl-C (SIGINT to the process group) stops with exit status 0', async () => {
    const stopped = await stopWith([weirBin()], 'SIGINT', 'group');
    expect({ code: stopped.code, signal: stopped.signal }).toEqual({ code: 0, signal: null });
    expectStoppedWithSavepoint(stopped, 'SIGINT');
  }, 120_000);

  it('npx with bash as script shell: SIGTERM to npx stops weir, npx exits 0', async () => {
    const stopped = await stopWith(['npx', 'weir'], 'SIGTERM', 'process', bash);
    expect({ code: stopped.code, signal: stopped.signal }).toEqual({ code: 0, signal: null });
    expectStoppedWithSavepoint(stopped, 'SIGTERM');
  }, 120_000);

  it('npm exec with bash as script shell: Ctrl-C stops weir once, npm exits 0', async () => {
    // npm passes on the SIGINT the group already got: weir sees two, takes them as one.
    const stopped = await stopWith(['npm', 'exec', '--', 'weir'], 'SIGINT', 'group', bash);
    expect({ code: stopped.code, signal: stopped.signal }).toEqual({ code: 0, signal: null });
    expectStoppedWithSavepoint(stopped, 'SIGINT');
    expect(stopped.log.map((r) => r.event)).not.toContain('forced_exit');
  }, 120_000);

  it('npx with the default sh: SIGTERM to npx still stops weir with a savepoint', async () => {
    // sh dies of the SIGTERM npm passes on without passing it further, and npm
    // then exits with it (143); weir sees its parent go and stops as for SIGTERM.
    const stopped = await stopWith(['npx', 'weir'], 'SIGTERM', 'process');
    expectStoppedWithSavepoint(stopped, 'the npm process that started weir exited');
  }, 120_000);

  it('npx with the default sh: Ctrl-C stops weir with a savepoint', async () => {
    const stopped = await stopWith(['npx', 'weir'], 'SIGINT', 'group');
    expectStoppedWithSavepoint(stopped, 'SIGINT');
  }, 120_000);
});
