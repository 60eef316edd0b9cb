/**
 * Checkpoints under sustained backpressure: a fast source into a sink that
 * takes a few hundred records a second, for three minutes. With channels
 * bounded only by their batch count, a barrier waited behind about 30 s of
 * queued records per exchange (bench:backpressure) and a strict checkpoint
 * timeout ended the job; buffer debloating keeps what queues to about a
 * second per channel.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type RecordBatch,
  type Sink,
  type SinkWriter,
  StreamEnvironment,
} from '../../src/index.js';

/** Wall time the job runs for, at the sink's nominal rate. */
const RUN_MS = 180_000;
const PARALLELISM = 2;
/** Records per second each sink subtask takes. */
const SINK_RATE = 400;
const RECORDS = (SINK_RATE * PARALLELISM * RUN_MS) / 1000;
/** Stricter than the default 60 s: the job fails at the first checkpoint that takes longer. */
const CHECKPOINT_TIMEOUT_MS = 20_000;
/** Every slice of this length while the source runs must see a checkpoint complete. */
const SLICE_MS = 30_000;
const SAMPLE_MS = 2000;

/** Takes `ratePerSecond` records per second per subtask: after each batch it blocks for the batch's share. */
class ThrottledSink implements Sink<number> {
  readonly name = 'throttled';
  /** How often each value arrived. */
  readonly seen = new Uint8Array(RECORDS);
  received = 0;
  constructor(private readonly ratePerSecond: number) {}
  createWriter(): SinkWriter<number> {
    let pending: Promise<void> | undefined;
    return {
      write: (batch: RecordBatch<number>) => {
        for (const v of batch.values) this.seen[v]!++;
        this.received += batch.values.length;
        const ms = (batch.values.length * 1000) / this.ratePerSecond;
        pending = new Promise((resolve) =>
          setTimeout(() => {
            pending = undefined;
            resolve();
          }, ms),
        );
      },
      blocked: () => pending,
      close: () => pending,
    };
  }
}

describe('checkpoints under sustained backpressure', () => {
  it(
    `complete throughout ${RUN_MS / 60_000} minutes of a slow sink, with exact output and flat memory`,
    async () => {
      const directory = await mkdtemp(join(tmpdir(), 'weir-backpressure-'));
      try {
        const sink = new ThrottledSink(SINK_RATE);
        const env = new StreamEnvironment({
          parallelism: PARALLELISM,
          checkpointing: { directory, intervalMs: 2000, timeoutMs: CHECKPOINT_TIMEOUT_MS },
        });
        env
          .fromGenerator({ count: RECORDS, generate: (i) => i })
          .keyBy((v) => v % 97)
          .map((v) => v)
          .rebalance()
          .sinkTo(sink);
        const started = Date.now();
        const client = env.executeAsync('slow-sink');
        let settled = false;
        const outcome = client.result.finally(() => {
          settled = true;
        });
        outcome.catch(() => {});

        const completedAt = new Map<number, number>();
        const durations: number[] = [];
        const rss: { at: number; mb: number }[] = [];
        let sourceEndedAt: number | undefined;
        while (!settled) {
          await Promise.race([new Promise((resolve) => setTimeout(resolve, 1000)), outcome]);
          const now = Date.now() - started;
          for (const e of client.monitor.checkpoints.entries()) {
            if (e.status !== 'completed' || completedAt.has(e.id) || e.completedAt === undefined)
              continue;
            completedAt.set(e.id, e.completedAt - started);
            durations.push(e.durationMs ?? 0);
          }
          if (rss.length === 0 || now - rss[rss.length - 1]!.at >= SAMPLE_MS)
            rss.push({ at: now, mb: process.memoryUsage.rss() / 2 ** 20 });
          if (
            sourceEndedAt === undefined &&
            client.metrics.total('weir_source_records_total') >= RECORDS
          )
            sourceEndedAt = now;
        }
        const result = await outcome;
        expect(result.status).toBe('finished');

        // Not one checkpoint failed or timed out, and one completed in every slice while the source ran.
        expect(result.metric('weir_checkpoints_failed_total')).toBe(0);
        expect(Math.max(...durations)).toBeLessThan(CHECKPOINT_TIMEOUT_MS);
        const end = sourceEndedAt ?? result.durationMs;
        expect(end).toBeGreaterThanOrEqual(RUN_MS * 0.95);
        const times = [...completedAt.values()];
        for (let from = 0; from + SLICE_MS <= end; from += SLICE_MS) {
          const inSlice = times.filter((t) => t >= from && t < from + SLICE_MS).length;
          expect(
            inSlice,
            `checkpoints completed in [${from / 1000} s, ${(from + SLICE_MS) / 1000} s)`,
          ).toBeGreaterThan(0);
        }

        // Exactly once: every input value reached the sink once.
        expect(sink.received).toBe(RECORDS);
        let wrong = 0;
        for (const n of sink.seen) if (n !== 1) wrong++;
        expect(wrong).toBe(0);

        // Memory is flat: the last minute peaks no higher than the second (20% for the collector's moods).
        const peak = (from: number, to: number) =>
          Math.max(...rss.filter((s) => s.at >= from && s.at < to).map((s) => s.mb));
        const second = peak(60_000, 120_000);
        const last = peak(end - 60_000, end);
        expect(last).toBeLessThanOrEqual(second * 1.2);
        expect(Math.max(...rss.map((s) => s.mb))).toBeLessThan(1024);
      } finally {
        await rm(directory, { recursive: true, force: true });
      }
    },
    RUN_MS + 240_000,
  );
});
