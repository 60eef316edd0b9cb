import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CollectSink,
  DirectorySource,
  FileFormat,
  StreamEnvironment,
  WeirError,
} from '../../../src/index.js';
import { MetricRegistry } from '../../../src/metrics/registry.js';
import { eventually, readerContext, tempDir } from './helpers.js';

interface Ev {
  file: string;
  n: number;
}

function events(file: string, count: number): string {
  let text = '';
  for (let n = 0; n < count; n++) text += `${JSON.stringify({ file, n })}\n`;
  return text;
}

/** Writes a file atomically: under a hidden name first, then renamed into place. */
async function publish(dir: string, name: string, text: string): Promise<void> {
  const hidden = join(dir, `.${name}.tmp`);
  await writeFile(hidden, text);
  await rename(hidden, join(dir, name));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('DirectorySource', () => {
  it('reads existing files, then each new file once, in name order, until cancelled', async () => {
    const dir = await tempDir();
    await publish(dir, 'b.jsonl', events('b', 4));
    await publish(dir, 'a.jsonl', events('a', 2));
    await writeFile(join(dir, 'notes.txt'), 'not json\n');
    await writeFile(join(dir, '.hidden.jsonl'), 'not json\n');
    await writeFile(join(dir, '_in-progress.jsonl'), 'not json\n');
    await mkdir(join(dir, 'sub.jsonl'));

    const env = new StreamEnvironment({ batchSize: 3 });
    const sink = new CollectSink<Ev>();
    const source = new DirectorySource(dir, FileFormat.jsonLines<Ev>(), {
      pollIntervalMs: 10,
      filter: '*.jsonl',
    });
    expect(source.bounded).toBe(false);
    expect(source.parallelizable).toBe(false);
    env.fromSource(source).sinkTo(sink);
    const job = env.executeAsync('watch');
    const tags = () => sink.values.map((e) => `${e.file}${e.n}`);

    await eventually(() => sink.values.length === 6);
    expect(tags()).toEqual(['a0', 'a1', 'b0', 'b1', 'b2', 'b3']);

    // A file added after the start.
    await publish(dir, 'c.jsonl', events('c', 5));
    await eventually(() => sink.values.length === 11);

    // Later, more files, one of them sorting before files already read.
    await sleep(50);
    await publish(dir, 'e.jsonl', events('e', 1));
    await publish(dir, 'd.jsonl', events('d', 1));
    await publish(dir, '0.jsonl', events('0', 1));
    await eventually(() => sink.values.length === 14);

    // Several more polls: nothing is read twice.
    await sleep(100);
    const result = await job.cancel();
    expect(result.status).toBe('cancelled');
    const after = tags();
    expect(after.slice(0, 11)).toEqual([
      'a0',
      'a1',
      'b0',
      'b1',
      'b2',
      'b3',
      'c0',
      'c1',
      'c2',
      'c3',
      'c4',
    ]);
    // The last three may arrive in one listing or several (their order depends on that).
    expect([...after.slice(11)].sort()).toEqual(['00', 'd0', 'e0']);
    expect(after).toHaveLength(14);
    expect(result.metric('weir_source_files_total')).toBe(6);
    expect(result.metric('weir_source_bad_records_total')).toBe(0);
  });

  it('with processExisting false, reads only files that appear after the start', async () => {
    const dir = await tempDir();
    await publish(dir, 'old.jsonl', events('old', 3));
    const env = new StreamEnvironment();
    const sink = new CollectSink<Ev>();
    env
      .fromSource(
        new DirectorySource(dir, FileFormat.jsonLines<Ev>(), {
          pollIntervalMs: 10,
          processExisting: false,
        }),
      )
      .sinkTo(sink);
    const job = env.executeAsync('new only');
    await sleep(60);
    await publish(dir, 'new.jsonl', events('new', 2));
    await eventually(() => sink.values.length === 2);
    await sleep(50);
    await job.cancel();
    expect(sink.values.map((e) => e.file)).toEqual(['new', 'new']);
  });

  it('hands out batches of exactly batchSize, the last of each file smaller, and wakes the reader', async () => {
    const dir = await tempDir();
    await publish(dir, '1.jsonl', events('1', 7));
    const source = new DirectorySource(dir, FileFormat.jsonLines<Ev>(), {
      pollIntervalMs: 10,
      filter: /^\d+\.jsonl$/,
    });
    const reader = source.createReader(readerContext(3));
    await reader.open();
    const sizes: number[] = [];
    const pollUntil = async (total: number) => {
      let seen = sizes.reduce((a, b) => a + b, 0);
      while (seen < total) {
        const r = reader.poll();
        expect(r).not.toBe('end');
        if (r === 'wait') {
          await reader.available();
          continue;
        }
        if (r === 'end') break;
        sizes.push(r.values.length);
        seen += r.values.length;
      }
    };
    try {
      await pollUntil(7);
      await publish(dir, '2.jsonl', events('2', 3));
      await pollUntil(10);
      expect(reader.poll()).toBe('wait');
    } finally {
      await reader.close();
    }
    expect(sizes).toEqual([3, 3, 1, 3]);
  });

  it('bad records in watched files follow the policy (dead letter function)', async () => {
    const dir = await tempDir();
    await publish(dir, 'a.jsonl', '{"file":"a","n":0}\nnot json\n{"file":"a","n":1}\n');
    const lines: string[] = [];
    const metrics = new MetricRegistry();
    const source = new DirectorySource(dir, FileFormat.jsonLines<Ev>(), {
      pollIntervalMs: 10,
      onError: { deadLetter: (bad) => lines.push(`${bad.file}:${bad.line}:${bad.text}`) },
    });
    const reader = source.createReader(readerContext(10, metrics));
    await reader.open();
    let got: Ev[] = [];
    try {
      for (;;) {
        const r = reader.poll();
        if (r === 'wait') {
          await reader.available();
          continue;
        }
        if (r === 'end') throw new Error('unbounded source ended');
        got = r.values;
        break;
      }
    } finally {
      await reader.close();
    }
    expect(got.map((e) => e.n)).toEqual([0, 1]);
    expect(lines).toEqual([`${join(dir, 'a.jsonl')}:2:not json`]);
    expect(metrics.total('weir_source_bad_records_total')).toBe(1);
  });

  it('fails the job when the directory does not exist', async () => {
    const dir = join(await tempDir(), 'nope');
    const env = new StreamEnvironment();
    env.fromSource(new DirectorySource(dir, FileFormat.csv())).sinkTo(new CollectSink());
    const error = await env.execute('missing dir').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WeirError);
    expect((error as WeirError).code).toBe('SOURCE_FAILED');
    expect((error as WeirError).message).toContain(dir);
  });

  it('validates its options', () => {
    expect(() => new DirectorySource('', FileFormat.jsonLines())).toThrow(/directory/);
    expect(() => new DirectorySource('x', FileFormat.jsonLines(), { pollIntervalMs: 0 })).toThrow(
      /pollIntervalMs/,
    );
  });
});
