/**
 * Moving record batches to another thread: the columnar batch codec (encode,
 * transfer the column buffers, decode) against structured cloning the batch
 * as it is, and against one `v8.serialize` buffer per batch (transferred).
 * Two workloads: Nexmark bids (7 fields, two low-cardinality strings, ~100
 * bytes of padding) and small `{ key, value, t }` records. The receiving
 * worker materializes every batch (decodes or receives the clone) and
 * acknowledges it; at most a few batches are in flight, as through a bounded
 * channel. Variants alternate within one run.
 *
 *   npm run bench:codec -- [--records N] [--batch B] [--reps R]
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { deserialize, serialize, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { type Bid, nexmarkConfig, nexmarkEvent } from '../src/connectors/nexmark/index.js';
import type { RecordBatch } from '../src/core/record-batch.js';
import { decodeBatch, type EncodedBatch, encodeBatch } from '../src/runtime/transport/index.js';

/**
 * A full collection before each measured run, on both threads, so garbage left
 * by one variant is not collected during the next one's run.
 */
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

type Mode = 'codec' | 'codec, shared strings' | 'clone' | 'v8';
const MODES: readonly Mode[] = ['codec', 'codec, shared strings', 'clone', 'v8'];
const IN_FLIGHT = 4;

type Message =
  | { mode: 'codec' | 'codec, shared strings'; batch: EncodedBatch }
  | { mode: 'clone'; batch: RecordBatch<unknown> }
  | { mode: 'v8'; batch: ArrayBuffer }
  | { mode: 'report'; collect: boolean };

/**
 * Worker side: materialize each batch, acknowledge it with its record count.
 * Busy time is event-loop utilization, so it includes the structured-clone
 * deserialization that happens before the handler runs.
 */
function serve(): void {
  const port = parentPort;
  if (port === null) return;
  let since = performance.eventLoopUtilization();
  port.on('message', (message: Message) => {
    if (message.mode === 'report') {
      if (message.collect) collectGarbage();
      const busyMs = performance.eventLoopUtilization(since).active;
      port.postMessage({ busyMs });
      since = performance.eventLoopUtilization();
      return;
    }
    let batch: RecordBatch<unknown>;
    switch (message.mode) {
      case 'codec':
        batch = decodeBatch(message.batch);
        break;
      case 'codec, shared strings':
        batch = decodeBatch(message.batch, { shareStringMemory: true });
        break;
      case 'v8':
        batch = deserialize(Buffer.from(message.batch)) as RecordBatch<unknown>;
        break;
      case 'clone':
        batch = message.batch;
        break;
    }
    port.postMessage(batch.values.length);
  });
}

function bids(count: number): Bid[] {
  const config = nexmarkConfig({});
  const out: Bid[] = [];
  for (let i = 0; out.length < count; i++) {
    const event = nexmarkEvent(i, config);
    if (event.type === 'bid') out.push(event.bid);
  }
  return out;
}

interface Small {
  key: string;
  value: number;
  t: number;
}

function smalls(count: number): Small[] {
  const out: Small[] = [];
  for (let i = 0; i < count; i++) {
    out.push({
      key: `user-${(i * 7919) % 1000}`,
      value: (i % 997) * 0.25,
      t: 1_700_000_000_000 + i,
    });
  }
  return out;
}

function batches<T>(
  records: readonly T[],
  size: number,
  time: (r: T) => number,
  key: (r: T) => unknown,
): RecordBatch<T>[] {
  const out: RecordBatch<T>[] = [];
  for (let i = 0; i < records.length; i += size) {
    const values = records.slice(i, i + size);
    out.push({ values, timestamps: values.map(time), keys: values.map(key) });
  }
  return out;
}

interface Outcome {
  recordsPerSec: number;
  /** Sender thread busy time per record: encoding and posting (structured-clone serialization). */
  sendNsPerRecord: number;
  /** Receiver thread busy time per record: deserialization, decoding, acknowledging. */
  receiveNsPerRecord: number;
}

async function run(worker: Worker, mode: Mode, input: RecordBatch<unknown>[]): Promise<Outcome> {
  let sent = 0;
  let acked = 0;
  let records = 0;
  // Collect garbage on both threads and reset the worker's busy-time window.
  collectGarbage();
  await new Promise((resolve) => {
    worker.once('message', resolve);
    worker.postMessage({ mode: 'report', collect: true } satisfies Message);
  });
  const since = performance.eventLoopUtilization();
  const start = performance.now();
  await new Promise<void>((resolve) => {
    const send = () => {
      const batch = input[sent++] as RecordBatch<unknown>;
      if (mode === 'codec' || mode === 'codec, shared strings') {
        const encoded = encodeBatch(batch);
        worker.postMessage({ mode, batch: encoded } satisfies Message, encoded.buffers);
      } else if (mode === 'v8') {
        const bytes = serialize(batch);
        const owned = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
        worker.postMessage({ mode, batch: owned } satisfies Message, [owned]);
      } else {
        worker.postMessage({ mode, batch } satisfies Message);
      }
    };
    const onAck = (n: number) => {
      records += n;
      acked++;
      if (sent < input.length) send();
      else if (acked === input.length) {
        worker.off('message', onAck);
        resolve();
      }
    };
    worker.on('message', onAck);
    while (sent < Math.min(IN_FLIGHT, input.length)) send();
  });
  const seconds = (performance.now() - start) / 1000;
  const sendMs = performance.eventLoopUtilization(since).active;
  const { busyMs } = await new Promise<{ busyMs: number }>((resolve) => {
    worker.once('message', resolve);
    worker.postMessage({ mode: 'report', collect: false } satisfies Message);
  });
  return {
    recordsPerSec: records / seconds,
    sendNsPerRecord: (sendMs * 1e6) / records,
    receiveNsPerRecord: (busyMs * 1e6) / records,
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

/**
 * UTF-8 encoding of string columns (of `size` strings, as in a batch), per
 * string and per joined column, with Buffer#write and TextEncoder#encodeInto;
 * decoding per string and by slicing the whole column's text. Single-threaded.
 */
function stringCodecs(strings: readonly string[], size: number, reps: number): void {
  const columns: string[][] = [];
  for (let i = 0; i < strings.length; i += size) columns.push(strings.slice(i, i + size));
  const longest = Math.max(...columns.map((c) => c.reduce((n, s) => n + s.length, 0)));
  const target = new Uint8Array(longest * 3 + 16);
  const buffer = Buffer.from(target.buffer);
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const time = (f: (column: string[]) => void): string => {
    const times: number[] = [];
    for (let r = 0; r < reps; r++) {
      const t0 = performance.now();
      for (const column of columns) f(column);
      times.push(performance.now() - t0);
    }
    return ((median(times) * 1e6) / strings.length).toFixed(1);
  };
  const rows: Record<string, string> = {
    'encode per string, Buffer#write': time((column) => {
      let at = 0;
      for (const s of column) at += buffer.write(s, at, 'utf8');
    }),
    'encode per string, TextEncoder#encodeInto': time((column) => {
      let at = 0;
      for (const s of column) at += encoder.encodeInto(s, target.subarray(at)).written;
    }),
    'encode joined column, one Buffer#write (used)': time((column) => {
      buffer.write(column.join(''), 0, 'utf8');
    }),
    'encode joined column, one TextEncoder#encodeInto': time((column) => {
      encoder.encodeInto(column.join(''), target);
    }),
  };
  // Decoding reads each column's bytes, encoded once up front.
  const encoded = columns.map((column) => {
    const offsets = new Uint32Array(column.length + 1);
    const bytes = Buffer.from(column.join(''), 'utf8');
    column.forEach((s, i) => {
      offsets[i + 1] = (offsets[i] as number) + Buffer.byteLength(s);
    });
    return { bytes, offsets };
  });
  let sink = 0;
  const decode = (f: (bytes: Buffer, offsets: Uint32Array) => void): string => {
    let k = 0;
    return time(() => {
      const { bytes, offsets } = encoded[k++ % encoded.length] as (typeof encoded)[number];
      f(bytes, offsets);
    });
  };
  rows["decode per string, Buffer#toString('latin1') (used)"] = decode((bytes, offsets) => {
    for (let i = 0; i + 1 < offsets.length; i++) {
      sink += bytes.toString('latin1', offsets[i], offsets[i + 1]).length;
    }
  });
  rows["decode per string, Buffer#toString('utf8')"] = decode((bytes, offsets) => {
    for (let i = 0; i + 1 < offsets.length; i++) {
      sink += bytes.toString('utf8', offsets[i], offsets[i + 1]).length;
    }
  });
  rows['decode per string, TextDecoder#decode'] = decode((bytes, offsets) => {
    for (let i = 0; i + 1 < offsets.length; i++) {
      sink += decoder.decode(bytes.subarray(offsets[i], offsets[i + 1])).length;
    }
  });
  rows['decode whole column once, then slices (shared strings)'] = decode((bytes, offsets) => {
    const text = bytes.toString('latin1');
    for (let i = 0; i + 1 < offsets.length; i++) {
      sink += text.slice(offsets[i], offsets[i + 1]).length;
    }
  });
  const chars = strings.reduce((n, s) => n + s.length, 0) / strings.length;
  console.log(
    `\nstring columns (bid url and extra: ${strings.length} ASCII strings, avg ${chars.toFixed(0)} chars, columns of ${size}), ns per string, median of ${reps}:`,
  );
  console.table(rows);
  if (sink < 0) console.log(sink);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      records: { type: 'string', default: '1000000' },
      batch: { type: 'string', default: '1024' },
      reps: { type: 'string', default: '3' },
    },
  });
  const count = Number(values.records);
  const size = Number(values.batch);
  const reps = Number(values.reps);
  const bidRecords = bids(count);
  const workloads: [string, RecordBatch<unknown>[]][] = [
    [
      'nexmark bids',
      batches(
        bidRecords,
        size,
        (b) => b.dateTime,
        (b) => b.auction,
      ),
    ],
    [
      '{key, value, t}',
      batches(
        smalls(count),
        size,
        (r) => r.t,
        (r) => r.key,
      ),
    ],
  ];
  console.log(`${count} records per workload, batches of ${size}, ${reps} reps, alternating`);
  const worker = new Worker(new URL(import.meta.url));
  try {
    for (const [name, input] of workloads) {
      // Warm-up pass per mode (JIT, worker code paths), not reported.
      for (const mode of MODES) await run(worker, mode, input.slice(0, 100));
      const outcomes = new Map<Mode, Outcome[]>(MODES.map((m) => [m, []]));
      for (let r = 0; r < reps; r++) {
        for (const mode of MODES) outcomes.get(mode)?.push(await run(worker, mode, input));
      }
      const clone = median((outcomes.get('clone') ?? []).map((o) => o.recordsPerSec));
      const rows: Record<string, Record<string, string>> = {};
      for (const mode of MODES) {
        const list = outcomes.get(mode) ?? [];
        const rate = median(list.map((o) => o.recordsPerSec));
        rows[mode] = {
          'records/s (median)': `${(rate / 1e6).toFixed(2)} M`,
          'vs clone': `${(rate / clone).toFixed(2)}x`,
          'sender ns/record': median(list.map((o) => o.sendNsPerRecord)).toFixed(0),
          'receiver ns/record': median(list.map((o) => o.receiveNsPerRecord)).toFixed(0),
        };
      }
      console.log(`\n${name}:`);
      console.table(rows);
    }
  } finally {
    await worker.terminate();
  }
  stringCodecs(
    bidRecords.slice(0, 100_000).flatMap((b) => [b.url, b.extra]),
    size,
    Math.max(reps, 5),
  );
}

if (isMainThread) await main();
else serve();
