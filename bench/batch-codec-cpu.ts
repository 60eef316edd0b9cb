/**
 * The batch codec on one thread, warmed: nanoseconds per record to encode and
 * to decode batches of small all-number records keyed by one of their fields,
 * as a keyed exchange sends them between workers. Two shapes: the clicks of
 * the keyed window benchmark (`{ user, page, time }`, three int32 fields) and
 * `{ key, value, t }` (an int32 key, a float, an epoch-ms time).
 *
 *   tsc -p tsconfig.bench.json && node dist-bench/bench/batch-codec-cpu.js [--batch B] [--reps R]
 */
import { parseArgs } from 'node:util';
import type { RecordBatch } from '../src/core/record-batch.js';
import { decodeBatch, encodeBatch } from '../src/runtime/transport/index.js';

const { values: args } = parseArgs({
  options: {
    batch: { type: 'string', default: '1024' },
    reps: { type: 'string', default: '5' },
  },
});
const batchSize = Number(args.batch);
const reps = Number(args.reps);
const BATCHES_PER_RUN = 3000;

type Shape = 'clicks' | 'key-value-t';

function makeBatch(shape: Shape, seed: number): RecordBatch<unknown> {
  const values: unknown[] = [];
  const timestamps: number[] = [];
  const keys: unknown[] = [];
  for (let i = 0; i < batchSize; i++) {
    const user = (i * 7919 + seed) % 10_000;
    const time = 1_700_000_000_000 + seed * batchSize + i;
    values.push(
      shape === 'clicks'
        ? { user, page: i % 50, time: time % 100_000 }
        : { key: user, value: ((i * 31 + seed) % 1000) / 7, t: time },
    );
    timestamps.push(time);
    keys.push(user);
  }
  return { values, timestamps, keys };
}

function run(shape: Shape): { encode: number; decode: number } {
  const batches = Array.from({ length: 64 }, (_, s) => makeBatch(shape, s));
  let encodeNs = 0;
  let decodeNs = 0;
  let decoded = 0;
  for (let r = 0; r < BATCHES_PER_RUN; r++) {
    const batch = batches[r & 63] as RecordBatch<unknown>;
    const start = process.hrtime.bigint();
    const encoded = encodeBatch(batch);
    const middle = process.hrtime.bigint();
    decoded += decodeBatch(encoded).values.length;
    encodeNs += Number(middle - start);
    decodeNs += Number(process.hrtime.bigint() - middle);
  }
  if (decoded !== BATCHES_PER_RUN * batchSize) throw new Error('lost records');
  const records = BATCHES_PER_RUN * batchSize;
  return { encode: encodeNs / records, decode: decodeNs / records };
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

const rows: Record<string, { 'encode ns/record': string; 'decode ns/record': string }> = {};
for (const shape of ['clicks', 'key-value-t'] as const) {
  run(shape); // warm-up
  const encode: number[] = [];
  const decode: number[] = [];
  for (let r = 0; r < reps; r++) {
    const measured = run(shape);
    encode.push(measured.encode);
    decode.push(measured.decode);
  }
  rows[shape] = {
    'encode ns/record': median(encode).toFixed(1),
    'decode ns/record': median(decode).toFixed(1),
  };
}
console.log(`batches of ${batchSize}, keys taken from a field, median of ${reps} runs:`);
console.table(rows);
