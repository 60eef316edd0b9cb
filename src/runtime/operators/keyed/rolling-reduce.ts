import { userFunctionFailed } from '../../../core/errors.js';
import type { Key } from '../../../core/key-groups.js';
import {
  Operator,
  type OperatorContext,
  type Output,
  type SnapshotContext,
} from '../../../core/operator.js';
import {
  type QueryableState,
  type StateQueryAnswer,
  stateAnswer,
} from '../../../core/queryable-state.js';
import type { RecordBatch } from '../../../core/record-batch.js';
import {
  decodeKey,
  encodeKey,
  type Json,
  KeyedSnapshotBuilder,
  type OperatorSnapshot,
  type RestoredState,
  restoredEntries,
} from '../../../core/snapshot.js';
import type { ValueState } from '../../../core/state.js';
import type { KeyedStateBackend } from '../../../state/keyed-state-backend.js';
import { diskKeyedBackend, diskStateOnHeap, restoredBackendKind } from './disk-keyed-backend.js';
import { missingKeys } from './keyed-process.js';

/** Keyed state holding each key's reduction when the job uses the disk backend. */
const REDUCED_STATE = '__weir.reduced';

/**
 * Keyed running reduction: emits the updated reduction for every record.
 * Reductions are a map on the heap, snapshotted whole (`[key, value]`
 * entries), or, when the job uses the disk backend, its value state
 * `__weir.reduced`, checkpointed incrementally.
 */
export class RollingReduceOperator<T> extends Operator<T, T> implements QueryableState {
  private readonly current = new Map<Key, T>();
  private backend: KeyedStateBackend | undefined;
  private reduced: ValueState<T> | undefined;

  constructor(
    private readonly reduce: (a: T, b: T) => T,
    /** Whether the job opted in to reading reductions by key (`reduce(fn, { queryable: true })`). */
    private readonly queryable = false,
  ) {
    super();
  }

  /** The key's current reduction; between batches, so never a half-applied one. */
  queryState(key: Key): StateQueryAnswer {
    if (!this.queryable) return { kind: 'not-queryable' };
    const { backend, reduced } = this;
    if (backend === undefined || reduced === undefined)
      return stateAnswer(this.current.get(key), this.context.operatorId, key);
    const previous = backend.currentKey;
    backend.currentKey = key;
    try {
      return stateAnswer(reduced.value(), this.context.operatorId, key);
    } finally {
      backend.currentKey = previous;
    }
  }

  override setup(context: OperatorContext, output: Output<T>): void {
    super.setup(context, output);
    this.backend = diskKeyedBackend(context);
    this.reduced = this.backend?.getValueState<T>(REDUCED_STATE);
  }

  override initializeState(state: RestoredState): void {
    const written = restoredBackendKind(state, REDUCED_STATE);
    const { backend, reduced } = this;
    if (written === 'disk') {
      if (backend === undefined) throw diskStateOnHeap(this.context.operatorId);
      backend.restore(state);
      return;
    }
    for (const entry of restoredEntries(state)) {
      const [key, value] = entry as [Json, Json];
      if (backend === undefined) this.current.set(decodeKey(key), value as T);
      else {
        // Written with the heap backend (or before the reduce used the disk one): taken over.
        backend.currentKey = decodeKey(key);
        reduced!.update(value as T);
      }
    }
    if (backend !== undefined) backend.currentKey = undefined;
  }

  /** Reduced values are stored as JSON: they must be JSON data. */
  override snapshotState(context: SnapshotContext): OperatorSnapshot {
    if (this.backend !== undefined) {
      return this.backend.snapshot({
        checkpointId: context.checkpointId,
        keyGroupOf: context.keyGroupOf,
        kind: context.kind,
      });
    }
    const keyed = new KeyedSnapshotBuilder(context.keyGroupOf);
    for (const [key, value] of this.current) keyed.add(key, [encodeKey(key), value as Json]);
    return { keyed: keyed.build() };
  }

  override notifyCheckpointComplete(checkpointId: number): void {
    this.backend?.notifyCheckpointComplete(checkpointId);
  }

  override open(): void {
    const backend = this.backend;
    this.context.metrics.gauge('weir_state_entries', 'Keyed state entries held', () =>
      backend === undefined ? this.current.size : backend.entryCount(),
    );
  }

  processBatch(batch: RecordBatch<T>): void {
    const { values, keys } = batch;
    if (keys === undefined) throw missingKeys(this.context.operatorId);
    const out = new Array<T>(values.length);
    const { backend, reduced } = this;
    let i = 0;
    try {
      if (backend !== undefined && reduced !== undefined) {
        for (; i < values.length; i++) {
          backend.currentKey = keys[i] as Key;
          const prev = reduced.value();
          const next = prev === undefined ? (values[i] as T) : this.reduce(prev, values[i] as T);
          reduced.update(next);
          out[i] = next;
        }
        backend.currentKey = undefined;
      } else {
        for (; i < values.length; i++) {
          const key = keys[i] as Key;
          const prev = this.current.get(key);
          const next = prev === undefined ? (values[i] as T) : this.reduce(prev, values[i] as T);
          this.current.set(key, next);
          out[i] = next;
        }
      }
    } catch (cause) {
      throw userFunctionFailed(this.context.operatorId, 'reduce function', values[i], cause);
    }
    this.output.emit({ values: out, timestamps: batch.timestamps, keys });
  }

  override close(): void {
    this.backend?.dispose();
  }
}
