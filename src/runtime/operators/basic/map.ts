import { userFunctionFailed } from '../../../core/errors.js';
import { Operator } from '../../../core/operator.js';
import type { RecordBatch } from '../../../core/record-batch.js';
import type { FusibleOperator, StatelessStep } from './fused-run.js';

/** One output per input. Keeps the batch's timestamps; drops keys (the value changed). */
export class MapOperator<IN, OUT> extends Operator<IN, OUT> implements FusibleOperator {
  constructor(private readonly fn: (value: IN) => OUT) {
    super();
  }

  statelessStep(): StatelessStep {
    return { kind: 'map', fn: this.fn as (value: unknown) => unknown };
  }

  processBatch(batch: RecordBatch<IN>): void {
    const { values } = batch;
    const n = values.length;
    const out = new Array<OUT>(n);
    const fn = this.fn;
    let i = 0;
    try {
      for (; i < n; i++) out[i] = fn(values[i] as IN);
    } catch (cause) {
      throw userFunctionFailed(this.context.operatorId, 'map function', values[i], cause);
    }
    this.output.emit({ values: out, timestamps: batch.timestamps, keys: undefined });
  }
}
