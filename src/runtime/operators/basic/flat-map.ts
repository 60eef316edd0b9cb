import { userFunctionFailed } from '../../../core/errors.js';
import type { Collector } from '../../../core/functions.js';
import { Operator } from '../../../core/operator.js';
import type { RecordBatch } from '../../../core/record-batch.js';
import type { FusibleOperator, StatelessStep } from './fused-run.js';

/** Zero or more outputs per input, each with the input's timestamp. */
export class FlatMapOperator<IN, OUT>
  extends Operator<IN, OUT>
  implements Collector<OUT>, FusibleOperator
{
  private values: OUT[] = [];
  private timestamps: number[] = [];
  private currentTimestamp = 0;

  constructor(private readonly fn: (value: IN, out: Collector<OUT>) => void) {
    super();
  }

  collect(value: OUT): void {
    this.values.push(value);
    this.timestamps.push(this.currentTimestamp);
  }

  statelessStep(): StatelessStep {
    return {
      kind: 'flat-map',
      fn: this.fn as (value: unknown, out: Collector<unknown>) => void,
    };
  }

  processBatch(batch: RecordBatch<IN>): void {
    const { values, timestamps } = batch;
    let i = 0;
    try {
      for (; i < values.length; i++) {
        this.currentTimestamp = timestamps[i]!;
        this.fn(values[i] as IN, this);
      }
    } catch (cause) {
      throw userFunctionFailed(this.context.operatorId, 'flatMap function', values[i], cause);
    }
    if (this.values.length > 0) {
      const out = { values: this.values, timestamps: this.timestamps, keys: undefined };
      this.values = [];
      this.timestamps = [];
      this.output.emit(out);
    }
  }
}
