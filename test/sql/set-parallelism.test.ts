/**
 * `SET 'parallelism.default'` sets the job's default parallelism, as in Flink, where the table
 * config reconfigures the environment before the job is built: it wins over the parallelism
 * the environment was made with (`weir sql -p`), and `--workers auto` follows it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { startWeir } from '../cli/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'weir-sql-parallelism-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BODY = `
CREATE TABLE src (a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '40');
CREATE TABLE out (a INT) WITH ('connector' = 'print');
INSERT INTO out SELECT a FROM src;
`;

function script(name: string, text: string): string {
  const path = join(dir, `${name}.sql`);
  writeFileSync(path, text);
  return path;
}

/** Runs `weir sql -f` with a JSON log; returns its `job_started` record and its stdout. */
async function run(
  path: string,
  flags: readonly string[],
): Promise<{ started: { parallelism: number; workers: number }; stdout: string }> {
  const result = await startWeir(['sql', '-f', path, '--log-format', 'json', ...flags], 90_000)
    .done;
  expect(result.stderr).not.toMatch(/"level":"error"/);
  expect(result.code).toBe(0);
  const started = result.stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { event: string; parallelism: number; workers: number })
    .find((r) => r.event === 'job_started');
  if (started === undefined) throw new Error(`no job_started record:\n${result.stderr}`);
  return { started, stdout: result.stdout };
}

describe("SET 'parallelism.default' in weir sql -f", () => {
  it('runs the job at the parallelism the script sets', async () => {
    const { started, stdout } = await run(
      script('set-two', `SET 'parallelism.default' = '2';${BODY}`),
      [],
    );
    expect(started.parallelism).toBe(2);
    // Two print subtasks, each prefixing its rows.
    const rows = stdout.split('\n').filter((l) => l !== '');
    expect(rows).toHaveLength(40);
    expect(rows.every((l) => /^[12]> \+I\[/.test(l))).toBe(true);
  }, 120_000);

  it('wins over --parallelism, which applies when the script sets none', async () => {
    const set = script('set-two-flag', `SET 'parallelism.default' = '2';${BODY}`);
    expect((await run(set, ['-p', '3'])).started.parallelism).toBe(2);
    const unset = script('unset', BODY);
    expect((await run(unset, ['-p', '3'])).started.parallelism).toBe(3);
  }, 240_000);

  it('--workers auto starts no more workers than the parallelism the script sets', async () => {
    const { started } = await run(script('set-one', `SET 'parallelism.default' = '1';${BODY}`), [
      '--workers',
      'auto',
      '-p',
      '4',
    ]);
    expect(started.parallelism).toBe(1);
    expect(started.workers).toBe(1);
  }, 120_000);
});

describe("SET 'parallelism.default' on a table environment", () => {
  it("sets the environment's default parallelism", () => {
    const env = new StreamEnvironment({ parallelism: 1 });
    const tEnv = TableEnvironment.create(env);
    tEnv.buildScript(`SET 'parallelism.default' = '3';${BODY}`);
    expect(env.parallelism).toBe(3);
    expect(env.explain()).toMatch(/parallelism=3/);
  });

  it('refuses a value that is not a positive whole number, at its SET', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    for (const bad of ['0', '-1', '1.5', 'two', ''])
      expect(() => tEnv.buildScript(`SET 'parallelism.default' = '${bad}';`)).toThrow(
        `line 1, column 1: SET 'parallelism.default' needs a positive whole number, got '${bad}'`,
      );
  });

  it('refuses a value above the max parallelism', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment({ maxParallelism: 4 }));
    expect(() => tEnv.buildScript(`SET 'parallelism.default' = '5';`)).toThrow(
      "SET 'parallelism.default' = '5' exceeds the job's max parallelism (4)",
    );
  });

  it('refuses another value after an INSERT: the INSERTs run as one job', () => {
    const env = new StreamEnvironment({ parallelism: 2 });
    const tEnv = TableEnvironment.create(env);
    expect(() => tEnv.buildScript(`${BODY}\nSET 'parallelism.default' = '3';`)).toThrow(
      /line 6, column 1: SET 'parallelism.default' after an INSERT/,
    );
    // The same value again changes nothing, so it is accepted.
    const again = TableEnvironment.create(new StreamEnvironment({ parallelism: 2 }));
    again.buildScript(`${BODY}\nSET 'parallelism.default' = '2';`);
  });
});
