import { WeirError } from '../../../core/errors.js';
import type { OperatorContext } from '../../../core/operator.js';
import type { RestoredState } from '../../../core/snapshot.js';
import { createKeyedStateBackend } from '../../../state/create-backend.js';
import type { KeyedStateBackend } from '../../../state/keyed-state-backend.js';

/** The keyed state backend the job configured, for the operator of `context`. */
export function operatorKeyedBackend(context: OperatorContext): KeyedStateBackend {
  return createKeyedStateBackend(context.stateBackend, {
    operatorId: context.operatorId,
    subtaskIndex: context.subtaskIndex,
    maxParallelism: context.maxParallelism,
    clock: context.processingTime.clock,
  });
}

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
  const backend = operatorKeyedBackend(context);
  context.metrics.gauge(
    'weir_state_bytes',
    'Bytes of keyed state held on disk',
    () => backend.storedBytes?.() ?? 0,
  );
  return backend;
}

/**
 * Which kind of backend wrote an operator's restored keyed state, for
 * operators whose heap format is their own: state written with the disk
 * backend declares `stateName`, heap state declares nothing. Undefined when
 * there is none.
 */
export function restoredBackendKind(
  state: RestoredState,
  stateName: string,
): 'heap' | 'disk' | undefined {
  if (state.states?.has(stateName)) return 'disk';
  for (const entries of state.keyed.values()) if (entries.length > 0) return 'heap';
  return undefined;
}

/** State written with the disk backend cannot be restored into the operator's heap format. */
export function diskStateOnHeap(operatorId: string): WeirError {
  return new WeirError(
    'INVALID_JOB',
    `operator '${operatorId}': the snapshot holds its state as written with the disk state backend, but the job uses the heap backend; restore it with stateBackend kind 'disk'`,
    { operatorId },
  );
}
