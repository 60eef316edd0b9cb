import { userFunctionFailed, WeirError } from '../../../core/errors.js';
import type {
  KeyedTimerService,
  ProcessContext,
  ProcessFunction,
} from '../../../core/functions.js';
import { MIN_WATERMARK } from '../../../core/messages.js';
import { Operator } from '../../../core/operator.js';
import type { OutputTag } from '../../../core/output-tag.js';
import type { RecordBatch } from '../../../core/record-batch.js';
import type { OperatorSnapshot, RestoredState } from '../../../core/snapshot.js';
import { HeapOperatorStateStore } from '../../../state/operator-state.js';
import { Emitter } from './emitter.js';

interface MutableProcessContext extends ProcessContext {
  timestamp: number;
}

/** Runs a non-keyed process function over every record. */
export class ProcessOperator<IN, OUT> extends Operator<IN, OUT> {
  private watermark = MIN_WATERMARK;
  protected emitter!: Emitter<OUT>;
  protected readonly fn: ProcessFunction<IN, OUT>;
  protected readonly ctx: MutableProcessContext;

  constructor(fn: ProcessFunction<IN, OUT>) {
    super();
    // One instance per subtask: fields the function sets in `open` stay per subtask.
    this.fn = Object.create(fn) as ProcessFunction<IN, OUT>;
    const noTimers = (): never => {
      throw timersNeedKeys(this.context.operatorId);
    };
    // Typed without the register methods; these answer a call made anyway (from JavaScript, or through a cast).
    const timerService: KeyedTimerService = {
      currentWatermark: () => this.watermark,
      currentProcessingTime: () => this.context.processingTime.clock.now(),
      registerEventTimeTimer: noTimers,
      deleteEventTimeTimer: noTimers,
      registerProcessingTimeTimer: noTimers,
      deleteProcessingTimeTimer: noTimers,
    };
    this.ctx = {
      timestamp: 0,
      timerService,
      output: <S>(tag: OutputTag<S>, value: S) => this.emitter.side(tag, value),
    };
  }

  private operatorState: HeapOperatorStateStore | undefined;
  private restored: RestoredState | undefined;

  override initializeState(state: RestoredState): void {
    this.restored = state;
  }

  override open(): void {
    this.emitter = new Emitter(this.output);
    const operatorState = new HeapOperatorStateStore(this.context.operatorId);
    if (this.restored !== undefined) operatorState.restore(this.restored);
    this.restored = undefined;
    this.operatorState = operatorState;
    this.fn.open?.({
      operatorId: this.context.operatorId,
      subtaskIndex: this.context.subtaskIndex,
      parallelism: this.context.parallelism,
      operatorState,
      metrics: this.context.metrics,
    });
  }

  override snapshotState(): OperatorSnapshot | undefined {
    return this.operatorState?.snapshot();
  }

  processBatch(batch: RecordBatch<IN>): void {
    const { values, timestamps } = batch;
    const { emitter, ctx } = this;
    let i = 0;
    try {
      for (; i < values.length; i++) {
        ctx.timestamp = emitter.timestamp = timestamps[i]!;
        this.fn.processElement(values[i] as IN, ctx, emitter);
      }
    } catch (cause) {
      throw userFunctionFailed(this.context.operatorId, 'process function', values[i], cause);
    }
    emitter.flush();
  }

  override processWatermark(time: number): void {
    this.watermark = time;
    this.output.emitWatermark(time);
  }

  override close(): void {
    this.fn.close?.();
  }
}

/** As in Flink, timers need keyed state to belong to: a non-keyed process function has none. */
function timersNeedKeys(operatorId: string): WeirError {
  return new WeirError(
    'INVALID_JOB',
    'timers are only supported on keyed streams: key the input with keyBy(...), or both inputs of connect(other) with keyBy(key1, key2)',
    { operatorId, domain: 'user', restartable: false },
  );
}
