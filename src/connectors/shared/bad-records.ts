import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import * as v from 'valibot';
import { describeRecord, WeirError } from '../../core/errors.js';
import type { Counter, MetricGroup } from '../../metrics/registry.js';

/** An input record that could not be read: malformed text, or rejected by a `parse` hook. */
export interface BadRecord {
  /** Path of the file, as the source was given it (or joined with the watched directory). */
  readonly file: string;
  /** 1-based line number where the record starts. */
  readonly line: number;
  /** Why it was rejected. */
  readonly error: string;
  /** The record's text as it appears in the file (without the line terminator), untruncated. */
  readonly text: string;
}

/**
 * Where a file source's bad records go instead of failing the job: a
 * function called once per bad record (synchronously, while reading; if it
 * throws, the job fails), or the path of a file to which each is appended as
 * one JSON line `{"file","line","error","text"}` (the file and its directory
 * are created if missing; the file is flushed when the source closes).
 */
export type DeadLetter = string | ((bad: BadRecord) => void);

/**
 * What a source does with a record it cannot read (malformed text, a
 * deserializer or `parse` hook that throws). The one policy of every
 * connector that decodes records; only the dead-letter destination differs
 * (a file or function for file sources, a topic for Kafka). No policy drops
 * records silently: every bad record fails the job, or is counted in the
 * metric `weir_source_bad_records_total` (and, for a dead letter, handed over).
 *
 * - `'fail'` (the default): the job fails with a {@link WeirError} of code
 *   `BAD_RECORD` whose message names where the record is (file and line,
 *   or topic, partition and offset) and its (truncated) text. Records read
 *   before the bad record are still emitted.
 * - `'skip'`: the record is dropped and counted.
 * - a destination (`{ deadLetter }` for file sources): the record is counted
 *   and handed to the dead letter.
 */
export type BadRecordPolicy<Destination extends object = { readonly deadLetter: DeadLetter }> =
  | 'fail'
  | 'skip'
  | Destination;

/** Name of the counter of bad records (of every policy) of a source. */
export const BAD_RECORDS_METRIC = 'weir_source_bad_records_total';

/** Longest record text shown in a file source's `BAD_RECORD` error message. */
const SHOWN_TEXT_LENGTH = 200;

/**
 * Schema of the `onError` option: `'fail'` (the default), `'skip'`, or the
 * connector's dead-letter destination; `expected` names them in the message.
 */
export function badRecordPolicySchema<D extends v.GenericSchema<object, object>>(
  destination: D,
  expected: string,
) {
  return v.optional(
    v.union([v.literal('fail'), v.literal('skip'), destination], `must be ${expected}`),
    'fail',
  );
}

/** The `onError` option of file sources: `'fail'`, `'skip'` or `{ deadLetter: path | function }`. */
export const fileBadRecordPolicy = badRecordPolicySchema(
  v.custom<{ readonly deadLetter: DeadLetter }>((x) => {
    const target: unknown =
      typeof x === 'object' && x !== null && (x as { deadLetter?: unknown }).deadLetter;
    return typeof target === 'function' || (typeof target === 'string' && target.length > 0);
  }),
  "'fail', 'skip' or { deadLetter: path | function }",
);

/**
 * Counts a source's bad records, in {@link BAD_RECORDS_METRIC}
 * whatever the policy, and says what to do with each.
 */
export class BadRecordCounter<D extends object> {
  private readonly counter: Counter;

  constructor(
    readonly policy: BadRecordPolicy<D>,
    metrics: MetricGroup,
  ) {
    this.counter = metrics.counter(
      BAD_RECORDS_METRIC,
      'Input records that could not be read (failed the job, skipped, or sent to a dead letter)',
    );
  }

  /** Counts one bad record and returns the policy that decides its fate. */
  count(): BadRecordPolicy<D> {
    this.counter.inc();
    return this.policy;
  }
}

/** Where a bad record was found and how to show it, for {@link badRecordError}. */
export interface BadRecordSite {
  /** Where it is, e.g. `file 'a.csv' at line 3`. */
  readonly at: string;
  /** Why it was rejected. */
  readonly reason: string;
  /** What {@link shown} is: `text`, `value`. */
  readonly label: string;
  /** The record, rendered with `describeRecord`. */
  readonly shown: string;
  /** How the source's dead letter is written, for the hint (`a dead letter`, `{ deadLetterTopic }`). */
  readonly deadLetter: string;
  readonly operatorId: string | undefined;
}

/** The error a job fails with under the `'fail'` policy. */
export function badRecordError(site: BadRecordSite): WeirError {
  return new WeirError(
    'BAD_RECORD',
    `bad record in ${site.at}: ${site.reason}; ${site.label}: ${site.shown} ` +
      `(set the source's onError to 'skip' or ${site.deadLetter} to continue past bad records; ` +
      `in SQL, the table's '<format>.ignore-parse-errors' = 'true')`,
    {
      domain: 'user',
      record: site.shown,
      retriable: false,
      ...(site.operatorId ? { operatorId: site.operatorId } : {}),
    },
  );
}

/** The error a file source fails with under the `'fail'` policy. */
export function badFileRecordError(bad: BadRecord, operatorId: string | undefined): WeirError {
  return badRecordError({
    at: `file '${bad.file}' at line ${bad.line}`,
    reason: bad.error,
    label: 'text',
    shown: describeRecord(bad.text, SHOWN_TEXT_LENGTH),
    deadLetter: 'a dead letter',
    operatorId,
  });
}

/** Reason text of anything thrown (with the reasons inside an `AggregateError`). */
export function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    const inner = error.errors.map((e) => reasonOf(e)).join('; ');
    return `${error.message}: ${inner}`;
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * Applies a {@link BadRecordPolicy} for one reader: counts, hands
 * over to the dead letter, or turns the record into the job's failure.
 */
export class BadRecordHandler {
  private readonly counter: BadRecordCounter<{ readonly deadLetter: DeadLetter }>;
  private file: WriteStream | undefined;
  private fileError: unknown;
  private drained: Promise<void> | undefined;

  constructor(
    private readonly policy: BadRecordPolicy,
    metrics: MetricGroup,
    private readonly operatorId: string | undefined,
  ) {
    this.counter = new BadRecordCounter(policy, metrics);
  }

  /** Counts and disposes of a bad record; returns the job's failure under `'fail'`, or if the dead letter fails. */
  handle(bad: BadRecord): WeirError | undefined {
    const policy = this.counter.count();
    if (policy === 'skip') return undefined;
    if (policy === 'fail') return badFileRecordError(bad, this.operatorId);
    const target = policy.deadLetter;
    if (typeof target === 'function') {
      try {
        target(bad);
      } catch (cause) {
        return new WeirError(
          'USER_FUNCTION_FAILED',
          `dead-letter function threw on the bad record at ${bad.file}:${bad.line}: ${reasonOf(cause)}`,
          { cause, domain: 'user', record: describeRecord(bad.text) },
        );
      }
      return undefined;
    }
    return this.append(target, bad);
  }

  /** Resolves once the dead-letter file has room again; undefined when it has room. */
  room(): Promise<void> | undefined {
    return this.drained;
  }

  /** Flushes and closes the dead-letter file, if one was opened. */
  async close(): Promise<void> {
    const file = this.file;
    this.file = undefined;
    if (file === undefined) return;
    if (this.fileError === undefined) {
      await new Promise<void>((resolve, reject) => {
        file.once('error', reject);
        file.end(() => resolve());
      });
    } else {
      file.destroy();
    }
    if (this.fileError !== undefined) throw this.deadLetterFailed(this.fileError);
  }

  private append(path: string, bad: BadRecord): WeirError | undefined {
    if (this.fileError !== undefined) return this.deadLetterFailed(this.fileError);
    if (this.file === undefined) {
      try {
        mkdirSync(dirname(path), { recursive: true });
      } catch (cause) {
        this.fileError = cause;
        return this.deadLetterFailed(cause);
      }
      const file = createWriteStream(path, { flags: 'a', encoding: 'utf8' });
      file.on('error', (cause) => {
        this.fileError ??= cause;
      });
      this.file = file;
    }
    const line = `${JSON.stringify({ file: bad.file, line: bad.line, error: bad.error, text: bad.text })}\n`;
    const file = this.file;
    if (!file.write(line) && this.drained === undefined) {
      this.drained = new Promise<void>((resolve) => {
        const done = () => {
          file.off('drain', done);
          file.off('close', done);
          this.drained = undefined;
          resolve();
        };
        file.on('drain', done);
        file.on('close', done);
      });
    }
    return undefined;
  }

  private deadLetterFailed(cause: unknown): WeirError {
    const target = typeof this.policy === 'object' ? this.policy.deadLetter : '';
    return new WeirError(
      'SOURCE_FAILED',
      `cannot write to the dead-letter file '${String(target)}': ${reasonOf(cause)}`,
      { cause, domain: 'external', retriable: true },
    );
  }
}
