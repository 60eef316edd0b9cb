import { describeRecord, invalidArgument } from '../core/errors.js';

/**
 * The implementation behind a value typed by a public interface. Methods that
 * take another stream (`union`, `join`, `intervalJoin`, `regularJoin`, ...)
 * receive it as the interface but need its internals (its graph and outputs);
 * any object could imitate the interface, so this checks instead of casting
 * and names the method that got something else.
 */
export function implOf<C extends object>(
  value: unknown,
  cls: abstract new (...args: never[]) => C,
  method: string,
): C {
  if (value instanceof cls) return value;
  throw invalidArgument(
    `${method}() needs a stream built by this environment's API, got ${describeRecord(value)}`,
  );
}
