/**
 * Checkpoint storage: writing, pruning and reading back checkpoints in a
 * local directory and in an S3 prefix, with the same synthetic checkpoints.
 *
 *   AWS_ENDPOINT_URL_S3=http://127.0.0.1:58333 AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench \
 *     npx tsx bench/checkpoint-storage.ts [--s3 s3://weir-test/bench] [--files 16] [--file-kb 64] [--rounds 20]
 *
 * Each round writes one checkpoint of `files` state files of `file-kb` KB
 * (one operator at parallelism `files`), prunes to 3 retained, and every
 * fifth round reads the newest back (`findLatest`, which verifies every
 * checksum). The first S3 operation also loads the AWS SDK; that is timed
 * apart. Prints medians (and ranges) in ms per operation.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  checkpointStorageAt,
  type DirectoryCheckpointStorage,
} from '../src/runtime/checkpoint/checkpoint-storage.js';
import { syntheticCheckpoint } from './shared/synthetic-checkpoint.js';

const { values } = parseArgs({
  options: {
    s3: { type: 'string', default: `s3://weir-test/bench-${Date.now()}` },
    files: { type: 'string', default: '16' },
    'file-kb': { type: 'string', default: '64' },
    rounds: { type: 'string', default: '20' },
  },
});
const files = Number(values.files);
const fileKb = Number(values['file-kb']);
const rounds = Number(values.rounds);

interface Timings {
  write: number[];
  prune: number[];
  read: number[];
}

async function measure(storage: DirectoryCheckpointStorage): Promise<Timings> {
  const t: Timings = { write: [], prune: [], read: [] };
  for (let id = 1; id <= rounds; id++) {
    const data = syntheticCheckpoint(id, files, fileKb);
    let start = performance.now();
    await storage.write(data);
    t.write.push(performance.now() - start);
    start = performance.now();
    await storage.prune(3);
    t.prune.push(performance.now() - start);
    if (id % 5 === 0) {
      start = performance.now();
      const latest = await storage.findLatest();
      if (latest.intact?.checkpoint.checkpointId !== id) throw new Error('read back the wrong one');
      t.read.push(performance.now() - start);
    }
  }
  return t;
}

function summary(xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  const median = s[Math.floor(s.length / 2)]!;
  return `${median.toFixed(1)} (${s[0]!.toFixed(1)}-${s.at(-1)!.toFixed(1)})`;
}

const dir = mkdtempSync(join(tmpdir(), 'weir-bench-chk-'));
try {
  const local = await measure(checkpointStorageAt(join(dir, 'chk')));
  const s3Storage = checkpointStorageAt(values.s3);
  const loadStart = performance.now();
  await s3Storage.latest(); // loads the SDK, connects, lists an empty prefix
  const firstUse = performance.now() - loadStart;
  const s3 = await measure(s3Storage);
  console.log(
    `checkpoint: ${files} files of ${fileKb} KB (${((files * fileKb) / 1024).toFixed(1)} MB), ${rounds} rounds`,
  );
  console.log('operation | local | s3');
  for (const op of ['write', 'prune', 'read'] as const) {
    console.log(`${op} ms | ${summary(local[op])} | ${summary(s3[op])}`);
  }
  console.log(`first S3 use (SDK load + one LIST) ms | | ${firstUse.toFixed(1)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
