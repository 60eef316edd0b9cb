import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type Collector,
  CollectSink,
  GeneratorSource,
  type KeyedProcessContext,
  type KeyedProcessFunction,
  type KeyedRuntimeContext,
  StreamEnvironment,
  type ValueState,
} from '../../src/index.js';
import { DiskKeyedStateBackend } from '../../src/state/disk/disk-keyed-state.js';
import { HeapKeyedStateBackend } from '../../src/state/heap-keyed-state.js';
import type { KeyedStateBackend } from '../../src/state/keyed-state-backend.js';
import { MAX_PARALLELISM, OPERATOR } from './conformance.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

const PAYLOAD = 200;
const payload = (i: number) => String(i % 10).repeat(PAYLOAD);

describe('state size in bytes', () => {
  it('the disk backend reports the bytes of its pages: at least the data, shrinking when it is cleared', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weir-state-bytes-'));
    dirs.push(dir);
    const b = new DiskKeyedStateBackend(OPERATOR, 0, MAX_PARALLELISM, { workingDirectory: dir });
    try {
      expect(b.storedBytes()).toBe(0);
      const v = b.getValueState<string>('v');
      const keys = 5_000;
      for (let i = 0; i < keys; i++) {
        b.currentKey = `key-${i}`;
        v.update(payload(i));
      }
      // Buffered writes are flushed before measuring, like the entry count.
      const full = b.storedBytes();
      expect(b.entryCount()).toBe(keys);
      // Each entry holds a 200-character JSON string plus its key; B+tree pages are at most
      // half empty after sequential inserts, plus a few branch pages.
      expect(full).toBeGreaterThanOrEqual(keys * PAYLOAD);
      expect(full).toBeLessThan(keys * (PAYLOAD + 100) * 2.5);
      for (let i = 0; i < keys; i++) {
        b.currentKey = `key-${i}`;
        v.clear();
      }
      expect(b.entryCount()).toBe(0);
      expect(b.storedBytes()).toBe(0);
    } finally {
      b.dispose();
    }
    expect(b.storedBytes()).toBe(0);
  });

  it('the heap backend does not claim to know its size in bytes', () => {
    const heap: KeyedStateBackend = new HeapKeyedStateBackend(OPERATOR);
    expect(heap.storedBytes).toBeUndefined();
  });

  /** Keeps the latest payload per key. */
  class Latest implements KeyedProcessFunction<number, number, number> {
    private last!: ValueState<string>;
    open(ctx: KeyedRuntimeContext): void {
      this.last = ctx.state.getValueState<string>('last');
    }
    processElement(i: number, _ctx: KeyedProcessContext<number>, out: Collector<number>): void {
      this.last.update(payload(i));
      out.collect(i);
    }
  }

  const run = async (kind: 'heap' | 'disk') => {
    const dir = await mkdtemp(join(tmpdir(), 'weir-state-bytes-job-'));
    dirs.push(dir);
    const env = new StreamEnvironment({
      parallelism: 2,
      stateBackend: kind === 'disk' ? { kind, workingDirectory: dir } : { kind },
    });
    const keys = 1_000;
    env
      .fromSource(new GeneratorSource({ generate: (i) => i, ratePerSecond: 20_000 }))
      .keyBy((i) => i % keys)
      .process(new Latest())
      .uid('latest')
      .sinkTo(new CollectSink<number>());
    const client = env.executeAsync(`state bytes ${kind}`);
    const entries = () => client.metrics.total('weir_state_entries', { operator: 'latest' });
    const deadline = Date.now() + 15_000;
    while (entries() < keys) {
      if (Date.now() > deadline) throw new Error(`only ${entries()} state entries`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const bytes = client.metrics.samples('weir_state_bytes', { operator: 'latest' });
    await client.cancel();
    return { keys, bytes };
  };

  it('a keyed job on the disk backend shows weir_state_bytes per subtask; on the heap it has none', async () => {
    const disk = await run('disk');
    expect(disk.bytes).toHaveLength(2);
    const total = disk.bytes.reduce((s, x) => s + x.value, 0);
    expect(total).toBeGreaterThanOrEqual(disk.keys * PAYLOAD);
    expect(total).toBeLessThan(disk.keys * (PAYLOAD + 100) * 3);
    const heap = await run('heap');
    expect(heap.bytes).toEqual([]);
  });
});
