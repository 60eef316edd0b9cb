/**
 * What the CLI reports about a running job, live: throughput, event time and
 * the last checkpoint. Sampled from the job's metrics and monitor; rendered
 * as the terminal's status line or as a JSON status record.
 */
import type { JobClient } from '../index.js';
import type { CheckpointEntry } from '../runtime/job/checkpoint-history.js';
import { formatClock, formatCount, formatDuration } from './format.js';
import { RateMeter } from './rate-meter.js';

const SOURCE_RECORDS = 'weir_source_records_total';

export interface JobStatusSample {
  /** Since the CLI started the job. */
  readonly elapsedMs: number;
  readonly recordsRead: number;
  /** Records read per second over the last second. */
  readonly eventsPerSecond: number;
  /** Event time of the job's output (epoch ms); -Infinity before the first watermark. */
  readonly watermark: number;
  /** Wall clock minus the watermark; undefined without a finite watermark. */
  readonly watermarkLagMs: number | undefined;
  readonly lastCheckpoint: CheckpointEntry | undefined;
}

/** Samples a job's status; the rate is computed between consecutive samples. */
export class JobStatusSampler {
  private readonly meter = new RateMeter();
  private readonly started = performance.now();

  constructor(private readonly client: JobClient) {
    this.meter.sample(0, this.started);
  }

  sample(): JobStatusSample {
    const now = performance.now();
    const recordsRead = this.client.metrics.total(SOURCE_RECORDS);
    const watermark = this.client.monitor.watermark();
    return {
      elapsedMs: now - this.started,
      recordsRead,
      eventsPerSecond: this.meter.sample(recordsRead, now),
      watermark,
      watermarkLagMs: Number.isFinite(watermark) ? Date.now() - watermark : undefined,
      lastCheckpoint: this.client.monitor.lastCheckpoint(),
    };
  }
}

/** The live status line: "● job · 0:12 · 12,345 events/s · watermark 14:03:27.4 (lag 0.6 s) · checkpoint #4 2 s ago". */
export function statusLineText(jobName: string, s: JobStatusSample, now = Date.now()): string {
  const watermark =
    s.watermark === Number.POSITIVE_INFINITY
      ? 'watermark at end of input'
      : s.watermarkLagMs === undefined
        ? 'no watermark'
        : `watermark ${formatClock(s.watermark, true)} (lag ${formatDuration(s.watermarkLagMs)})`;
  const checkpoint =
    s.lastCheckpoint?.completedAt === undefined
      ? 'no checkpoint'
      : `checkpoint #${s.lastCheckpoint.id} ${formatDuration(now - s.lastCheckpoint.completedAt)} ago`;
  return [
    `● ${jobName}`,
    formatDuration(s.elapsedMs),
    `${formatCount(s.eventsPerSecond)} events/s`,
    watermark,
    checkpoint,
    'Ctrl-C to stop',
  ].join(' · ');
}

/** The fields of a JSON status record. */
export function statusFields(s: JobStatusSample): Record<string, unknown> {
  const cp = s.lastCheckpoint;
  return {
    elapsedMs: Math.round(s.elapsedMs),
    recordsRead: s.recordsRead,
    eventsPerSecond: Math.round(s.eventsPerSecond),
    watermark: s.watermarkLagMs === undefined ? null : new Date(s.watermark).toISOString(),
    watermarkLagMs: s.watermarkLagMs === undefined ? null : Math.round(s.watermarkLagMs),
    lastCheckpoint: cp === undefined ? null : checkpointFields(cp),
  };
}

export function checkpointFields(cp: CheckpointEntry): Record<string, unknown> {
  return {
    id: cp.id,
    kind: cp.kind,
    completedAt: cp.completedAt === undefined ? null : new Date(cp.completedAt).toISOString(),
    durationMs: cp.durationMs ?? null,
    sizeBytes: cp.sizeBytes ?? null,
    alignmentMs: cp.alignmentMs,
  };
}
