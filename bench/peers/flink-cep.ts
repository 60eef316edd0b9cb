/**
 * Runs CEP cases (test/cep/flink/case.ts) on Flink CEP through the Maven peer
 * (bench/peers/flink, class weir.cep.CepPeer), built with Maven when its sources changed.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADD_OPENS, FlinkPeer } from '../nexmark/flink-peer.js';

/** What the peer prints for one case (see CepPeer.java). */
export type FlinkCaseOutput =
  | {
      readonly name: string;
      readonly matches: readonly string[];
      readonly timedOut: readonly string[];
      readonly late: readonly string[];
    }
  | { readonly name: string; readonly error: string };

/** Runs a Java main class of the peer with its own temporary directory; resolves with stdout. */
export async function runPeerMain(
  mainClass: string,
  args: readonly string[],
  options: { readonly timeoutMs: number; readonly jvmOptions?: readonly string[] },
): Promise<string> {
  const peer = await FlinkPeer.build({ timeoutMs: 10 * 60_000 });
  const temp = mkdtempSync(join(tmpdir(), 'weir-flink-cep-'));
  const javaArgs = [
    ...ADD_OPENS,
    `-Djava.io.tmpdir=${temp}`,
    // Cases are short runs: the C1 compiler alone and the serial collector halve their time.
    ...(options.jvmOptions ?? ['-Xmx512m', '-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC']),
    '-cp',
    peer.classpath,
    mainClass,
    ...args,
  ];
  try {
    return await new Promise<string>((resolve, reject) => {
      const child = spawn('java', javaArgs, { cwd: peer.dir, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
      child.stdout.setEncoding('utf8').on('data', (c: string) => {
        stdout += c;
      });
      child.stderr.setEncoding('utf8').on('data', (c: string) => {
        stderr = (stderr + c).slice(-20_000);
      });
      child.on('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        if (code === 0) resolve(stdout);
        else {
          const why = signal === null ? `exit code ${code}` : `signal ${signal} (timeout?)`;
          reject(new Error(`${mainClass} failed (${why}):\n${stderr}`));
        }
      });
    });
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

/** Runs the cases on Flink CEP; the outputs come in the order of the cases. */
export async function runCasesOnFlink(
  cases: readonly { readonly name: string }[],
  options: { readonly timeoutMs: number },
): Promise<FlinkCaseOutput[]> {
  const dir = mkdtempSync(join(tmpdir(), 'weir-cep-cases-'));
  try {
    const file = join(dir, 'cases.json');
    writeFileSync(file, JSON.stringify({ cases }));
    const stdout = await runPeerMain('weir.cep.CepPeer', [file], options);
    const outputs = stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as FlinkCaseOutput);
    if (outputs.length !== cases.length) {
      throw new Error(`Flink CEP peer answered ${outputs.length} of ${cases.length} cases`);
    }
    return outputs;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
