/**
 * End-to-end tests of the `weir` command. They spawn the CLI from source
 * through tsx (`node --import tsx src/cli/main.ts`), so they need no build and
 * cannot run against a stale dist/. Output is piped, so the CLI uses its
 * plain (non-TTY) output. Tests run concurrently to keep the file fast.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = ['--import', 'tsx', 'src/cli/main.ts'];
/**
 * Kill a CLI that has not exited by then: a hanging process must fail the
 * test, not the run. Generous: on a machine shared with other work, starting
 * the CLI (the TypeScript loader, worker threads) alone can take many seconds.
 */
const HARD_TIMEOUT_MS = 200_000;

interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

interface RunningCli {
  readonly child: ChildProcess;
  readonly done: Promise<CliResult>;
  /** Resolves once the stream's output so far contains `text`. */
  waitFor(stream: 'stdout' | 'stderr', text: string): Promise<void>;
}

function startWeir(args: readonly string[]): RunningCli {
  const child = spawn(process.execPath, [...CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  const watchers: { stream: 'stdout' | 'stderr'; text: string; resolve: () => void }[] = [];
  const onData = (stream: 'stdout' | 'stderr') => (chunk: string) => {
    output[stream] += chunk;
    for (const w of watchers.filter((w) => output[w.stream].includes(w.text))) {
      watchers.splice(watchers.indexOf(w), 1);
      w.resolve();
    }
  };
  child.stdout!.setEncoding('utf8').on('data', onData('stdout'));
  child.stderr!.setEncoding('utf8').on('data', onData('stderr'));
  const done = new Promise<CliResult>((resolve, reject) => {
    const guard = setTimeout(() => {
      child.kill('SIGKILL');
      const { stdout, stderr } = output;
      reject(
        new Error(`weir ${args.join(' ')} did not exit\nstdout: ${stdout}\nstderr: ${stderr}`),
      );
    }, HARD_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal, ...output });
    });
  });
  return {
    child,
    done,
    waitFor: (stream, text) =>
      output[stream].includes(text)
        ? Promise.resolve()
        : new Promise<void>((resolve) => watchers.push({ stream, text, resolve })),
  };
}

const weir = (...args: string[]): Promise<CliResult> => startWeir(args).done;

const TIME_SPAN = String.raw`\d\d:\d\d:\d\d–\d\d:\d\d:\d\d`;

describe.concurrent('weir CLI', { timeout: 240_000 }, () => {
  it('prints its version and help', async ({ expect }) => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    const version = await weir('--version');
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toBe(pkg.version);
    const help = await weir('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('weir run [<job-module>]');
    expect(help.stdout).toContain('weir demo');
  });

  it('rejects bad usage with status 2 and a hint', async ({ expect }) => {
    const result = await weir('demo', '--rate', 'fast');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--rate must be a positive whole number, got 'fast'");
    expect(result.stderr).toContain("Run 'weir --help' for usage.");
  });

  it('runs the demo for a fixed duration, printing window results and a summary', async ({
    expect,
  }) => {
    // A rate a loaded machine keeps up with: the clicks' event time advances by count / rate, and
    // the first window closes after about 1.5 s of it (its end plus the 0.5 s watermark delay).
    const result = await weir('demo', '--duration', '4', '--window', '1', '--rate', '400');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Press Ctrl-C to stop');
    expect(result.stdout).toMatch(new RegExp(`window ${TIME_SPAN}: /home [\\d,]+ · `));
    expect(result.stdout).toMatch(/\d[\d,]* events\/s · watermark \d\d:\d\d:\d\d\.\d/);
    expect(result.stdout).toMatch(/Demo stopped after [\d.]+ s \(time limit reached\)\./);
    expect(result.stdout).toMatch(/events read +[\d,]+/);
    expect(result.stdout).toMatch(/sessions closed +\d+/);
  });

  it('stops a running demo cleanly on SIGINT', async ({ expect }) => {
    const cli = startWeir(['demo', '--duration', '60', '--window', '1', '--rate', '2000']);
    await cli.waitFor('stdout', 'Press Ctrl-C to stop');
    await new Promise((resolve) => setTimeout(resolve, 700));
    const signalledAt = performance.now();
    cli.child.kill('SIGINT');
    const result = await cli.done;
    expect(result.stderr).toBe('');
    expect({ code: result.code, signal: result.signal }).toEqual({ code: 0, signal: null });
    expect(result.stdout).toContain('stopping (SIGINT received)');
    expect(result.stdout).toMatch(/Demo stopped after [\d.]+ (ms|s) \(SIGINT received\)\./);
    // Promptly, not after the 60 s limit (generous: the machine may be busy).
    expect(performance.now() - signalledAt).toBeLessThan(20_000);
  });

  it('exits at once on a second SIGINT when cancelling hangs', async ({ expect }) => {
    const cli = startWeir(['run', 'test/cli/fixtures/hanging-close.ts']);
    await cli.waitFor('stdout', 'running');
    cli.child.kill('SIGINT');
    await cli.waitFor('stderr', "stopping 'hanging-close' (SIGINT); press Ctrl-C again to force");
    // A repeat within a second is the same Ctrl-C (npm passes on what its group got).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    cli.child.kill('SIGINT');
    const result = await cli.done;
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('weir: forced exit');
  });

  it('runs a bounded example job and prints its results', async ({ expect }) => {
    const result = await weir('run', 'examples/click-counts.ts');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    // 50 s of clicks in 10 s windows, five pages.
    expect(lines).toHaveLength(25);
    // One worker per core by default: at parallelism above 1 each line starts with its subtask.
    for (const line of lines)
      expect(line).toMatch(new RegExp(`^(\\d+> )?${TIME_SPAN} +/\\w+ +[\\d,]+$`));
    expect(result.stdout).toMatch(/^(\d+> )?12:00:00–12:00:10 {2}\/home +[\d,]+$/m);
    expect(result.stderr).toMatch(
      /✓ job 'click-counts' finished in .+ · 50,000 records read \([\d,]+\/s\)/,
    );
  });

  it('passes arguments after -- to the job', async ({ expect }) => {
    const result = await weir('run', 'examples/click-counts.ts', '--name', 'small', '--', '5000');
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(5);
    expect(result.stderr).toContain("job 'small' finished");
    expect(result.stderr).toContain('5,000 records read');
  });

  it('reports a failing job with its operator and record, without a stack', async ({ expect }) => {
    const result = await weir('run', 'test/cli/fixtures/throwing-map.ts');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("✗ job 'throwing-map' failed");
    expect(result.stderr).toContain(
      "map function in operator 'double' threw on record 3: three is not allowed",
    );
    expect(result.stderr).toContain('code:     USER_FUNCTION_FAILED');
    expect(result.stderr).toContain('operator: double');
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });

  it('prints the stack of a failure with --verbose', async ({ expect }) => {
    const result = await weir('run', '--verbose', 'test/cli/fixtures/throwing-map.ts');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^\s+at /m);
    expect(result.stderr).toContain('Caused by: Error: three is not allowed');
  });

  it('fails clearly when the job module does not exist', async ({ expect }) => {
    const result = await weir('run', 'missing.ts');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^weir: cannot find job module 'missing\.ts' \(looked for .*missing\.ts\)$/m,
    );
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });

  it('fails clearly when the module has no default export', async ({ expect }) => {
    const result = await weir('run', 'test/cli/fixtures/no-default-export.ts');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('must export a job as its default export');
  });
});
