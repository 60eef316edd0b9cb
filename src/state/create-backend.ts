import { invalidArgument } from '../errors.js';
import type { Clock } from '../runtime/clock.js';
import { type DiskBackendOptions, DiskKeyedStateBackend } from './disk/disk-keyed-state.js';
import { type HeapBackendOptions, HeapKeyedStateBackend } from './heap-keyed-state.js';
import type { KeyedStateBackend } from './keyed-state-backend.js';

/**
 * Which keyed state backend a job uses, and its settings. `heap` (the
 * default) keeps state as objects in memory and snapshots it whole; `disk`
 * keeps it in an embedded LMDB database per operator subtask, for state
 * larger than memory, with incremental checkpoints.
 */
export type StateBackendOptions =
  | ({ readonly kind: 'heap' } & Omit<HeapBackendOptions, 'clock'>)
  | ({ readonly kind: 'disk' } & Omit<DiskBackendOptions, 'clock' | 'store'>);

/** Where a backend runs: passed by the operator that owns it. */
export interface StateBackendContext {
  readonly operatorId: string;
  readonly subtaskIndex: number;
  readonly maxParallelism: number;
  /** Processing time, for state TTL. */
  readonly clock: Clock;
}

/** Creates the keyed state backend of one operator subtask; the caller disposes it in `close`. */
export function createKeyedStateBackend(
  options: StateBackendOptions | undefined,
  context: StateBackendContext,
): KeyedStateBackend {
  const o = options ?? { kind: 'heap' };
  switch (o.kind) {
    case 'heap':
      return new HeapKeyedStateBackend(context.operatorId, { ...o, clock: context.clock });
    case 'disk':
      return new DiskKeyedStateBackend(
        context.operatorId,
        context.subtaskIndex,
        context.maxParallelism,
        { ...o, clock: context.clock },
      );
    default:
      throw invalidArgument(
        `unknown state backend kind '${String((o as { kind: unknown }).kind)}'; use 'heap' or 'disk'`,
      );
  }
}
