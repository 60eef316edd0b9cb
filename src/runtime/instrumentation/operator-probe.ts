/**
 * Per operator subtask instrumentation on the hot path: records in, the
 * current input watermark, and (at sinks) a sampled end-to-end latency. Every
 * method runs once per batch or per watermark, never per record, and
 * allocates nothing.
 */
import type { Clock } from '../../core/clock.js';
import type { Output } from '../../core/operator.js';
import type { RecordBatch } from '../../core/record-batch.js';
import { type Histogram, LATENCY_BUCKETS_SECONDS } from '../../metrics/histogram.js';
import type { Counter, RegistryGroup } from '../../metrics/registry.js';
import type { StepTimer } from './step-timer.js';

/** Observes what enters an operator. Called by the task (head operators) or the chain. */
export interface InputObserver {
  /** A non-empty batch is about to be processed. */
  onBatch(batch: RecordBatch<unknown>): void;
  /** The operator's (merged) input watermark advanced. */
  onWatermark(time: number): void;
}

/** What an operator is, for the metrics it gets. */
export type OperatorRole = 'source' | 'operator' | 'sink';

/** Metric names registered per operator subtask; see docs/observability.md. */
export const OPERATOR_METRICS = {
  recordsIn: 'weir_operator_records_in_total',
  recordsOut: 'weir_operator_records_out_total',
  inputWatermark: 'weir_operator_input_watermark_timestamp_seconds',
  watermarkLag: 'weir_operator_watermark_lag_seconds',
  busyRatio: 'weir_operator_busy_ratio',
  idleRatio: 'weir_operator_idle_ratio',
  backpressuredRatio: 'weir_operator_backpressured_ratio',
  latency: 'weir_end_to_end_latency_seconds',
} as const;

/** The instrumentation of one operator subtask. */
export class OperatorProbe implements InputObserver {
  /** Epoch ms; -Infinity before the first watermark, +Infinity after the end of input. */
  inputWatermark = Number.NEGATIVE_INFINITY;
  private readonly recordsIn: Counter | undefined;
  private readonly latency: Histogram | undefined;

  constructor(
    metrics: RegistryGroup,
    private readonly clock: Clock,
    role: OperatorRole,
    timer: StepTimer | undefined,
  ) {
    if (role !== 'source') {
      this.recordsIn = metrics.counter(OPERATOR_METRICS.recordsIn, 'Records received');
      metrics.gauge(
        OPERATOR_METRICS.inputWatermark,
        'Current input watermark (event time, seconds since the epoch; -Inf before the first)',
        () => this.inputWatermark / 1000,
      );
      metrics.gauge(
        OPERATOR_METRICS.watermarkLag,
        'Wall clock minus the current input watermark (NaN without a finite watermark)',
        () => this.watermarkLagMs() / 1000,
      );
    }
    if (role === 'sink') {
      this.latency = metrics.histogram(
        OPERATOR_METRICS.latency,
        'Wall clock at the sink minus the event time of a record, sampled once per batch',
        LATENCY_BUCKETS_SECONDS,
      );
    }
    if (timer !== undefined) {
      metrics.gauge(
        OPERATOR_METRICS.busyRatio,
        "Share of the last second the operator's task spent working",
        () => timer.shares().busy,
      );
      metrics.gauge(
        OPERATOR_METRICS.idleRatio,
        "Share of the last second the operator's task had nothing to do or waited for its turn",
        () => timer.shares().idle,
      );
      metrics.gauge(
        OPERATOR_METRICS.backpressuredRatio,
        "Share of the last second the operator's task was held up by full output channels or a flushing sink",
        () => timer.shares().backpressured,
      );
    }
  }

  onBatch(batch: RecordBatch<unknown>): void {
    const n = batch.values.length;
    this.recordsIn?.inc(n);
    const latency = this.latency;
    if (latency !== undefined) {
      const t = batch.timestamps[n - 1];
      if (t !== undefined && Number.isFinite(t)) {
        const delay = this.clock.now() - t;
        latency.observe(delay > 0 ? delay / 1000 : 0);
      }
    }
  }

  /** `n` records entered the operator inside a fused run (no batch of their own). */
  countIn(n: number): void {
    this.recordsIn?.inc(n);
  }

  onWatermark(time: number): void {
    this.inputWatermark = time;
  }

  /** Wall clock minus the input watermark in ms; NaN without a finite watermark. */
  watermarkLagMs(): number {
    const w = this.inputWatermark;
    return Number.isFinite(w) ? this.clock.now() - w : Number.NaN;
  }
}

/** The parts of an operator a chain calls. */
export interface ChainTarget<T> {
  processBatch(batch: RecordBatch<T>): void;
  processWatermark(time: number): void;
  processIdle(): void;
  endInput(): void;
  endOutput(): void;
}

/**
 * The output feeding the next operator of a chain directly (like the
 * runtime's `ChainedOutput`), telling the observer what passes.
 */
export class ObservedChainedOutput<T> implements Output<T> {
  constructor(
    private readonly next: ChainTarget<T>,
    private readonly observer: InputObserver,
  ) {}

  emit(batch: RecordBatch<T>): void {
    if (batch.values.length === 0) return;
    this.observer.onBatch(batch);
    this.next.processBatch(batch);
  }
  emitWatermark(time: number): void {
    this.observer.onWatermark(time);
    this.next.processWatermark(time);
  }
  emitIdle(): void {
    this.next.processIdle();
  }
  emitSide(): void {
    throw new Error('side outputs are routed by OperatorOutput, not by a chained input');
  }
  end(): void {
    this.next.endInput();
    this.next.endOutput();
  }
}
