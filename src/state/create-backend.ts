import type { Clock } from '../core/clock.js';
import { invalidArgument } from '../core/errors.js';
import type { StateBackendOptions } from '../core/state-backend.js';
import { DiskKeyedStateBackend } from './disk/disk-keyed-state.js';
import { HeapKeyedStateBackend } from './heap-keyed-state.js';
import type { KeyedStateBackend } from './keyed-state-backend.js';

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

export type { StateBackendOptions };
