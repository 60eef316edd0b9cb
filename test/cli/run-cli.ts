/**
 * Spawns the `weir` CLI from source through tsx, for end-to-end tests: output
 * is piped (so the CLI takes its non-terminal paths) and can be awaited.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { bundledCli, removeBundledClis } from '../helpers/bundled-fixture.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = ['--import', 'tsx', 'src/cli/main.ts'];

export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunningCli {
  readonly child: ChildProcess;
  readonly done: Promise<CliResult>;
  /** The output so far. */
  output(stream: 'stdout' | 'stderr'): string;
  /** Resolves with the first match of `pattern` in the stream's output. */
  waitFor(stream: 'stdout' | 'stderr', pattern: RegExp): Promise<RegExpMatchArray>;
}

/** Where the CLI runs: another working directory, more environment variables. */
export interface StartOptions {
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string>>;
  /** A bundled CLI (test/helpers/bundled-fixture.ts) to run with plain `node` instead of the sources. */
  readonly cli?: string;
}

/** The CLI's sources by absolute path, for a working directory other than the repository. */
const CLI_ANYWHERE = [
  '--import',
  import.meta.resolve('tsx'),
  fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url)),
];

export function startWeir(
  args: readonly string[],
  hardTimeoutMs = 60_000,
  options: StartOptions = {},
): RunningCli {
  const cli =
    options.cli !== undefined ? [options.cli] : options.cwd === undefined ? CLI : CLI_ANYWHERE;
  const child = spawn(process.execPath, [...cli, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  const watchers: {
    stream: 'stdout' | 'stderr';
    pattern: RegExp;
    resolve: (m: RegExpMatchArray) => void;
  }[] = [];
  const onData = (stream: 'stdout' | 'stderr') => (chunk: string) => {
    output[stream] += chunk;
    for (const w of [...watchers]) {
      const match = output[w.stream].match(w.pattern);
      if (match === null) continue;
      watchers.splice(watchers.indexOf(w), 1);
      w.resolve(match);
    }
  };
  child.stdout!.setEncoding('utf8').on('data', onData('stdout'));
  child.stderr!.setEncoding('utf8').on('data', onData('stderr'));
  const done = new Promise<CliResult>((resolve, reject) => {
    const guard = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`weir ${args.join(' ')} did not exit\n${JSON.stringify(output)}`));
    }, hardTimeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal, ...output });
    });
  });
  return {
    child,
    done,
    output: (stream) => output[stream],
    waitFor: (stream, pattern) => {
      const match = output[stream].match(pattern);
      if (match !== null) return Promise.resolve(match);
      return new Promise((resolve, reject) => {
        watchers.push({ stream, pattern, resolve });
        done.then(
          (r) =>
            reject(
              new Error(`exited (${r.code}) before printing ${pattern}\n${r.stdout}\n${r.stderr}`),
            ),
          reject,
        );
      });
    },
  };
}

/**
 * {@link startWeir} on one bundle of the CLI and the job fixture in `args` (the first argument
 * naming a `.ts` file under test/; test/helpers/bundled-fixture.ts), for files that start the
 * CLI many times: that argument becomes the bundled job, and a command without one runs on the
 * bundle built last. The bundles are removed after the test file (the folders that start
 * processes load their modules afresh per file, so this hook is registered in each).
 */
export function startBundledWeir(
  args: readonly string[],
  hardTimeoutMs?: number,
  options: Omit<StartOptions, 'cli'> = {},
): RunningCli {
  const fixture = args.find((arg) => /^test\/.+\.ts$/.test(arg));
  if (fixture !== undefined) lastFixture = fixture;
  if (lastFixture === undefined) return startWeir(args, hardTimeoutMs, options);
  const { cli, job } = bundledCli(lastFixture);
  return startWeir(
    args.map((arg) => (arg === fixture ? job : arg)),
    hardTimeoutMs,
    { ...options, cli },
  );
}

let lastFixture: string | undefined;

afterAll(removeBundledClis);

/**
 * `weir sql` from the sources with `input` on stdin (a pipe: changes print as `+I[...]`
 * lines), its history in `historyFile`; resolves with its exit code and output.
 */
export function sqlClientOnPipe(
  input: string,
  historyFile: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'sql'], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', WEIR_SQL_HISTORY: historyFile },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  child.stdin?.end(input);
  return new Promise((resolve, reject) => {
    const guard = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the client did not exit\n${stdout}\n${stderr}`));
    }, 90_000);
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    });
  });
}
