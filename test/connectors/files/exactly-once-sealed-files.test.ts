/**
 * A sealed (pending) part file that is cut short or changed between its
 * checkpoint and its commit must not be published: a crash between the two
 * leaves it on disk, and the restored job commits it on recovery.
 */
import { appendFile, readdir, readFile, rename, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { untimedBatch } from '../../../src/core/record-batch.js';
import type { Json } from '../../../src/core/snapshot.js';
import { ExactlyOnceFileSink, WeirError } from '../../../src/index.js';
import { MetricRegistry } from '../../../src/metrics/registry.js';
import { tempDir } from './helpers.js';

function sinkContext() {
  return {
    subtaskIndex: 0,
    parallelism: 1,
    operatorId: 'parts',
    metrics: new MetricRegistry().group({ operator: 'parts' }),
  };
}

const lines = Array.from({ length: 50 }, (_, i) => `record ${i}`);

/** Writes `lines` and seals them at checkpoint 7, as a writer does at a barrier; then "crashes". */
async function sealed(directory: string): Promise<{ committable: Json; pending: string }> {
  const writer = new ExactlyOnceFileSink<string>({ directory }).createWriter(sinkContext());
  await writer.blocked?.();
  writer.write(untimedBatch(lines.slice(0, 20)));
  writer.write(untimedBatch(lines.slice(20)));
  const committable = writer.preCommit(7);
  writer.close();
  const pending = (await readdir(directory)).find((f) => f.endsWith('.pending'));
  if (pending === undefined) throw new Error('no pending file');
  return { committable, pending: join(directory, pending) };
}

/** A new writer (the restored job's) recovering the committable. */
async function recover(directory: string, committable: Json): Promise<void> {
  const writer = new ExactlyOnceFileSink<string>({ directory }).createWriter(sinkContext());
  await writer.recover?.([committable]);
}

async function committedText(directory: string): Promise<string> {
  return readFile(join(directory, 'part-0-0000000007.jsonl'), 'utf8');
}

describe('ExactlyOnceFileSink: sealed files are checked before they are committed', () => {
  it('recovery commits an intact sealed file with every record', async () => {
    const directory = await tempDir();
    const { committable } = await sealed(directory);
    await recover(directory, committable);
    expect(await committedText(directory)).toBe(lines.map((l) => `"${l}"\n`).join(''));
  });

  it('recovery refuses a sealed file cut short, naming it and both lengths', async () => {
    const directory = await tempDir();
    const { committable, pending } = await sealed(directory);
    await truncate(pending, 100);
    const error = await recover(directory, committable).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WeirError);
    expect((error as WeirError).code).toBe('SINK_FAILED');
    expect((error as WeirError).message).toContain(pending);
    expect((error as WeirError).message).toMatch(/it has 100 bytes, \d+ were sealed/);
    // Nothing was published.
    await expect(committedText(directory)).rejects.toThrow(/ENOENT/);
  });

  it('recovery refuses a sealed file with bytes added', async () => {
    const directory = await tempDir();
    const { committable, pending } = await sealed(directory);
    await appendFile(pending, '"record 50"\n');
    await expect(recover(directory, committable)).rejects.toThrow(/bytes, \d+ were sealed/);
    await expect(committedText(directory)).rejects.toThrow(/ENOENT/);
  });

  it('a commit in the same run refuses a sealed file cut short', async () => {
    const directory = await tempDir();
    const writer = new ExactlyOnceFileSink<string>({ directory }).createWriter(sinkContext());
    await writer.blocked?.();
    writer.write(untimedBatch(lines));
    const committable = writer.preCommit(7);
    const pending = (await readdir(directory)).find((f) => f.endsWith('.pending'));
    await truncate(join(directory, pending!), 0);
    await expect(writer.commit([committable])).rejects.toThrow(/cut short or changed in length/);
    writer.close();
  });

  it('committables of earlier versions (no length) still commit, and a file already committed is not checked again', async () => {
    const directory = await tempDir();
    const { committable, pending } = await sealed(directory);
    const {
      pending: name,
      final,
      subtask,
    } = committable as {
      pending: string;
      final: string;
      subtask: number;
    };
    await recover(directory, { pending: name, final, subtask });
    expect(await committedText(directory)).toContain('"record 49"');
    // Committed by the recovery above: recovering again (a second crash) is a no-op.
    await recover(directory, committable);
    expect((await committedText(directory)).split('\n')).toHaveLength(51);
    await expect(rename(pending, `${pending}.x`)).rejects.toThrow(/ENOENT/);
  });
});
