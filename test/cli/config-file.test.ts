/**
 * `weir run --config`: settings from JSON, YAML and TypeScript files and from
 * WEIR_* variables, under the command line's flags; bad settings named by
 * their key or variable.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configJsonSchema } from '../../scripts/config-schema.js';
import { type Command, HELP_TEXT, parseCommandLine, type RunOptions } from '../../src/cli/args.js';
import { CONFIG_FLAG_KEYS } from '../../src/cli/config/config-schema.js';
import { UsageError } from '../../src/cli/failure.js';
import { ROOT, startBundledWeir } from './run-cli.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

let dir: string;
let n = 0;
/** A fresh directory holding `files`. */
async function project(files: Record<string, string>): Promise<string> {
  const at = join(dir, `p${++n}`);
  await mkdir(at, { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(at, name, '..'), { recursive: true });
    await writeFile(join(at, name), text);
  }
  return at;
}

function run(argv: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}): RunOptions {
  const command: Command = parseCommandLine(['run', ...argv], { cwd, env });
  if (command.kind !== 'run') throw new Error(`not a run: ${command.kind}`);
  return command.options;
}

function usageError(argv: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}): string {
  try {
    parseCommandLine(['run', ...argv], { cwd, env });
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('no usage error');
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weir-config-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('config files', () => {
  it('reads weir.config.json from the working directory, paths relative to the file', async () => {
    const at = await project({
      'weir.config.json': JSON.stringify({
        $schema: './node_modules/weir/weir.config.schema.json',
        module: 'jobs/orders.ts',
        args: ['--region', 'eu'],
        parallelism: 4,
        workers: 2,
        'checkpoint-dir': 'ckpt',
        'checkpoint-interval': 2.5,
        'checkpoint-timeout': 30,
        'checkpoint-min-pause': 0.5,
        'checkpoints-retained': 5,
        'restart-strategy': 'fixed-delay',
        'restart-attempts': 3,
        'restart-delay': 2,
        'state-backend': 'disk',
        'state-dir': '/var/lib/weir/state',
        ui: true,
        'ui-port': 19310,
        'keep-ui': true,
        'metrics-port': 19311,
        'log-format': 'json',
        'log-level': 'warn',
        'savepoint-dir': ['savepoints'],
      }),
    });
    expect(run([], at)).toMatchObject({
      module: join(at, 'jobs/orders.ts'),
      configFile: 'weir.config.json',
      jobArgs: ['--region', 'eu'],
      parallelism: 4,
      workers: 2,
      checkpointDir: join(at, 'ckpt'),
      checkpointIntervalMs: 2500,
      checkpointTimeoutMs: 30_000,
      checkpointMinPauseMs: 500,
      checkpointsRetained: 5,
      restartStrategy: { kind: 'fixed-delay', attempts: 3, delayMs: 2000 },
      stateBackend: 'disk',
      stateDir: '/var/lib/weir/state',
      uiPort: 19310,
      keepUi: true,
      metricsPort: 19311,
      logFormat: 'json',
      logLevel: 'warn',
      savepointDirs: [join(at, 'savepoints')],
    });
  });

  it('reads YAML given with --config, relative to the working directory', async () => {
    const at = await project({
      'conf/prod.yaml': [
        '# production settings',
        'module: ../job.ts',
        'name: orders',
        'restart-strategy: exponential-delay',
        'restart-delay: 1',
        'restart-max-delay: 30',
        'ui-host: 127.0.0.1',
        'ui-port: 0',
        'metrics-host: 0.0.0.0',
        'metrics-port: 9249',
        '',
      ].join('\n'),
    });
    expect(run(['--config', 'conf/prod.yaml'], at)).toMatchObject({
      module: join(at, 'job.ts'),
      name: 'orders',
      restartStrategy: { kind: 'exponential-delay', initialBackoffMs: 1000, maxBackoffMs: 30_000 },
      uiHost: '127.0.0.1',
      uiPort: 0,
      metricsHost: '0.0.0.0',
      metricsPort: 9249,
      configFile: 'conf/prod.yaml',
    });
  });

  it('evaluates a TypeScript config module: its default export', async () => {
    const at = await project({
      'weir.config.ts': [
        "const restart: 'failure-rate' = 'failure-rate';",
        'export default {',
        "  module: './job.ts',",
        '  parallelism: 2 * 3,',
        "  'restart-strategy': restart,",
        "  'restart-attempts': 2,",
        "  'restart-failure-interval': 120,",
        "  'checkpoint-dir': process.env.CKPT ?? 'ckpt',",
        '};',
        '',
      ].join('\n'),
    });
    expect(run([], at)).toMatchObject({
      module: join(at, 'job.ts'),
      parallelism: 6,
      restartStrategy: {
        kind: 'failure-rate',
        maxFailuresPerInterval: 2,
        failureIntervalMs: 120_000,
        delayMs: 1000,
      },
      checkpointDir: join(at, 'ckpt'),
      configFile: 'weir.config.ts',
    });
  }, 60_000);

  it('command-line flags win over WEIR_* variables, which win over the file', async () => {
    const at = await project({
      'weir.config.yml': [
        'module: job.ts',
        'parallelism: 2',
        'checkpoint-dir: from-file',
        'checkpoint-interval: 10',
        'log-format: json',
        'savepoint-dir: [a, b]',
        'ui: true',
      ].join('\n'),
    });
    const env = {
      WEIR_PARALLELISM: '3',
      WEIR_CHECKPOINT_INTERVAL: '20',
      WEIR_LOG_LEVEL: 'error',
      WEIR_UI: 'false',
      WEIR_CACHE: '/not/a/setting',
    };
    expect(run([], at, env)).toMatchObject({
      parallelism: 3,
      checkpointDir: join(at, 'from-file'),
      checkpointIntervalMs: 20_000,
      logFormat: 'json',
      logLevel: 'error',
      uiPort: undefined,
      savepointDirs: [join(at, 'a'), join(at, 'b')],
    });
    const flags = run(
      ['other.ts', '-p', '8', '--checkpoint-interval', '1', '--savepoint-dir', 'c', '--', 'x'],
      at,
      env,
    );
    expect(flags).toMatchObject({
      module: 'other.ts',
      parallelism: 8,
      checkpointIntervalMs: 1000,
      savepointDirs: ['c'],
      jobArgs: ['x'],
    });
    // Rules between options apply to the merged settings: the file's directory satisfies the flag.
    expect(run(['--checkpoint-timeout', '5'], at).checkpointTimeoutMs).toBe(5000);
    // WEIR_CONFIG names the file when --config does not.
    const other = await project({ 'x.json': JSON.stringify({ module: 'm.ts', 'batch-size': 64 }) });
    expect(run([], dir, { WEIR_CONFIG: join(other, 'x.json') })).toMatchObject({
      module: join(other, 'm.ts'),
      batchSize: 64,
    });
  });

  it('names every bad key of a file, and the variable of a bad environment value', async () => {
    const at = await project({
      'weir.config.json': JSON.stringify({
        module: 'job.ts',
        'checkpoint-interval': '5s',
        'restart-strategy': 'sometimes',
        'ui-port': 70000,
        parallelizm: 2,
        'savepoint-dir': ['ok', ''],
        workers: -1,
      }),
    });
    const message = usageError([], at);
    expect(message).toContain('invalid config file weir.config.json: ');
    expect(message).toContain('checkpoint-interval must be a number, got "5s"');
    expect(message).toContain(
      "restart-strategy must be one of 'none', 'fixed-delay', 'exponential-delay', 'failure-rate', got \"sometimes\"",
    );
    expect(message).toContain('ui-port must be a port number (0 to 65535), got 70000');
    expect(message).toContain('parallelizm is not a setting');
    expect(message).toContain('savepoint-dir.1 must not be empty, got ""');
    expect(message).toContain("workers must be 'auto' or a whole number, got -1");

    const good = await project({ 'weir.config.json': '{"module": "job.ts"}' });
    expect(usageError([], good, { WEIR_CHECKPOINT_INTERVAL: 'soon' })).toBe(
      'invalid environment: WEIR_CHECKPOINT_INTERVAL must be a number, got "soon"',
    );
    expect(usageError([], good, { WEIR_UI: 'maybe' })).toBe(
      'invalid environment: WEIR_UI must be true or false, got "maybe"',
    );
    // A rule between options names the flag, wherever the values came from.
    const orphan = await project({ 'weir.config.json': '{"module": "j.ts", "state-dir": "s"}' });
    expect(usageError([], orphan)).toBe('--state-dir needs --state-backend disk');
  });

  it('says what is wrong with a file that cannot be read', async () => {
    const yaml = await project({ 'weir.config.yaml': 'module: [unclosed\n' });
    expect(usageError([], yaml)).toMatch(/^config file weir\.config\.yaml is not valid: /);
    const json = await project({ 'weir.config.json': '{"module": ' });
    expect(usageError([], json)).toMatch(/^config file weir\.config\.json is not valid: /);
    const list = await project({ 'weir.config.json': '[1]' });
    expect(usageError([], list)).toBe(
      'invalid config file weir.config.json: must be an object of settings, got a list',
    );
    const ts = await project({ 'weir.config.ts': 'export const config = {};\n' });
    expect(usageError([], ts)).toBe(
      'cannot load config file weir.config.ts: it has no default export',
    );
    const two = await project({ 'weir.config.json': '{}', 'weir.config.yaml': '' });
    expect(usageError([], two)).toBe(
      `weir.config.json and weir.config.yaml are both in ${two}: keep one, or choose with --config`,
    );
    expect(usageError(['--config', 'nope.yaml'], dir)).toBe(
      `cannot find config file nope.yaml (looked for ${join(dir, 'nope.yaml')})`,
    );
    expect(usageError(['--config', 'x.toml'], await project({ 'x.toml': '' }))).toBe(
      "config file x.toml: unknown kind '.toml' (use .json, .yaml, .yml, .ts or .js)",
    );
    // No file and no module: the usage says where a module may come from.
    expect(usageError([], await project({}))).toBe(
      'missing the job module: weir run <job-module> (or module in a config file)',
    );
  }, 60_000);

  it('has a key for every run flag, and the published JSON Schema is generated from it', async () => {
    for (const key of CONFIG_FLAG_KEYS) expect(HELP_TEXT, key).toContain(`--${key}`);
    const published = JSON.parse(await readFile(join(ROOT, 'weir.config.schema.json'), 'utf8'));
    expect(published).toEqual(configJsonSchema());
    expect(Object.keys(published.properties)).toEqual(
      expect.arrayContaining(['module', 'args', ...CONFIG_FLAG_KEYS]),
    );
    expect(published.additionalProperties).toBe(false);
  });
});

describe('the run flags of a production run', () => {
  it('parse checkpoint tuning, state backend, log level and --keep-ui, with their rules', async () => {
    const none = await project({});
    expect(
      run(
        [
          'job.ts',
          '--checkpoint-dir',
          'c',
          '--checkpoint-timeout',
          '90',
          '--checkpoint-min-pause',
          '0',
          '--checkpoints-retained',
          '2',
          '--state-backend',
          'disk',
          '--state-dir',
          'state',
          '--log-level',
          'error',
          '--ui',
          '--keep-ui',
        ],
        none,
      ),
    ).toMatchObject({
      checkpointTimeoutMs: 90_000,
      checkpointMinPauseMs: 0,
      checkpointsRetained: 2,
      stateBackend: 'disk',
      stateDir: 'state',
      logLevel: 'error',
      uiPort: 8081,
      keepUi: true,
    });
    expect(run(['job.ts', '--state-backend', 'heap'], none).stateBackend).toBe('heap');
    expect(usageError(['job.ts', '--checkpoint-timeout', '5'], none)).toBe(
      '--checkpoint-timeout needs --checkpoint-dir',
    );
    expect(usageError(['job.ts', '--checkpoint-dir', 'c', '--checkpoint-timeout', '0'], none)).toBe(
      "--checkpoint-timeout must be a positive number of seconds, got '0'",
    );
    expect(
      usageError(['job.ts', '--checkpoint-dir', 'c', '--checkpoints-retained', '0'], none),
    ).toBe("--checkpoints-retained must be a positive whole number, got '0'");
    expect(usageError(['job.ts', '--state-backend', 'rocksdb'], none)).toBe(
      "--state-backend must be heap or disk, got 'rocksdb'",
    );
    expect(usageError(['job.ts', '--state-dir', 's'], none)).toBe(
      '--state-dir needs --state-backend disk',
    );
    expect(usageError(['job.ts', '--log-level', 'debug'], none)).toBe(
      "--log-level must be info, warn, error, got 'debug'",
    );
    expect(usageError(['job.ts', '--keep-ui'], none)).toBe('--keep-ui needs --ui or --ui-port');
  });
});

describe('weir run with a config file', () => {
  it('runs the job the file names, with its checkpoints, and a flag overriding it', async () => {
    const at0 = await project({});
    const at = await project({
      'weir.config.yaml': [
        `module: ${join(FIXTURES, 'running-counts.ts')}`,
        `args: [${join(at0, 'out')}, '1000000', '500']`,
        'checkpoint-dir: ckpt',
        'checkpoint-interval: 0.1',
        'checkpoints-retained: 1',
        'workers: 0',
        'log-format: json',
        'name: from-file',
      ].join('\n'),
    });
    const cli = startBundledWeir(['run', '--name', 'from-flag'], 90_000, { cwd: at });
    // Checkpoint 4 or later: older ones have been pruned by then.
    await cli.waitFor(
      'stderr',
      /"event":"checkpoint_completed".*"checkpoint":\{"id":(?:[4-9]|\d{2,})\b/,
    );
    cli.child.kill('SIGINT');
    const result = await cli.done;
    expect(result.code, result.stderr).toBe(0);
    const records = result.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records[0]).toMatchObject({ event: 'config_file', file: 'weir.config.yaml' });
    expect(records.find((r) => r.event === 'job_started')).toMatchObject({ job: 'from-flag' });
    expect(existsSync(join(at, 'ckpt'))).toBe(true);
    // checkpoints-retained: 1 keeps one completed checkpoint (heap state: no incremental base).
    const kept = (await readdir(join(at, 'ckpt'))).filter((f) => f.startsWith('chk-'));
    expect(kept).toHaveLength(1);
  }, 120_000);

  it('WEIR_LOG_LEVEL=warn leaves out the info records of the JSON log', async () => {
    const at = await project({
      'weir.config.json': JSON.stringify({
        module: join(FIXTURES, 'throwing-map.ts'),
        workers: 0,
        'log-format': 'json',
      }),
    });
    const result = await startBundledWeir(['run'], 90_000, {
      cwd: at,
      env: { WEIR_LOG_LEVEL: 'warn' },
    }).done;
    expect(result.code).toBe(1);
    const records = result.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { level: string; event: string });
    expect(records.map((r) => r.event)).toEqual(['job_failed']);
    expect(records[0]!.level).toBe('error');
  }, 120_000);

  it('keeps keyed state on disk in the state-dir the file names', async () => {
    const at0 = await project({});
    const at = await project({
      'weir.config.json': JSON.stringify({
        module: join(FIXTURES, 'running-counts.ts'),
        args: [join(at0, 'out'), '1000000', '500'],
        'checkpoint-dir': 'ckpt',
        'checkpoint-interval': 0.1,
        'state-backend': 'disk',
        'state-dir': 'state',
        workers: 0,
        'log-format': 'json',
      }),
    });
    const cli = startBundledWeir(['run'], 90_000, { cwd: at });
    await cli.waitFor('stderr', /"event":"checkpoint_completed"/);
    const stores = await readdir(join(at, 'state'));
    expect(stores.some((d) => d.startsWith('weir-state-'))).toBe(true);
    cli.child.kill('SIGINT');
    const result = await cli.done;
    expect(result.code, result.stderr).toBe(0);
  }, 120_000);
});
