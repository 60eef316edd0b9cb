import type { ValueState, ValueStateDescriptor } from '../core/state.js';

/**
 * The value states an operator's functions declared `queryable` (their values can be read by
 * key from outside the job, see `ValueStateDescriptor.queryable`), by name, in declaration
 * order. Each keyed state backend keeps one.
 */
export class QueryableValueStates {
  private readonly byName = new Map<string, ValueState<unknown>>();

  /** Records `handle` if `descriptor` asks to be queryable. */
  note<T>(descriptor: string | ValueStateDescriptor<T>, handle: ValueState<T>): ValueState<T> {
    if (typeof descriptor === 'object' && descriptor.queryable === true)
      this.byName.set(descriptor.name, handle as ValueState<unknown>);
    return handle;
  }

  get size(): number {
    return this.byName.size;
  }

  entries(): IterableIterator<[string, ValueState<unknown>]> {
    return this.byName.entries();
  }
}
