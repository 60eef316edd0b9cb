/**
 * Golden answers of Flink SQL for the relational Nexmark texts (joins, updating aggregations,
 * Top-N): their final rows are too many to keep, so a golden file keeps each query's row
 * count and the SHA-256 of its sorted rows. Regenerate (needs java and mvn) with
 *
 *   npx tsx bench/nexmark/flink-sql-golden.ts
 *
 * which runs the Flink peer at parallelism 1 and 2, requires the two to agree, and rewrites
 * test/sql/fixtures/flink-nexmark-golden.json; `--keep DIR` also leaves the full rows there.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NexmarkConfig } from '../../src/connectors/nexmark/index.js';
import { FlinkPeer } from './flink-peer.js';

/** The queries, and the events they run over (small, so the tests stay quick). */
export const GOLDEN_QUERIES = [
  'q3',
  'q4',
  'q5',
  'q7',
  'q8',
  'q9',
  'q13',
  'q14',
  'q15',
  'q16',
  'q17',
  'q18',
  'q19',
  'q20',
  'q21',
  'q22',
] as const;
export const GOLDEN_CONFIG: Partial<NexmarkConfig> = {
  maxEvents: 20_000,
  eventsPerSecond: 200,
  seed: 3,
};

export interface GoldenAnswer {
  readonly rows: number;
  readonly sha256: string;
}

/** The digest of a multiset of rows (JSON texts): their number and the hash of them sorted. */
export function multisetDigest(rows: readonly string[]): GoldenAnswer {
  const text = [...rows].sort().join('\n');
  return { rows: rows.length, sha256: createHash('sha256').update(text).digest('hex') };
}

export const GOLDEN_FILE = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'test',
  'sql',
  'fixtures',
  'flink-nexmark-golden.json',
);

async function main(): Promise<void> {
  const keepAt = process.argv.indexOf('--keep');
  const outDir =
    keepAt > 0 ? (process.argv[keepAt + 1] as string) : mkdtempSync(join(tmpdir(), 'weir-golden-'));
  const peer = await FlinkPeer.build({ timeoutMs: 10 * 60_000 });
  await peer.runJobs(
    [1, 2].map((parallelism) => ({
      query: GOLDEN_QUERIES.join('+'),
      mode: 'collect' as const,
      parallelism,
      out: join(outDir, `p${parallelism}`),
      config: GOLDEN_CONFIG,
    })),
    { timeoutMs: 20 * 60_000, jvmOptions: ['-Xmx1g'] },
  );
  const answers: Record<string, GoldenAnswer> = {};
  for (const query of GOLDEN_QUERIES) {
    const [p1, p2] = [1, 2].map((p) =>
      multisetDigest(
        readFileSync(join(outDir, `p${p}`, `${query}.jsonl`), 'utf8')
          .split('\n')
          .filter((line) => line !== ''),
      ),
    );
    if (p1?.sha256 !== p2?.sha256)
      throw new Error(`${query}: Flink's rows differ between parallelism 1 and 2`);
    answers[query] = p1 as GoldenAnswer;
  }
  const golden = { flink: '2.2.1', config: GOLDEN_CONFIG, answers };
  writeFileSync(GOLDEN_FILE, `${JSON.stringify(golden, null, 2)}\n`);
  if (keepAt < 0) rmSync(outDir, { recursive: true, force: true });
  console.log(`wrote ${GOLDEN_FILE}`);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  await main();
}
