import type { RecordBatch } from '../../core/record-batch.js';
import {
  isTwoPhaseCommit,
  type Sink,
  type SinkContext,
  type SinkWriter,
  type TwoPhaseCommitWriter,
} from '../../core/sink.js';
import type { Json } from '../../core/snapshot.js';
import { MetricRegistry } from '../../metrics/registry.js';
import {
  type ConformanceCheck,
  ConformanceError,
  expectRecords,
  within,
} from './conformance-check.js';

/** A sink under test, writing to a destination the test can read. */
export interface SinkSubject<T, S extends Sink<T> = Sink<T>> {
  /** A sink writing to an empty destination, new for every check. */
  create(): S | Promise<S>;
  /** Records to write. */
  readonly records: readonly T[];
  /**
   * Records become visible only when their checkpoint commits (exactly-once
   * through {@link TwoPhaseCommitWriter}): adds the checks of that protocol.
   * Writers that only flush at checkpoints (at-least-once) leave it unset.
   */
  readonly twoPhaseCommit?: boolean;
  /**
   * What the destination shows readers now, as records comparable to
   * `records` (in any order); omit for sinks whose output cannot be read back.
   */
  visible?(sink: S): readonly unknown[] | Promise<readonly unknown[]>;
  /** A sink whose writing must fail (an unwritable path, an unreachable server), if it can fail. */
  createFailing?(): Sink<T> | Promise<Sink<T>>;
  /**
   * Releases a writer abandoned as if its process had died (two-phase commit
   * checks), without committing anything; default: nothing.
   */
  abandon?(writer: SinkWriter<T>): void | Promise<void>;
  /** Records per batch; default 4. */
  readonly batchSize?: number;
  /** How long one operation may take; default 15000 ms. */
  readonly timeoutMs?: number;
}

const CONTEXT: SinkContext = {
  subtaskIndex: 0,
  parallelism: 1,
  operatorId: 'sink',
  metrics: new MetricRegistry().group({ job_name: 'conformance', operator: 'sink', subtask: '0' }),
};

/** Writes `records` in batches, waiting while the writer is blocked, as a task does, and until it is free after the last. */
async function writeAll<T>(
  writer: SinkWriter<T>,
  records: readonly T[],
  batchSize: number,
  timeoutMs: number,
): Promise<void> {
  for (let i = 0; i < records.length; i += batchSize) {
    const values = records.slice(i, i + batchSize);
    const batch: RecordBatch<T> = {
      values,
      timestamps: values.map((_, j) => i + j),
      keys: undefined,
    };
    // A task writes only while the writer is not blocked.
    const blocked = writer.blocked?.();
    if (blocked !== undefined) await within(blocked, timeoutMs, 'a blocked writer');
    writer.write(batch);
  }
  const blocked = writer.blocked?.();
  if (blocked !== undefined) await within(blocked, timeoutMs, 'a blocked writer');
}

/**
 * The checks every sink passes: everything written is at the destination
 * after close; a sink that cannot write fails. Two-phase commit writers
 * also: nothing is visible before its checkpoint commits and everything
 * after; `recover` commits the committables it is given, idempotently, and
 * drops what a dead writer had not sealed.
 *
 * @example
 * ```ts
 * for (const check of sinkChecks({ create: () => new CollectSink<number>(), records: [1, 2], visible: (s) => s.values }))
 *   it(check.name, () => check.run());
 * ```
 */
export function sinkChecks<T, S extends Sink<T>>(subject: SinkSubject<T, S>): ConformanceCheck[] {
  const batchSize = subject.batchSize ?? 4;
  const timeoutMs = subject.timeoutMs ?? 15_000;
  const records = subject.records;
  const half = Math.ceil(records.length / 2);
  const visible = async (sink: S, what: string, expected: readonly unknown[]) => {
    if (subject.visible === undefined) return;
    expectRecords(what, await subject.visible(sink), expected, false);
  };
  const timed = <R>(p: Promise<R> | R, what: string) => within(Promise.resolve(p), timeoutMs, what);
  /** A writer as a job starts it: a two-phase commit writer first recovers (nothing, on a fresh start). */
  const start = async (sink: Sink<T>): Promise<SinkWriter<T>> => {
    const writer = sink.createWriter(CONTEXT);
    if (isTwoPhaseCommit(writer)) await timed(writer.recover([]), 'recover on start');
    return writer;
  };
  /** A two-phase commit writer of a fresh sink. */
  const twoPhase = async (): Promise<{ sink: S; writer: TwoPhaseCommitWriter<T> }> => {
    const sink = await subject.create();
    const writer = await start(sink);
    if (isTwoPhaseCommit(writer)) return { sink, writer };
    await writer.close();
    throw new ConformanceError(
      'the subject says twoPhaseCommit, but the writer has no preCommit/commit',
    );
  };

  const checks: ConformanceCheck[] = [
    {
      name: 'holds every record written once closed',
      run: async () => {
        const sink = await subject.create();
        const writer = await start(sink);
        await writeAll(writer, records, batchSize, timeoutMs);
        if (isTwoPhaseCommit(writer)) {
          // What a job does at its end: seal the last transaction, commit it, close.
          const committable = writer.preCommit(1);
          await timed(writer.commit([committable]), 'commit');
        }
        await timed(writer.close(), 'close');
        await visible(sink, 'after close', records);
      },
    },
  ];
  const twoPhaseChecks: ConformanceCheck[] = [
    {
      name: 'two-phase commit: nothing visible before the commit, everything after',
      run: async () => {
        const { sink, writer } = await twoPhase();
        await writeAll(writer, records, batchSize, timeoutMs);
        await visible(sink, 'written, not sealed', []);
        const committable = writer.preCommit(1);
        await visible(sink, 'sealed, not committed', []);
        await timed(writer.commit([committable]), 'commit');
        await visible(sink, 'committed', records);
        // Committing again (a retried notification) changes nothing.
        await timed(writer.commit([committable]), 'second commit');
        await visible(sink, 'committed twice', records);
        await timed(writer.close(), 'close');
      },
    },
    {
      name: 'two-phase commit: recover commits what was sealed, idempotently, and drops the rest',
      run: async () => {
        const { sink, writer } = await twoPhase();
        const a = records.slice(0, half);
        const b = records.slice(half);
        await writeAll(writer, a, batchSize, timeoutMs);
        const c1 = writer.preCommit(1);
        await timed(writer.commit([c1]), 'commit');
        await writeAll(writer, b, batchSize, timeoutMs);
        const c2 = writer.preCommit(2);
        // Checkpoint 2 completed, but the writer died before committing it,
        // in the middle of transaction 3.
        await writeAll(writer, a, batchSize, timeoutMs);
        await subject.abandon?.(writer);
        const committables: Json[] = [c1, c2];
        for (const attempt of ['first', 'second']) {
          const next = sink.createWriter(CONTEXT) as TwoPhaseCommitWriter<T>;
          await timed(next.recover(committables), `${attempt} recover`);
          await visible(sink, `after the ${attempt} recover`, records);
          await timed(next.close(), 'close');
        }
      },
    },
  ];
  if (subject.twoPhaseCommit === true) checks.push(...twoPhaseChecks);
  const createFailing = subject.createFailing;
  if (createFailing !== undefined) {
    checks.push({
      name: 'fails with an error when it cannot write',
      run: async () => {
        let error: unknown;
        try {
          const writer = await start(await createFailing());
          await writeAll(writer, records, batchSize, timeoutMs);
          if (isTwoPhaseCommit(writer)) await timed(writer.commit([writer.preCommit(1)]), 'commit');
          await timed(writer.close(), 'close');
        } catch (e) {
          error = e;
        }
        if (error === undefined)
          throw new ConformanceError('writing to the failing sink succeeded');
        if (error instanceof ConformanceError) throw error;
      },
    });
  }
  return checks;
}
