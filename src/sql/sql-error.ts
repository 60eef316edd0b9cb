/** Errors of the SQL layer: every one names where in the script it arose. */
import { WeirError } from '../core/errors.js';

/** A place in a SQL script (1-based line and column). */
export interface SourcePosition {
  readonly line: number;
  readonly column: number;
}

/**
 * A syntax error, a reference to something unknown, a type error or a feature Weir SQL does
 * not support yet. The message starts with `line L, column C:` when the place is known.
 */
export class SqlError extends WeirError {
  constructor(
    readonly reason: string,
    readonly position: SourcePosition | undefined,
  ) {
    super(
      'INVALID_JOB',
      position === undefined
        ? reason
        : `line ${position.line}, column ${position.column}: ${reason}`,
    );
    this.name = 'SqlError';
  }
}

/** Throws a {@link SqlError} at `position`. */
export function sqlError(reason: string, position?: SourcePosition): never {
  throw new SqlError(reason, position);
}
