import { userFunctionFailed } from '../../errors.js';
import {
  decodeKey,
  encodeKey,
  type Json,
  KeyedSnapshotBuilder,
  type OperatorSnapshot,
  type RestoredState,
  restoredEntries,
} from '../../state/snapshot.js';
import type { Key } from '../key-groups.js';
import { Operator, type SnapshotContext } from '../operator.js';
import type { RecordBatch } from '../record-batch.js';
import { missingKeys } from './keyed-process.js';

/** Keyed running reduction: emits the updated reduction for every record. */
export class RollingReduceOperator<T> extends Operator<T, T> {
  private readonly current = new Map<Key, T>();

  constructor(private readonly reduce: (a: T, b: T) => T) {
    super();
  }

  override initializeState(state: RestoredState): void {
    for (const entry of restoredEntries(state)) {
      const [key, value] = entry as [Json, Json];
      this.current.set(decodeKey(key), value as T);
    }
  }

  /** Reduced values are stored as JSON: they must be JSON data. */
  override snapshotState(context: SnapshotContext): OperatorSnapshot {
    const keyed = new KeyedSnapshotBuilder(context.keyGroupOf);
    for (const [key, value] of this.current) keyed.add(key, [encodeKey(key), value as Json]);
    return { keyed: keyed.build() };
  }

  override open(): void {
    this.context.metrics.gauge(
      'weir_state_entries',
      'Keyed state entries held',
      () => this.current.size,
    );
  }

  processBatch(batch: RecordBatch<T>): void {
    const { values, keys } = batch;
    if (keys === undefined) throw missingKeys(this.context.operatorId);
    const out = new Array<T>(values.length);
    let i = 0;
    try {
      for (; i < values.length; i++) {
        const key = keys[i] as Key;
        const prev = this.current.get(key);
        const next = prev === undefined ? (values[i] as T) : this.reduce(prev, values[i] as T);
        this.current.set(key, next);
        out[i] = next;
      }
    } catch (cause) {
      throw userFunctionFailed(this.context.operatorId, 'reduce function', values[i], cause);
    }
    this.output.emit({ values: out, timestamps: batch.timestamps, keys });
  }
}
