/** One conformance check: a name to report it under, and the check itself. */
export interface ConformanceCheck {
  readonly name: string;
  /** Resolves when the implementation passes; rejects with a {@link ConformanceError} saying what differs. */
  run(): Promise<void>;
}

/** An implementation broke a rule of its contract; the message says which and how. */
export class ConformanceError extends Error {
  override readonly name = 'ConformanceError';
}

/** Records as text, in order or as a sorted multiset, for comparison and messages. */
export function render(records: readonly unknown[], ordered: boolean): string[] {
  const lines = records.map((r) => (r === undefined ? 'undefined' : JSON.stringify(r)));
  return ordered ? lines : lines.sort();
}

/** Throws a {@link ConformanceError} unless `actual` and `expected` hold the same records. */
export function expectRecords(
  what: string,
  actual: readonly unknown[],
  expected: readonly unknown[],
  ordered: boolean,
): void {
  const a = render(actual, ordered);
  const e = render(expected, ordered);
  if (a.length === e.length && a.every((line, i) => line === e[i])) return;
  const at = a.findIndex((line, i) => line !== e[i]);
  const first = at === -1 ? Math.min(a.length, e.length) : at;
  throw new ConformanceError(
    `${what}: expected ${e.length} records, got ${a.length}; first difference at ${ordered ? 'index' : 'sorted index'} ${first}: expected ${e[first] ?? '(none)'}, got ${a[first] ?? '(none)'}`,
  );
}

/** `promise`, or a {@link ConformanceError} after `ms` milliseconds. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ConformanceError(`${what}: no progress in ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
