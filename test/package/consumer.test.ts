/**
 * The package as a user gets it: built with tsconfig.build.json (the build
 * the package tests share, ./built-package.ts), laid out as
 * node_modules/weir in a fresh project (package.json and dist, as `files`
 * publishes them; dependencies linked from this repository, so no network),
 * and imported from a consumer module that the repository's `tsc` checks with
 * strict settings and without skipLibCheck, so the published declarations
 * themselves must type-check.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtDist } from './built-package.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const tsc = join(root, 'node_modules/typescript/bin/tsc');

interface Manifest {
  readonly exports: Readonly<Record<string, { readonly types: string; readonly default: string }>>;
  readonly dependencies: Readonly<Record<string, string>>;
}

let project: string;
let pkg: string;
let manifest: Manifest;

async function declarationFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.filter((f) => f.endsWith('.d.ts')).map((f) => join(dir, f));
}

async function link(name: string): Promise<void> {
  const target = join(project, 'node_modules', name);
  await mkdir(dirname(target), { recursive: true });
  await symlink(join(root, 'node_modules', name), target, 'dir');
}

/**
 * The errors of a tsc run, in any declarations: Weir's stay clear of those of
 * the Kafka client, which do not type-check (it names `debug` types without
 * depending on @types/debug).
 */
function errors(output: string): string[] {
  return output.split(/\n(?=\S)/).filter((e) => /\(\d+,\d+\): error /.test(e));
}

beforeAll(async () => {
  manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as Manifest;
  project = await mkdtemp(join(tmpdir(), 'weir-consumer-'));
  pkg = join(project, 'node_modules/weir');
  await cp(await builtDist(), join(pkg, 'dist'), { recursive: true });
  await cp(join(root, 'package.json'), join(pkg, 'package.json'));
  // What `npm install weir` brings along (Node's types included).
  for (const name of Object.keys(manifest.dependencies)) await link(name);
  await writeFile(join(project, 'package.json'), '{ "type": "module", "private": true }\n');
}, 600_000);

afterAll(async () => {
  if (project) await rm(project, { recursive: true, force: true });
});

describe('published package', () => {
  it('has the files every subpath export points to', () => {
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      expect(existsSync(join(pkg, target.types)), `${subpath} types`).toBe(true);
      expect(existsSync(join(pkg, target.default)), `${subpath} default`).toBe(true);
    }
  });

  it('ships no @internal member in its declarations', async () => {
    // `weir` exports StreamEnvironment as a constructor typed by the public
    // interface; the class behind it, with the graph, is not reachable.
    const environment = await readFile(join(pkg, 'dist/api/stream-environment.d.ts'), 'utf8');
    expect(environment).toMatch(/const StreamEnvironment: StreamEnvironmentConstructor;/);
    const interfaces = await readFile(join(pkg, 'dist/api/streams.d.ts'), 'utf8');
    expect(interfaces).toMatch(/interface StreamEnvironmentApi/);
    expect(interfaces).not.toMatch(
      /^\s*(readonly )?(graph|changelogs|streams|builder|refs|plan|setJobModule)\b/m,
    );
    for (const file of await declarationFiles(join(pkg, 'dist'))) {
      expect(await readFile(file, 'utf8'), file).not.toContain('@internal');
    }
  });

  it('type-checks a consumer of every entry point under strict settings', async () => {
    // Subpaths other parts of the package may add; checked when present.
    const optional = ['weir/testing', 'weir/nexmark'].filter((s) =>
      Object.hasOwn(manifest.exports, `./${s.slice('weir/'.length)}`),
    );
    const consumer = [
      "import { PrintSink, StreamEnvironment, Time, WatermarkStrategy, Windows } from 'weir';",
      "import * as weir from 'weir';",
      "import { KafkaSource } from 'weir/kafka';",
      "import { postgresCdc } from 'weir/postgres';",
      "import { MetricRegistry, OPERATOR_METRICS, renderPrometheus, type JobMonitor } from 'weir/metrics';",
      "import { DEFAULT_UI_PORT, startWebUi, type JobSummary } from 'weir/ui';",
      ...optional.map((s, i) => `import * as optional${i} from '${s}';`),
      '',
      'const env = new StreamEnvironment({ parallelism: 2 });',
      'env',
      '  .fromArray([{ user: "a", time: 1 }])',
      '  .assignTimestampsAndWatermarks(',
      '    WatermarkStrategy.forBoundedOutOfOrderness<{ user: string; time: number }>(5).withTimestampAssigner((c) => c.time),',
      '  )',
      '  .keyBy((c) => c.user)',
      '  .window(Windows.tumbling(Time.seconds(1)))',
      '  .reduce((a, b) => b)',
      '  .sinkTo(new PrintSink());',
      '// @ts-expect-error `graph` is internal: not in the published declarations.',
      'void env.graph;',
      '// @ts-expect-error monitoring is weir/metrics, not weir.',
      'void weir.MetricRegistry;',
      '// @ts-expect-error the web UI is weir/ui, not weir.',
      'void weir.startWebUi;',
      'const monitor: JobMonitor | undefined = undefined;',
      'const summary: JobSummary | undefined = undefined;',
      'const text: string = renderPrometheus([new MetricRegistry()]);',
      'const port: number = DEFAULT_UI_PORT;',
      'void [KafkaSource, postgresCdc, OPERATOR_METRICS, startWebUi, monitor, summary, text, port];',
      ...optional.map((_, i) => `void optional${i};`),
      '',
    ].join('\n');
    await writeFile(join(project, 'consumer.ts'), consumer);
    const options = {
      strict: true,
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      types: ['node'],
      noEmit: true,
    };
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: options, files: ['consumer.ts'] }),
    );
    // Run from the project, so paths in the output are relative to it.
    const output = await run(process.execPath, [tsc, '-p', '.'], { cwd: project }).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    expect(errors(output)).toEqual([]);
    // The whole program, Node's types included, without skipLibCheck: minutes on a loaded machine.
  }, 300_000);
});
