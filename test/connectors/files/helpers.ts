import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { systemClock } from '../../../src/core/clock.js';
import type { Source, SourceReader } from '../../../src/index.js';
import { MetricRegistry } from '../../../src/metrics/registry.js';

const made: string[] = [];

/** A fresh temporary directory, removed after the test. */
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'weir-files-'));
  made.push(dir);
  return dir;
}

afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});

/**
 * A reader context for calling `createReader` directly. Built without a type
 * annotation so it stays valid while SourceContext gains optional-ish fields.
 */
export function readerContext(batchSize: number, metrics = new MetricRegistry()) {
  return {
    subtaskIndex: 0,
    parallelism: 1,
    batchSize,
    clock: systemClock,
    metrics: metrics.group({ operator: 'test-source' }),
    operatorId: 'test-source',
    restoredPosition: undefined,
  };
}

/** Reads a bounded source to the end through one reader; returns its batches. */
export async function readAll<T>(
  source: Source<T>,
  batchSize: number,
  metrics = new MetricRegistry(),
): Promise<T[][]> {
  const reader = source.createReader(readerContext(batchSize, metrics));
  await reader.open();
  try {
    return await drain(reader);
  } finally {
    await reader.close();
  }
}

/** Polls a reader until it ends, waiting on `available()` (bounded by a timeout) when told to. */
export async function drain<T>(reader: SourceReader<T>): Promise<T[][]> {
  const batches: T[][] = [];
  const deadline = Date.now() + 10_000;
  for (;;) {
    const result = reader.poll();
    if (result === 'end') return batches;
    if (result === 'wait') {
      if (Date.now() > deadline) throw new Error('reader did not end in time');
      await reader.available();
      continue;
    }
    batches.push(result.values);
  }
}

/** Wraps a source to record the size of every batch its readers hand out. */
export class RecordingSource<T> implements Source<T> {
  readonly batchSizes: number[] = [];
  readonly name: string;
  readonly bounded: boolean;
  readonly parallelizable: boolean;

  constructor(private readonly inner: Source<T>) {
    this.name = inner.name;
    this.bounded = inner.bounded;
    this.parallelizable = inner.parallelizable;
  }

  createReader(context: Parameters<Source<T>['createReader']>[0]): SourceReader<T> {
    const reader = this.inner.createReader(context);
    return {
      open: () => reader.open(),
      poll: () => {
        const result = reader.poll();
        if (typeof result !== 'string') this.batchSizes.push(result.values.length);
        return result;
      },
      available: () => reader.available(),
      close: () => reader.close(),
    };
  }
}

/** Waits until `condition` holds, checking every few milliseconds. */
export async function eventually(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Lines of a text, without the empty string after a final newline. */
export function linesOf(text: string): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}
