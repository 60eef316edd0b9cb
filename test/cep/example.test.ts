/**
 * The login fraud example runs with `weir run` on its generator, and on Kafka
 * (its logins written to a topic by the example itself, then read back), and
 * prints exactly the alerts a direct scan of the generated logins finds.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generateLogin, type Login } from '../../examples/login-fraud-data.js';
import { DeterministicRandom } from '../../src/util/random.js';
import { BROKERS, createTopic, uniqueTopic } from '../kafka/helpers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TEN_MINUTES = 600_000;

function weirRun(
  ...args: string[]
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'run', ...args], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19);

/**
 * Per user in time order: three failures in a row, then the first success
 * from a country other than the first failure's, within ten minutes; after
 * an alert the search resumes past its success (skip past last event).
 */
function expectedAlerts(count: number): string[] {
  const random = new DeterministicRandom();
  const byUser = new Map<string, { login: Login; i: number }[]>();
  for (let i = 0; i < count; i++) {
    const login = generateLogin(i, random.reseed(7, i));
    const list = byUser.get(login.user) ?? [];
    if (list.length === 0) byUser.set(login.user, list);
    list.push({ login, i });
  }
  const alerts: string[] = [];
  for (const list of byUser.values()) {
    const e = list.sort((a, b) => a.login.time - b.login.time || a.i - b.i).map((x) => x.login);
    let from = 0;
    for (let i = 0; i + 3 < e.length; i++) {
      if (i < from) continue;
      const fails = e.slice(i, i + 3);
      if (fails.some((f) => f.ok)) continue;
      let j = i + 3;
      while (j < e.length && !(e[j]!.ok && e[j]!.country !== fails[0]!.country)) j++;
      if (j === e.length || e[j]!.time - fails[0]!.time >= TEN_MINUTES) continue;
      const s = e[j]!;
      alerts.push(
        `ALERT ${s.user}: failed ${fails.map((f) => clock(f.time)).join(' ')} from ${fails[0]!.country}, then success ${clock(s.time)} from ${s.country}`,
      );
      from = j + 1;
    }
  }
  return alerts.sort();
}

describe('examples/login-fraud.ts', () => {
  // One subtask, so logins of one user at one millisecond arrive in the order generated
  // (with more, that order, and so which of them counts first, may vary between runs).
  it('prints the alerts a direct scan finds', async () => {
    const result = await weirRun('examples/login-fraud.ts', '-p', '1', '--', '40000');
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((l) => l.replace(/^\d+> /, ''))
      .sort();
    const expected = expectedAlerts(40_000);
    expect(expected.length).toBeGreaterThan(10);
    expect(lines).toEqual(expected);
    expect(result.stderr).toMatch(/✓ job 'login-fraud' finished .* 40,000 records read/);
  }, 120_000);

  // Three partitions: each has its own watermark and the job's is their minimum,
  // so the alerts are the generated run's. A user's logins share a partition (keyed by user).
  it('writes its logins to Kafka and finds the same alerts reading them back', async () => {
    const topic = uniqueTopic('logins');
    await createTopic(topic, 3);
    const kafka = ['--kafka', BROKERS[0]!, '--topic', topic];
    const written = await weirRun(
      'examples/login-fraud.ts',
      '-p',
      '1',
      '--',
      ...kafka,
      '--produce',
      '12000',
    );
    expect(written.code, written.stderr).toBe(0);
    const result = await weirRun('examples/login-fraud.ts', '-p', '2', '--', ...kafka, '--bounded');
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((l) => l.replace(/^\d+> /, ''))
      .sort();
    const expected = expectedAlerts(12_000);
    expect(expected.length).toBeGreaterThan(5);
    expect(lines).toEqual(expected);
    expect(result.stderr).toMatch(/✓ job 'login-fraud' finished .* 12,000 records read/);
  }, 120_000);
});
