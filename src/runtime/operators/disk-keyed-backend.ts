import { createKeyedStateBackend } from '../../state/create-backend.js';
import type { KeyedStateBackend } from '../../state/keyed-state-backend.js';
import type { OperatorContext } from '../operator.js';

/**
 * The keyed state backend for an operator that keeps its contents in its own
 * heap structures unless the job uses the disk backend (windows, the rolling
 * reduce): with the disk backend, the contents move into it, so they are on
 * disk and checkpointed incrementally; with the heap backend this returns
 * undefined and the operator keeps its faster structures. The caller
 * disposes the backend in `close`.
 */
export function diskKeyedBackend(context: OperatorContext): KeyedStateBackend | undefined {
  if (context.stateBackend?.kind !== 'disk') return undefined;
  const backend = createKeyedStateBackend(context.stateBackend, {
    operatorId: context.operatorId,
    subtaskIndex: context.subtaskIndex,
    maxParallelism: context.maxParallelism,
    clock: context.processingTime.clock,
  });
  context.metrics.gauge(
    'weir_state_bytes',
    'Bytes of keyed state held on disk',
    () => backend.storedBytes?.() ?? 0,
  );
  return backend;
}
