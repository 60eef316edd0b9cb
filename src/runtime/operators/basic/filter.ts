import { userFunctionFailed } from '../../../core/errors.js';
import { Operator } from '../../../core/operator.js';
import type { RecordBatch } from '../../../core/record-batch.js';
import type { FusibleOperator, StatelessStep } from './fused-run.js';

/** Keeps the records for which the predicate holds, with their timestamps and keys. */
export class FilterOperator<T> extends Operator<T, T> implements FusibleOperator {
  constructor(private readonly predicate: (value: T) => boolean) {
    super();
  }

  statelessStep(): StatelessStep {
    return { kind: 'filter', fn: this.predicate as (value: unknown) => boolean };
  }

  processBatch(batch: RecordBatch<T>): void {
    const { values, timestamps, keys } = batch;
    const n = values.length;
    const outValues: T[] = [];
    const outTimestamps: number[] = [];
    const outKeys: unknown[] | undefined = keys === undefined ? undefined : [];
    const predicate = this.predicate;
    let i = 0;
    try {
      for (; i < n; i++) {
        if (predicate(values[i] as T)) {
          outValues.push(values[i] as T);
          outTimestamps.push(timestamps[i]!);
          outKeys?.push(keys![i]);
        }
      }
    } catch (cause) {
      throw userFunctionFailed(this.context.operatorId, 'filter predicate', values[i], cause);
    }
    if (outValues.length === n) this.output.emit(batch);
    else if (outValues.length > 0) {
      this.output.emit({ values: outValues, timestamps: outTimestamps, keys: outKeys });
    }
  }
}
