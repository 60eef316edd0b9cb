import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { untimedBatch } from '../../../src/core/record-batch.js';
import {
  FileFormat,
  FileSource,
  JsonLinesSink,
  StreamEnvironment,
  Time,
  WatermarkStrategy,
  WeirError,
  Windows,
} from '../../../src/index.js';
import { MetricRegistry } from '../../../src/metrics/registry.js';
import { linesOf, tempDir } from './helpers.js';

async function jsonLines(file: string): Promise<unknown[]> {
  return linesOf(await readFile(file, 'utf8')).map((l) => JSON.parse(l) as unknown);
}

function sinkContext(subtaskIndex = 0, parallelism = 1) {
  return {
    subtaskIndex,
    parallelism,
    operatorId: 'test-sink',
    metrics: new MetricRegistry().group({ operator: 'test-sink' }),
  };
}

describe('JsonLinesSink', () => {
  it('writes exactly the records, one JSON value per line, creating directories', async () => {
    const file = join(await tempDir(), 'nested', 'out.jsonl');
    const records = [
      { id: 1, text: 'a "quoted"\nline' },
      { id: 2, nested: { list: [1, 2] } },
      'plain string',
      42,
      null,
    ];
    const env = new StreamEnvironment({ batchSize: 2 });
    env.fromArray(records).sinkTo(new JsonLinesSink(file));
    await env.execute('write');
    const text = await readFile(file, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    expect(linesOf(text)).toHaveLength(records.length);
    expect(await jsonLines(file)).toEqual(records);
  });

  it('replaces an existing file, or appends when asked', async () => {
    const file = join(await tempDir(), 'out.jsonl');
    await writeFile(file, '"old"\n');
    const env = new StreamEnvironment();
    env.fromArray([1, 2]).sinkTo(new JsonLinesSink(file));
    await env.execute('replace');
    expect(await jsonLines(file)).toEqual([1, 2]);
    const again = new StreamEnvironment();
    again.fromArray([3]).sinkTo(new JsonLinesSink(file, { append: true }));
    await again.execute('append');
    expect(await jsonLines(file)).toEqual([1, 2, 3]);
  });

  it('with parallelism 2 writes one file per subtask, named <base>-<subtask><ext>', async () => {
    const dir = await tempDir();
    const path = join(dir, 'out.jsonl');
    const env = new StreamEnvironment({ parallelism: 2, batchSize: 16 });
    env.fromGenerator({ count: 1000, generate: (i) => ({ i }) }).sinkTo(new JsonLinesSink(path));
    await env.execute('parallel write');
    expect(existsSync(path)).toBe(false);
    const first = join(dir, 'out-0.jsonl');
    const second = join(dir, 'out-1.jsonl');
    expect(JsonLinesSink.subtaskPath(path, 0, 2)).toBe(first);
    expect(JsonLinesSink.subtaskPath(path, 1, 2)).toBe(second);
    expect(JsonLinesSink.subtaskPath(path, 0, 1)).toBe(path);
    expect(JsonLinesSink.subtaskPath(join(dir, 'out'), 3, 4)).toBe(join(dir, 'out-3'));
    const a = (await jsonLines(first)) as { i: number }[];
    const b = (await jsonLines(second)) as { i: number }[];
    expect(a.length).toBeGreaterThan(0);
    expect(b.length).toBeGreaterThan(0);
    const all = [...a, ...b].map((r) => r.i).sort((x, y) => x - y);
    expect(all).toEqual([...Array(1000).keys()]);
  });

  it('reports backpressure through blocked() and flushes everything on close', async () => {
    const file = join(await tempDir(), 'out.jsonl');
    const writer = new JsonLinesSink<{ i: number; pad: string }>(file, {
      bufferBytes: 64,
    }).createWriter(sinkContext());
    const pad = 'x'.repeat(100);
    let blockedSeen = 0;
    for (let b = 0; b < 50; b++) {
      const values = Array.from({ length: 20 }, (_, k) => ({ i: b * 20 + k, pad }));
      writer.write(untimedBatch(values));
      const blocked = writer.blocked?.();
      if (blocked !== undefined) {
        blockedSeen++;
        await blocked;
      }
    }
    await writer.close();
    expect(blockedSeen).toBeGreaterThan(0);
    const ids = ((await jsonLines(file)) as { i: number }[]).map((r) => r.i);
    expect(ids).toEqual([...Array(1000).keys()]);
  });

  it('fails the job with SINK_FAILED on a record that is not JSON-representable', async () => {
    const file = join(await tempDir(), 'out.jsonl');
    const env = new StreamEnvironment();
    env.fromArray<unknown>([1, undefined, 3]).sinkTo(new JsonLinesSink(file));
    const error = await env.execute('bad record').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WeirError);
    expect((error as WeirError).code).toBe('SINK_FAILED');
    expect((error as WeirError).message).toMatch(/cannot be written as a JSON line/);
  });

  it('fails the job with SINK_FAILED when the file cannot be written', async () => {
    const path = join(await tempDir(), 'taken');
    await mkdir(path);
    const env = new StreamEnvironment();
    env.fromArray([1, 2, 3]).sinkTo(new JsonLinesSink(path));
    const error = await env.execute('unwritable').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WeirError);
    expect((error as WeirError).code).toBe('SINK_FAILED');
    expect((error as WeirError).message).toContain(path);
  });

  it('uses a custom serializer, rejecting line breaks', async () => {
    const dir = await tempDir();
    const file = join(dir, 'out.jsonl');
    const env = new StreamEnvironment();
    env
      .fromArray([{ a: 1 }, { a: 2 }])
      .sinkTo(new JsonLinesSink(file, { serialize: (v) => JSON.stringify({ wrapped: v }) }));
    await env.execute('custom');
    expect(await jsonLines(file)).toEqual([{ wrapped: { a: 1 } }, { wrapped: { a: 2 } }]);

    const broken = new StreamEnvironment();
    broken
      .fromArray([{ a: 1 }])
      .sinkTo(
        new JsonLinesSink(join(dir, 'x.jsonl'), { serialize: (v) => JSON.stringify(v, null, 2) }),
      );
    await expect(broken.execute('pretty')).rejects.toThrow(/line break/);
  });
});

describe('end to end: JSON Lines file → keyBy/window → JSON Lines file', () => {
  interface Click {
    user: string;
    t: number;
    amount: number;
  }

  it('sums amounts per user in tumbling windows', async () => {
    const dir = await tempDir();
    const input = join(dir, 'clicks.jsonl');
    const output = join(dir, 'out', 'sums.jsonl');
    const clicks: Click[] = [];
    for (let i = 0; i < 500; i++) {
      clicks.push({ user: `u${i % 7}`, t: 1_000 + i * 37 + ((i * 13) % 50), amount: i % 11 });
    }
    let text = '';
    for (const c of clicks) text += `${JSON.stringify(c)}\n`;
    await writeFile(input, text);

    const env = new StreamEnvironment({ parallelism: 2, batchSize: 16 });
    env
      .fromSource(
        new FileSource(
          input,
          FileFormat.jsonLines({
            parse: (v): Click => {
              const c = v as Click;
              if (typeof c.user !== 'string' || typeof c.t !== 'number')
                throw new Error('bad click');
              return c;
            },
          }),
        ),
      )
      .assignTimestampsAndWatermarks(
        WatermarkStrategy.forBoundedOutOfOrderness<Click>(100).withTimestampAssigner((c) => c.t),
      )
      .keyBy((c) => c.user)
      .window(Windows.tumbling(Time.seconds(1)))
      .aggregate({
        createAccumulator: () => 0,
        add: (c: Click, sum: number) => sum + c.amount,
        getResult: (sum: number) => sum,
        merge: (a: number, b: number) => a + b,
      })
      .map((r) => ({ user: r.key, start: r.window.start, sum: r.value }))
      .setParallelism(1)
      .sinkTo(new JsonLinesSink(output));
    const result = await env.execute('clicks');
    expect(result.status).toBe('finished');

    const expected = new Map<string, number>();
    for (const c of clicks) {
      const start = Math.floor(c.t / 1000) * 1000;
      const k = `${c.user}@${start}`;
      expected.set(k, (expected.get(k) ?? 0) + c.amount);
    }
    const got = (await jsonLines(output)) as { user: string; start: number; sum: number }[];
    const actual = new Map(got.map((r) => [`${r.user}@${r.start}`, r.sum]));
    expect(got).toHaveLength(expected.size);
    expect(actual).toEqual(expected);
  });
});
