/**
 * The Flink peer (bench/peers/flink): builds it with Maven when needed and runs its harness,
 * which executes the Nexmark queries in a local MiniCluster over the same events (a Java port
 * of Weir's generator), either as Flink SQL or as DataStream jobs written with the algorithms
 * of Weir's queries. See docs/nexmark.md.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NexmarkConfig } from '../../src/connectors/nexmark/index.js';
import { sideInputFile } from './side-input.js';

/** Which of Flink's APIs runs the queries: the Nexmark SQL texts, or DataStream jobs. */
export type FlinkApi = 'sql' | 'datastream';

/** One line of the harness's timing output. */
export interface FlinkJobReport {
  readonly query: string;
  readonly engine: 'flink';
  readonly api: FlinkApi;
  readonly events: number;
  /** Net job runtime (blackhole mode) or wall time including planning (collect mode). */
  readonly seconds: number;
  /** Wall time including planning, job submission and MiniCluster start. */
  readonly wallSeconds: number;
  /** CPU time of the JVM (all threads) from job submission to its end (collect mode: from the start). */
  readonly cpuSeconds: number;
  readonly eventsPerSec: number;
  /** Peak resident set of the JVM so far (VmHWM). */
  readonly peakRssMb: number;
  readonly parallelism: number;
  /** Result rows (collect mode), -1 when not counted. */
  readonly rows: number;
}

/** A job for the harness. */
export interface FlinkJob {
  /** A query name, `gen` (the generator alone), or in collect mode several joined by '+'. */
  readonly query: string;
  /** `collect`: final rows to `out/<query>.jsonl`; `blackhole`: timing only. */
  readonly mode: 'collect' | 'blackhole';
  readonly parallelism: number;
  /** Directory for collect mode. */
  readonly out?: string;
  /** Generator parameters (`maxEvents` = number of events). */
  readonly config: Partial<NexmarkConfig>;
  /** Sets `pipeline.object-reuse` (off by default, as in the reference setup). */
  readonly objectReuse?: boolean;
  /** Default `sql`. */
  readonly api?: FlinkApi;
}

/** Options of a harness run. */
export interface FlinkRunOptions {
  /** Kill the JVM after this long. */
  readonly timeoutMs: number;
  /** JVM options before the class path, e.g. `['-Xmx4g']`. */
  readonly jvmOptions?: readonly string[];
  /** Called with each report as its job finishes. */
  readonly onReport?: (report: FlinkJobReport) => void;
}

/** Lets Flink's serializers reach JDK internals on Java 17, as Flink's own scripts do. */
export const ADD_OPENS = [
  'java.base/java.lang',
  'java.base/java.lang.reflect',
  'java.base/java.io',
  'java.base/java.net',
  'java.base/java.nio',
  'java.base/sun.nio.ch',
  'java.base/java.text',
  'java.base/java.time',
  'java.base/java.util',
  'java.base/java.util.concurrent',
  'java.base/java.util.concurrent.atomic',
  'java.base/java.util.concurrent.locks',
].map((p) => `--add-opens=${p}=ALL-UNNAMED`);

/** The peer's Maven project directory, found upwards from this module (source or compiled). */
export function flinkPeerDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'bench', 'peers', 'flink');
    if (existsSync(join(candidate, 'pom.xml'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('bench/peers/flink/pom.xml not found above this module');
    dir = parent;
  }
}

function newestMtime(path: string): number {
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  let newest = s.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

function run(
  command: string,
  args: readonly string[],
  cwd: string,
  timeoutMs: number,
): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      command,
      args,
      { cwd, timeout: timeoutMs, maxBuffer: 64 << 20, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        if (error === null) resolvePromise(stdout);
        else
          reject(
            new Error(`${command} ${args.join(' ')} failed: ${error.message}\n${stdout}${stderr}`),
          );
      },
    );
  });
}

/** Generator options as the harness (NexmarkConfig.java) names them. */
function generatorOptions(config: Partial<NexmarkConfig>): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(config)) {
    if (value === undefined || value === null) continue;
    if (key === 'maxEvents') {
      if (Number.isFinite(value)) out.push(`events=${value}`);
    } else out.push(`${key}=${value}`);
  }
  return out;
}

/** The built peer: its class path, and how to run the harness. */
export class FlinkPeer {
  private constructor(
    readonly dir: string,
    readonly classpath: string,
  ) {}

  /**
   * Builds the peer with `mvn -q -B package` unless its build output is newer than its
   * sources (the first build downloads Flink into ~/.m2: a minute or more).
   */
  static async build(options: { readonly timeoutMs: number }): Promise<FlinkPeer> {
    const dir = flinkPeerDir();
    const classpathFile = join(dir, 'target', 'classpath.txt');
    const stale =
      !existsSync(classpathFile) ||
      statSync(classpathFile).mtimeMs <
        Math.max(newestMtime(join(dir, 'src')), newestMtime(join(dir, 'pom.xml')));
    if (stale) await run('mvn', ['-q', '-B', 'package'], dir, options.timeoutMs);
    const deps = readFileSync(classpathFile, 'utf8').trim();
    return new FlinkPeer(dir, `${join(dir, 'target', 'classes')}:${deps}`);
  }

  /**
   * The harness's command line, with a temporary directory of its own: Flink
   * unpacks its RPC system (a 21 MB flink-rpc-akka jar) and web uploads into
   * java.io.tmpdir on every start and leaves them there; `cleanUp` removes them.
   */
  private javaArgs(
    jvmOptions: readonly string[],
    args: readonly string[],
  ): { args: string[]; cleanUp: () => void } {
    const temp = mkdtempSync(join(tmpdir(), 'weir-flink-peer-'));
    return {
      args: [
        ...ADD_OPENS,
        `-Djava.io.tmpdir=${temp}`,
        ...jvmOptions,
        '-cp',
        this.classpath,
        'weir.nexmark.Harness',
        ...args,
      ],
      cleanUp: () => rmSync(temp, { recursive: true, force: true }),
    };
  }

  /** Writes events `0 .. maxEvents-1` of `config` as JSON lines (as `JSON.stringify` of Weir's events). */
  async dump(out: string, config: Partial<NexmarkConfig>, timeoutMs: number): Promise<void> {
    const java = this.javaArgs([], ['dump', resolve(out), ...generatorOptions(config)]);
    try {
      await run('java', java.args, this.dir, timeoutMs);
    } finally {
      java.cleanUp();
    }
  }

  /** Runs the jobs one after another in one JVM; resolves with their reports. */
  runJobs(jobs: readonly FlinkJob[], options: FlinkRunOptions): Promise<FlinkJobReport[]> {
    const args: string[] = ['run'];
    for (const job of jobs) {
      const spec = [
        `query=${job.query}`,
        `mode=${job.mode}`,
        `parallelism=${job.parallelism}`,
        ...(job.out === undefined ? [] : [`out=${resolve(job.out)}`]),
        ...(job.objectReuse === undefined ? [] : [`objectReuse=${job.objectReuse}`]),
        `engine=${job.api ?? 'sql'}`,
        `sideInput=${sideInputFile()}`,
        ...generatorOptions(job.config),
      ];
      args.push('--job', spec.join(','));
    }
    return new Promise((resolvePromise, reject) => {
      const java = this.javaArgs(options.jvmOptions ?? [], args);
      const child = spawn('java', java.args, {
        cwd: this.dir,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.on('exit', java.cleanUp);
      const reports: FlinkJobReport[] = [];
      let stdout = '';
      let stderr = '';
      const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        let nl = stdout.indexOf('\n');
        while (nl >= 0) {
          const line = stdout.slice(0, nl).trim();
          stdout = stdout.slice(nl + 1);
          if (line.startsWith('{')) {
            const report = JSON.parse(line) as FlinkJobReport;
            reports.push(report);
            options.onReport?.(report);
          }
          nl = stdout.indexOf('\n');
        }
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr = (stderr + chunk).slice(-20_000);
      });
      child.on('error', (e) => {
        clearTimeout(timer);
        java.cleanUp();
        reject(e);
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        if (code === 0 && reports.length === jobs.length) resolvePromise(reports);
        else {
          const why = signal === null ? `exit code ${code}` : `signal ${signal} (timeout?)`;
          reject(
            new Error(
              `Flink harness failed (${why}) after ${reports.length} of ${jobs.length} jobs:\n${stderr}`,
            ),
          );
        }
      });
    });
  }
}
