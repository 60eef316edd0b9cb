/**
 * Checkpoints under sustained backpressure: a fast source into a sink that
 * takes a few hundred records a second, for three minutes. With channels
 * bounded only by their batch count, a barrier waited behind about 30 s of
 * queued records per exchange (bench:backpressure) and a strict checkpoint
 * timeout ended the job; buffer debloating keeps what queues to about a
 * second per channel.
 *
 * What is bounded is counted in the sink's records, not in wall time. A
 * barrier waits behind the records in flight when it starts (emitted by the
 * source, not yet sunk): 3,072 here with debloating (three source batches,
 * however loaded the machine), up to 31,744 without. Its wall time is their
 * drain time plus any time the process does not run, one for one (a 16 s
 * stall of this job made a 20 s checkpoint, queues as short as ever): a
 * 20 s checkpoint timeout measured the machine's load as much as debloating,
 * and failed on a loaded CI machine.
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
const TEST_TIMEOUT_MS = RUN_MS + 240_000;
const PARALLELISM = 2;
/** Records per second each sink subtask takes. */
const SINK_RATE = 400;
const RECORDS = (SINK_RATE * PARALLELISM * RUN_MS) / 1000;
/** Records the sink takes in `seconds` at its nominal rate. */
const sinkRecords = (seconds: number) => seconds * SINK_RATE * PARALLELISM;
/** No barrier may wait behind more than 20 s of the sink's work (the strict timeout this test began with). */
const MAX_IN_FLIGHT = sinkRecords(20);
/** Every 30 s of the sink's work must see a checkpoint complete. */
const SLICE_RECORDS = sinkRecords(30);
const SAMPLE_MS = 2000;

/** Takes `ratePerSecond` records per second per subtask: after each batch it blocks for the batch's share. */
class ThrottledSink implements Sink<number> {
  readonly name = 'throttled';
  /** How often each value arrived. */
  readonly seen = new Uint8Array(RECORDS);
  received = 0;
  /** `received` after each write, and when (epoch ms): the sink's clock. */
  private readonly progress: { at: number; received: number }[] = [];
  constructor(private readonly ratePerSecond: number) {}
  createWriter(): SinkWriter<number> {
    let pending: Promise<void> | undefined;
    return {
      write: (batch: RecordBatch<number>) => {
        for (const v of batch.values) this.seen[v]!++;
        this.received += batch.values.length;
        this.progress.push({ at: Date.now(), received: this.received });
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

  /** Records taken by epoch time `at`. */
  receivedBy(at: number): number {
    let received = 0;
    for (const p of this.progress) {
      if (p.at > at) break;
      received = p.received;
    }
    return received;
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
          // The default timeout (60 s), as users run: the bound checked is in records, not seconds.
          checkpointing: { directory, intervalMs: 2000 },
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
        let maxInFlight = 0;
        const rss: { at: number; mb: number }[] = [];
        let sourceEndedAt: number | undefined;
        while (!settled) {
          await Promise.race([new Promise((resolve) => setTimeout(resolve, 1000)), outcome]);
          const now = Date.now() - started;
          for (const e of client.monitor.checkpoints.entries()) {
            if (e.status !== 'completed' || completedAt.has(e.id) || e.completedAt === undefined)
              continue;
            completedAt.set(e.id, e.completedAt);
          }
          // Read together between two executor slices: what any barrier started now waits behind.
          maxInFlight = Math.max(
            maxInFlight,
            client.metrics.total('weir_source_records_total') - sink.received,
          );
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

        // Not one checkpoint failed, no barrier waited behind more than
        // MAX_IN_FLIGHT records, and one checkpoint completed in every
        // SLICE_RECORDS the sink took.
        expect(result.metric('weir_checkpoints_failed_total')).toBe(0);
        expect(maxInFlight).toBeLessThanOrEqual(MAX_IN_FLIGHT);
        const end = sourceEndedAt ?? result.durationMs;
        expect(end).toBeGreaterThanOrEqual(RUN_MS * 0.95);
        const marks = [0, ...[...completedAt.values()].map((t) => sink.receivedBy(t))];
        marks.sort((a, b) => a - b);
        for (let i = 1; i < marks.length; i++) {
          expect(
            marks[i]! - marks[i - 1]!,
            `records sunk between checkpoints completed at ${marks[i - 1]} and ${marks[i]}`,
          ).toBeLessThanOrEqual(SLICE_RECORDS);
        }
        // The last one (the final checkpoint at the end of input) covers every record.
        expect(marks[marks.length - 1]).toBe(RECORDS);

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
    TEST_TIMEOUT_MS,
  );
});
