/**
 * Runs one of the Flink peer's SQL runners (`weir.sql.RowsQueryRunner`,
 * `weir.sql.DifferentialRunner`) on a JSON input in a JVM of its own, and returns what it wrote.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADD_OPENS, FlinkPeer } from '../../bench/nexmark/flink-peer.js';

export async function runFlinkSqlRunner(
  mainClass: string,
  input: unknown,
  timeoutMs: number,
): Promise<string> {
  const peer = await FlinkPeer.build({ timeoutMs });
  const dir = mkdtempSync(join(tmpdir(), 'weir-flink-sql-'));
  try {
    const inputFile = join(dir, 'input.json');
    const outputFile = join(dir, 'out.jsonl');
    writeFileSync(inputFile, JSON.stringify(input));
    await new Promise<void>((resolve, reject) => {
      execFile(
        'java',
        [
          ...ADD_OPENS,
          `-Djava.io.tmpdir=${dir}`,
          '-Xmx1g',
          // Short runs: the C1 compiler alone and the serial collector take less time.
          '-XX:TieredStopAtLevel=1',
          '-XX:+UseSerialGC',
          '-cp',
          peer.classpath,
          mainClass,
          inputFile,
          outputFile,
        ],
        { cwd: peer.dir, timeout: timeoutMs, maxBuffer: 64 << 20, killSignal: 'SIGKILL' },
        (error, _stdout, stderr) =>
          error === null ? resolve() : reject(new Error(`${error.message}\n${stderr}`)),
      );
    });
    return readFileSync(outputFile, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
