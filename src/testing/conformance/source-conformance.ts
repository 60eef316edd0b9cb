import { systemClock } from '../../core/clock.js';
import type { Json } from '../../core/snapshot.js';
import type { Source, SourceReader } from '../../core/source.js';
import { MetricRegistry } from '../../metrics/registry.js';
import {
  type ConformanceCheck,
  ConformanceError,
  expectRecords,
  within,
} from './conformance-check.js';

/** A source under test, reading a data set whose records are known. */
export interface SourceSubject<T> {
  /** A source over the data set. Called for every reader; each must see the same data. */
  create(): Source<T> | Promise<Source<T>>;
  /**
   * Every record a full read gives, in order. For an unbounded source: what
   * it gives before it has nothing more to read.
   */
  readonly expected: readonly T[];
  /** Whether records come in the order of `expected`; default true. */
  readonly ordered?: boolean;
  /** A source whose reading must fail (a missing file, an unreachable server), if it can fail. */
  createFailing?(): Source<unknown> | Promise<Source<unknown>>;
  /** Records per batch; default 3, so that there are several batches to resume between. */
  readonly batchSize?: number;
  /** How long a reader may go without a batch; default 15000 ms. */
  readonly timeoutMs?: number;
  /** Unbounded sources: how long a reader must stay quiet after the expected records; default 300 ms. */
  readonly quietMs?: number;
  /** Positions to resume from, spread evenly over the read; default 6. */
  readonly resumePoints?: number;
}

interface Read<T> {
  readonly records: T[];
  /** Positions taken between batches, with the number of records read before each. */
  readonly positions: { readonly after: number; readonly position: Json }[];
}

function contextFor(
  batchSize: number,
  restoredPosition: Json | undefined,
): Parameters<Source<unknown>['createReader']>[0] {
  return {
    subtaskIndex: 0,
    parallelism: 1,
    batchSize,
    clock: systemClock,
    metrics: new MetricRegistry().group({
      job_name: 'conformance',
      operator: 'source',
      subtask: '0',
    }),
    operatorId: 'source',
    restoredPosition,
  };
}

/**
 * Reads until the end (bounded) or until `count` records came and the reader
 * stayed quiet (unbounded), taking a position before the first poll and
 * after every batch when `positions` is set.
 */
async function readFrom<T>(
  subject: SourceSubject<T>,
  restoredPosition: Json | undefined,
  count: number,
  positions: boolean,
): Promise<Read<T>> {
  const source = await subject.create();
  const reader = source.createReader(contextFor(subject.batchSize ?? 3, restoredPosition));
  const timeoutMs = subject.timeoutMs ?? 15_000;
  const read: Read<T> = { records: [], positions: [] };
  const take = () => {
    if (!positions || reader.canSnapshot?.() === false) return;
    if (reader.snapshot === undefined) {
      throw new ConformanceError(
        `${source.name}: the reader has no snapshot(), so it cannot be checkpointed`,
      );
    }
    // Through JSON, as checkpoint storage keeps it.
    const position = JSON.parse(JSON.stringify(reader.snapshot(read.positions.length + 1))) as Json;
    read.positions.push({ after: read.records.length, position });
  };
  try {
    await within(Promise.resolve(reader.open()), timeoutMs, `${source.name}: open()`);
    take();
    for (;;) {
      const result = reader.poll();
      if (result === 'end') {
        if (!source.bounded) {
          throw new ConformanceError(`${source.name}: an unbounded source's reader returned 'end'`);
        }
        await expectEndRepeats(source.name, reader);
        return read;
      }
      if (result === 'wait') {
        if (!source.bounded && read.records.length >= count) {
          await expectQuiet(source.name, reader, subject.quietMs ?? 300);
          return read;
        }
        await within(reader.available(), timeoutMs, `${source.name}: waiting for records`);
        continue;
      }
      read.records.push(...result.values);
      take();
    }
  } finally {
    await reader.close();
  }
}

/** After 'end', polling again keeps giving 'end'. */
async function expectEndRepeats<T>(name: string, reader: SourceReader<T>): Promise<void> {
  for (let i = 0; i < 3; i++) {
    const again = reader.poll();
    if (again !== 'end') {
      throw new ConformanceError(
        `${name}: poll() after 'end' returned ${typeof again === 'string' ? `'${again}'` : `a batch of ${again.values.length}`}, not 'end' again`,
      );
    }
  }
}

/** An unbounded reader that gave everything stays without records for `ms`. */
async function expectQuiet<T>(name: string, reader: SourceReader<T>, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const result = reader.poll();
    if (typeof result === 'object' && result.values.length > 0) {
      throw new ConformanceError(
        `${name}: ${result.values.length} records more than expected, first ${JSON.stringify(result.values[0])}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The checks every source passes: a full read gives the expected records and
 * then ends for good; a reader restored from a position taken between any two
 * batches continues with exactly the next record; reading a source that
 * cannot be read fails instead of ending quietly.
 *
 * @example
 * ```ts
 * for (const check of sourceChecks({ create: () => new ArraySource([1, 2, 3]), expected: [1, 2, 3] }))
 *   it(check.name, () => check.run());
 * ```
 */
export function sourceChecks<T>(subject: SourceSubject<T>): ConformanceCheck[] {
  const ordered = subject.ordered ?? true;
  const count = subject.expected.length;
  const checks: ConformanceCheck[] = [
    {
      name: 'reads every record, then ends and keeps ending',
      run: async () => {
        const { records } = await readFrom(subject, undefined, count, false);
        expectRecords('a full read', records, subject.expected, ordered);
      },
    },
    {
      name: 'resumes from a position between any two batches with exactly the next record',
      run: async () => {
        const full = await readFrom(subject, undefined, count, true);
        expectRecords('the read taking positions', full.records, subject.expected, ordered);
        if (full.positions.length < 2) {
          throw new ConformanceError(
            `only ${full.positions.length} position(s) taken; use more records or smaller batches`,
          );
        }
        const points = Math.min(subject.resumePoints ?? 6, full.positions.length);
        for (let i = 0; i < points; i++) {
          const at =
            full.positions[
              Math.round((i * (full.positions.length - 1)) / Math.max(1, points - 1))
            ]!;
          const rest = await readFrom(subject, at.position, count - at.after, false);
          expectRecords(
            `resumed after ${at.after} records`,
            [...full.records.slice(0, at.after), ...rest.records],
            subject.expected,
            ordered,
          );
        }
      },
    },
  ];
  const createFailing = subject.createFailing;
  if (createFailing !== undefined) {
    checks.push({
      name: 'fails with an error when it cannot read',
      run: async () => {
        const failing: SourceSubject<unknown> = {
          ...subject,
          create: createFailing,
          expected: [],
        };
        let error: unknown;
        try {
          await readFrom(failing, undefined, Number.POSITIVE_INFINITY, false);
        } catch (e) {
          error = e;
        }
        if (error === undefined)
          throw new ConformanceError('reading the failing source ended without an error');
        if (error instanceof ConformanceError) throw error;
      },
    });
  }
  return checks;
}
