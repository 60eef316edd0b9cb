import { describeRecord, userFunctionFailed } from '../../../core/errors.js';
import type { Key } from '../../../core/key-groups.js';
import type { LookupJoinSpec, LookupTable } from '../../../core/lookup.js';
import { Operator } from '../../../core/operator.js';
import type { RecordBatch } from '../../../core/record-batch.js';
import type { Counter } from '../../../metrics/registry.js';
import { LOOKUP_METRICS } from './lookup-join-function.js';

/**
 * A lookup join against a table that answers synchronously (one held in
 * this process): a plain per-record loop, with none of async I/O's
 * bookkeeping, since there is no latency to hide.
 */
export class SyncLookupJoinOperator<T, K extends Key, V, R> extends Operator<T, R> {
  private unmatched!: Counter;
  private table!: LookupTable<K, V>;
  private get!: (key: K) => V | undefined;

  constructor(
    private readonly tableTemplate: LookupTable<K, V>,
    private readonly spec: LookupJoinSpec<T, K, V, R>,
  ) {
    super();
  }

  override open(): void {
    const { operatorId, subtaskIndex, parallelism, metrics, processingTime } = this.context;
    this.table = Object.create(this.tableTemplate) as LookupTable<K, V>;
    this.table.open?.({
      operatorId,
      subtaskIndex,
      parallelism,
      metrics,
      currentProcessingTime: () => processingTime.clock.now(),
    });
    const get = this.table.get!;
    this.get = (key) => get.call(this.table, key);
    this.unmatched = this.context.metrics.counter(
      LOOKUP_METRICS.unmatched,
      'Records an inner lookup join dropped: no row for their key',
    );
  }

  processBatch(batch: RecordBatch<T>): void {
    const { values, timestamps } = batch;
    const { key: keyOf, select } = this.spec;
    const inner = this.spec.join === 'inner';
    const out: R[] = [];
    const outTimes: number[] = [];
    let i = 0;
    try {
      for (; i < values.length; i++) {
        const record = values[i] as T;
        const key = keyOf(record);
        let row: V | undefined;
        if (key !== null && key !== undefined) {
          const type = typeof key;
          if (type !== 'string' && type !== 'number' && type !== 'bigint' && type !== 'boolean') {
            throw new TypeError(
              `its lookup key is ${describeRecord(key)}; keys must be strings, numbers, bigints or booleans`,
            );
          }
          row = this.get(key);
        }
        if (row === undefined) {
          if (inner) {
            this.unmatched.inc();
            continue;
          }
          out.push(select(record, null));
        } else out.push(select(record, row));
        outTimes.push(timestamps[i]!);
      }
    } catch (cause) {
      throw userFunctionFailed(this.context.operatorId, 'lookup join', values[i], cause);
    }
    if (out.length > 0) this.output.emit({ values: out, timestamps: outTimes, keys: undefined });
  }

  override async close(): Promise<void> {
    await this.table?.close?.();
  }
}
