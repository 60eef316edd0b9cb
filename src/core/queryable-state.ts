import { WeirError } from './errors.js';
import type { Key } from './key-groups.js';
import type { Json } from './snapshot.js';

/**
 * What a read of queryable state found for one key: the key's current value
 * as JSON data, nothing (the key has no state), or that the operator does
 * not expose its state.
 */
export type StateQueryAnswer =
  | { readonly kind: 'value'; readonly value: Json }
  | { readonly kind: 'absent' }
  | { readonly kind: 'not-queryable' };

/**
 * A keyed operator whose state can be read by key from outside the job
 * (interactive queries). Called on the operator's thread between two steps
 * of its task, so it sees the state as of a whole batch, never part of one.
 */
export interface QueryableState {
  queryState(key: Key): StateQueryAnswer;
}

/** Whether an operator implements {@link QueryableState}. */
export function isQueryableState(operator: unknown): operator is QueryableState {
  return typeof (operator as Partial<QueryableState>).queryState === 'function';
}

/**
 * A value as queryable state answers it: a JSON copy, so a reader never
 * holds an object the operator goes on changing, and values cross threads
 * as plain data. Fails, naming the operator and key, for a value JSON
 * cannot hold (a bigint, a cycle).
 */
export function stateAnswer(value: unknown, operatorId: string, key: Key): StateQueryAnswer {
  if (value === undefined) return { kind: 'absent' };
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (cause) {
    throw new WeirError(
      'INVALID_ARGUMENT',
      `the state of operator '${operatorId}' for key ${JSON.stringify(String(key))} cannot be written as JSON: ${(cause as Error).message}`,
      { operatorId, cause },
    );
  }
  return text === undefined
    ? { kind: 'absent' }
    : { kind: 'value', value: JSON.parse(text) as Json };
}
