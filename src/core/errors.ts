/**
 * Every error Weir raises on purpose is a {@link WeirError}: it carries a stable
 * `code`, who is at fault (`domain`), and, where known, the operator and record
 * involved, so a failing job always says where and on what it failed.
 */
export type ErrorDomain = 'user' | 'external' | 'internal';

export type WeirErrorCode =
  | 'INVALID_ARGUMENT'
  | 'INVALID_JOB'
  | 'USER_FUNCTION_FAILED'
  | 'INVALID_TIMESTAMP'
  | 'BAD_RECORD'
  | 'SOURCE_FAILED'
  | 'SINK_FAILED'
  | 'JOB_CANCELLED'
  | 'ASYNC_TIMEOUT'
  | 'LOOKUP_FAILED'
  | 'CHECKPOINT_DAMAGED'
  | 'CHECKPOINT_DIRECTORY_IN_USE'
  | 'CHECKPOINT_STORAGE_FAILED'
  | 'PROCESS_GROUP_FAILED'
  | 'INTERNAL';

export interface WeirErrorDetails {
  readonly domain?: ErrorDomain;
  /** The `uid` of the operator that failed, when the failure is inside one. */
  readonly operatorId?: string;
  /** A short, printable rendering of the record being processed. */
  readonly record?: string;
  readonly cause?: unknown;
  /** Whether retrying the same work may succeed (an outage) or not (bad data, a bug). */
  readonly retriable?: boolean;
  /**
   * False when restarting the job cannot succeed: what the restored checkpoint depends on is
   * gone (a sink's sealed output, removed or cut short). The job then fails at once, whatever
   * its restart strategy. Default true.
   */
  readonly restartable?: boolean;
}

/** Base class of all errors raised by Weir itself. */
export class WeirError extends Error {
  readonly code: WeirErrorCode;
  readonly domain: ErrorDomain;
  readonly operatorId: string | undefined;
  readonly record: string | undefined;
  readonly retriable: boolean;
  /** False: no restart is tried after this failure (see {@link WeirErrorDetails.restartable}). */
  readonly restartable: boolean;

  constructor(code: WeirErrorCode, message: string, details: WeirErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'WeirError';
    this.code = code;
    this.domain = details.domain ?? 'user';
    this.operatorId = details.operatorId;
    this.record = details.record;
    this.retriable = details.retriable ?? false;
    this.restartable = details.restartable ?? true;
  }
}

/**
 * Whether a job may restart after `error`: not when it, or an error it was caused by, says
 * it is not restartable (a wrapper keeps the verdict of what it wraps).
 */
export function isRestartable(error: unknown): boolean {
  let e: unknown = error;
  for (let depth = 0; depth < 16 && typeof e === 'object' && e !== null; depth++) {
    if ((e as { restartable?: unknown }).restartable === false) return false;
    e = (e as { cause?: unknown }).cause;
  }
  return true;
}

/** Renders a record for an error message: bounded length, never throws. */
export function describeRecord(value: unknown, maxLength = 200): string {
  let text: string;
  try {
    text =
      typeof value === 'string'
        ? JSON.stringify(value)
        : typeof value === 'bigint'
          ? `${value}n`
          : (JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)) ??
            String(value));
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length > maxLength ? `${text.slice(0, maxLength)}…` : text;
}

/** Wraps an exception thrown by user code so the job failure names the operator and record. */
export function userFunctionFailed(
  operatorId: string,
  what: string,
  record: unknown,
  cause: unknown,
): WeirError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  const shown = describeRecord(record);
  return new WeirError(
    'USER_FUNCTION_FAILED',
    `${what} in operator '${operatorId}' threw on record ${shown}: ${reason}`,
    { operatorId, record: shown, cause, domain: 'user' },
  );
}

export function invalidArgument(message: string): WeirError {
  return new WeirError('INVALID_ARGUMENT', message);
}
