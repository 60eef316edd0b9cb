import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExactlyOnceFileSink } from '../../../src/connectors/files/sink/exactly-once-file-sink.js';
import {
  CollectSink,
  FileFormat,
  FileSource,
  JsonLinesSink,
  StreamEnvironment,
} from '../../../src/index.js';
import { BYTES_METRICS } from '../../../src/metrics/connector-metrics.js';
import { jobMetrics, RateTracker } from '../../../src/ui/job-view.js';
import { tempDir } from './helpers.js';

const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

/** JSON lines with multi-byte characters, a blank line, a CRLF line end and a bad line. */
function jsonLinesText(file: string, count: number): { text: string; lines: string[] } {
  const lines: string[] = [];
  for (let n = 0; n < count; n++)
    lines.push(JSON.stringify({ file, n, text: 'é€😀'.repeat(n % 4) }));
  lines.splice(3, 0, '', 'not json', '{"crlf":true}\r');
  return { text: `${lines.join('\n')}\n`, lines };
}

describe('bytes metrics of the file connectors', () => {
  it('a JSON Lines source counts every byte of its files, and the UI shows them', async () => {
    const dir = await tempDir();
    const a = jsonLinesText('a', 3_000);
    const b = jsonLinesText('b', 1_234);
    await writeFile(join(dir, 'a.jsonl'), a.text);
    await writeFile(join(dir, 'b.jsonl'), b.text);
    // The oracle: every line's UTF-8 bytes plus its line end.
    const expected = [...a.lines, ...b.lines].reduce((sum, l) => sum + utf8(l) + 1, 0);
    expect(expected).toBe(
      (await stat(join(dir, 'a.jsonl'))).size + (await stat(join(dir, 'b.jsonl'))).size,
    );

    const env = new StreamEnvironment({ parallelism: 2, batchSize: 100 });
    const sink = new CollectSink<unknown>();
    env
      .fromSource(
        new FileSource([join(dir, 'a.jsonl'), join(dir, 'b.jsonl')], FileFormat.jsonLines(), {
          onError: 'skip',
        }),
      )
      .uid('files')
      .sinkTo(sink);
    const client = env.executeAsync('jsonl bytes');
    const result = await client.result;
    expect(sink.values).toHaveLength(3_000 + 1_234 + 2);
    expect(result.metric(BYTES_METRICS.read)).toBe(expected);
    const view = jobMetrics(client, new RateTracker());
    const source = view.operators.find((o) => o.id === 'files');
    expect(source?.bytesRead).toBe(expected);
    expect(source?.bytesWritten).toBeNull();
  });

  it('a CSV source counts the bytes of its file', async () => {
    const dir = await tempDir();
    const rows = ['id,name'];
    for (let i = 0; i < 5_000; i++) rows.push(`${i},"naïve, ${'x'.repeat(i % 7)}"`);
    const text = `${rows.join('\r\n')}\r\n`;
    const file = join(dir, 'rows.csv');
    await writeFile(file, text);
    const env = new StreamEnvironment({ batchSize: 256 });
    const sink = new CollectSink<unknown>();
    env.fromSource(new FileSource(file, FileFormat.csv({ header: true }))).sinkTo(sink);
    const result = await env.execute('csv bytes');
    expect(sink.values).toHaveLength(5_000);
    expect(result.metric(BYTES_METRICS.read)).toBe(utf8(text));
  });

  it('a JSON Lines sink counts the bytes of the lines it writes, per subtask file', async () => {
    const dir = await tempDir();
    const path = join(dir, 'out.jsonl');
    const records = Array.from({ length: 4_321 }, (_, i) => ({ i, s: 'ü'.repeat(i % 5) }));
    const env = new StreamEnvironment({ parallelism: 2, batchSize: 64 });
    env
      .fromArray(records)
      .rebalance()
      .sinkTo(new JsonLinesSink<{ i: number; s: string }>(path))
      .uid('out');
    const client = env.executeAsync('jsonl sink bytes');
    const result = await client.result;
    const files = [0, 1].map((i) => JsonLinesSink.subtaskPath(path, i, 2));
    const sizes = await Promise.all(files.map(async (f) => (await stat(f)).size));
    const oracle = records.reduce((sum, r) => sum + utf8(JSON.stringify(r)) + 1, 0);
    expect(sizes[0]! + sizes[1]!).toBe(oracle);
    expect(result.metric(BYTES_METRICS.written)).toBe(oracle);
    for (const [i, size] of sizes.entries()) {
      expect(client.metrics.total(BYTES_METRICS.written, { subtask: String(i) })).toBe(size);
    }
    expect(
      jobMetrics(client, new RateTracker()).operators.find((o) => o.id === 'out')?.bytesWritten,
    ).toBe(oracle);
  });

  it('the exactly-once file sink counts the bytes it writes to its part files', async () => {
    const dir = await tempDir();
    const out = join(dir, 'out');
    const records = Array.from({ length: 3_000 }, (_, i) => ({ i, s: '€'.repeat(i % 3) }));
    const env = new StreamEnvironment({
      batchSize: 100,
      checkpointing: { directory: join(dir, 'chk'), intervalMs: 5 },
    });
    env
      .fromArray(records)
      .sinkTo(new ExactlyOnceFileSink<{ i: number; s: string }>({ directory: out }));
    const result = await env.execute('exactly-once bytes');
    let committed = 0;
    for (const f of (await readdir(out)).filter((n) => !n.startsWith('.'))) {
      committed += utf8(await readFile(join(out, f), 'utf8'));
    }
    const oracle = records.reduce((sum, r) => sum + utf8(JSON.stringify(r)) + 1, 0);
    expect(committed).toBe(oracle);
    expect(result.metric(BYTES_METRICS.written)).toBe(oracle);
  });
});
