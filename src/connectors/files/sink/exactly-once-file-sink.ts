import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { WeirError } from '../../../core/errors.js';
import type { RecordBatch } from '../../../core/record-batch.js';
import type { ReconcilableSink, ReconcileTarget } from '../../../core/replay.js';
import type { SinkContext, TwoPhaseCommitWriter } from '../../../core/sink.js';
import type { Json } from '../../../core/snapshot.js';
import { bytesWrittenCounter } from '../../../metrics/connector-metrics.js';
import { parseOptions } from '../../shared/config.js';
import { type ExactlyOnceFileSinkOptions, exactlyOnceFileSinkSchema } from '../config.js';
import { filesNamed, lineFilesTarget } from './line-files-target.js';

export type { ExactlyOnceFileSinkOptions } from '../config.js';

interface Committable {
  readonly pending: string;
  readonly final: string;
  readonly subtask: number;
  /**
   * Length of the sealed file, so a file cut short (or grown) before its
   * commit is refused rather than published. Absent in committables written
   * before it was recorded: those are not checked. Not a checksum, which
   * would hash every byte written on the sink's hot path.
   */
  readonly bytes?: number;
}

function isCommittable(json: Json): json is Json & Committable {
  return (
    json !== null &&
    typeof json === 'object' &&
    !Array.isArray(json) &&
    typeof json.pending === 'string' &&
    typeof json.final === 'string' &&
    typeof json.subtask === 'number' &&
    (json.bytes === undefined || typeof json.bytes === 'number')
  );
}

/** Why the sealed file of `c` (at `path`) is not what was sealed, or undefined when it is. */
async function sealedFileDamage(path: string, c: Committable): Promise<string | undefined> {
  if (c.bytes === undefined) return undefined;
  const size = (await stat(path)).size;
  return size === c.bytes ? undefined : `it has ${size} bytes, ${c.bytes} were sealed`;
}

let writers = 0;

/** Identifies one writer's files, so recovery never mistakes a live writer's files for leftovers. */
function newToken(): string {
  writers++;
  return `${process.pid.toString(36)}${Date.now().toString(36)}${writers.toString(36)}`;
}

/**
 * Writes records to part files with exactly-once visibility, through
 * checkpoints: records since the last checkpoint go to a hidden in-progress
 * file; at the barrier it is made durable and renamed to a hidden pending
 * file; when the checkpoint completes the pending file is renamed to
 * `<prefix>-<subtask>-<checkpoint>.jsonl`. Readers that ignore dot-files see
 * each record once, whatever crashes happen. Files of a run that died are
 * committed (if its checkpoint covered them) or deleted on restore; a sealed
 * file is committed only if its length is what was sealed.
 *
 * `weir reconcile` reads the committed part files back
 * ({@link ExactlyOnceFileSink.reconcileTarget}).
 */
export class ExactlyOnceFileSink<T> implements ReconcilableSink<T> {
  readonly name = 'exactly-once files';
  readonly commitsOnCheckpoint = true;

  constructor(private readonly options: ExactlyOnceFileSinkOptions<T>) {
    parseOptions('ExactlyOnceFileSink', exactlyOnceFileSinkSchema, options);
  }

  /** Renders one record as its line (without the newline): the one rendering of writers and reconcile. */
  private formatLine(): (value: T) => string {
    return this.options.format ?? ((v: T) => JSON.stringify(v));
  }

  /**
   * What the sink committed, for `weir reconcile`: the lines of its committed
   * part files (`<prefix>-<subtask>-<checkpoint>.jsonl`, in name order), each
   * decoded as JSON (see `lineFilesTarget`); hidden in-progress and
   * pending files are not read, since no reader sees them yet. Replayed
   * values are rendered with the sink's `format`.
   */
  reconcileTarget(): ReconcileTarget<T> {
    const { directory } = this.options;
    const prefix = this.options.prefix ?? 'part';
    return lineFilesTarget<T>({
      description: `committed files ${join(directory, `${prefix}-*.jsonl`)}`,
      files: () => committedFiles(directory, prefix),
      render: this.formatLine(),
    });
  }

  createWriter(context: SinkContext): TwoPhaseCommitWriter<T> {
    const { directory } = this.options;
    const prefix = this.options.prefix ?? 'part';
    const format = this.formatLine();
    const { subtaskIndex, parallelism, operatorId } = context;
    const token = newToken();
    const bytes = bytesWrittenCounter(context.metrics);
    let fd: number | undefined;
    let inProgress: string | undefined;
    // Bytes in the in-progress file, recorded in its committable when it is sealed.
    let written = 0;
    let ready: Promise<void> | undefined = mkdir(directory, { recursive: true }).then(() => {
      ready = undefined;
    });
    // A failed mkdir surfaces through blocked() or recover(), not as an unhandled rejection
    // when the job fails before anyone waits on it.
    ready.catch(() => {});
    const pendingName = (checkpointId: number) =>
      `.${prefix}-${subtaskIndex}-${checkpointId}.${token}.pending`;
    const finalName = (checkpointId: number) => committedName(prefix, subtaskIndex, checkpointId);

    // A sealed file that is damaged or gone when its checkpoint is committed holds records the
    // checkpoint's sources are past: no restart from it can write them again, so the failure
    // is not restartable (restarting would fail the same way, for as long as the strategy lets).
    const lost = (c: Committable, what: string) =>
      new WeirError(
        'SINK_FAILED',
        `sink '${operatorId}' cannot commit ${c.final}: the sealed file ${join(directory, c.pending)} ${what}; its records, which a completed checkpoint covers, would be lost or altered, and no restart can write them again, so the job fails without restarting. Put the file back as it was sealed, or restore the job from an earlier checkpoint to write its records again`,
        { operatorId, domain: 'external', restartable: false },
      );

    const commitOne = async (c: Committable) => {
      const pendingPath = join(directory, c.pending);
      // A missing file is told apart below (committed already, or lost).
      const damage = await sealedFileDamage(pendingPath, c).catch(() => undefined);
      if (damage !== undefined)
        throw lost(c, `was cut short or changed in length after the checkpoint (${damage})`);
      try {
        await rename(pendingPath, join(directory, c.final));
      } catch (cause) {
        const exists = (path: string) =>
          stat(path).then(
            () => true,
            () => false,
          );
        // Already committed by an earlier attempt.
        if (await exists(join(directory, c.final))) return;
        // The file is there but could not be renamed (permissions, a full disk): may pass.
        if (await exists(pendingPath))
          throw new WeirError(
            'SINK_FAILED',
            `sink '${operatorId}' cannot commit ${c.final}: renaming ${pendingPath} failed: ${cause instanceof Error ? cause.message : String(cause)}`,
            { operatorId, cause, domain: 'external' },
          );
        throw lost(c, 'was removed before its commit, and the committed file does not exist');
      }
    };

    return {
      write(batch: RecordBatch<T>) {
        if (batch.values.length === 0) return;
        if (fd === undefined) {
          inProgress = join(directory, `.${prefix}-${subtaskIndex}.${token}.inprogress`);
          // 'w': a file of this name can only be a leftover, and its bytes would not be counted.
          fd = openSync(inProgress, 'w');
          written = 0;
        }
        let text = '';
        for (const v of batch.values) text += `${format(v)}\n`;
        const n = writeSync(fd, text);
        written += n;
        bytes.inc(n);
      },
      blocked: () => ready,
      preCommit(checkpointId: number): Json {
        if (fd === undefined) return null;
        fsyncSync(fd);
        closeSync(fd);
        fd = undefined;
        const pending = pendingName(checkpointId);
        // Synchronous on purpose: the barrier must not pass before the data is sealed.
        renameSync(inProgress!, join(directory, pending));
        const committable: Committable = {
          pending,
          final: finalName(checkpointId),
          subtask: subtaskIndex,
          bytes: written,
        };
        return { ...committable };
      },
      async commit(committables: readonly Json[]) {
        for (const c of committables) if (c !== null && isCommittable(c)) await commitOne(c);
      },
      async recover(committables: readonly Json[]) {
        await mkdir(directory, { recursive: true });
        // Each old subtask's files belong to exactly one new subtask.
        const mine = (oldSubtask: number) => oldSubtask % parallelism === subtaskIndex;
        const keep = new Set<string>();
        for (const c of committables) {
          if (c === null || !isCommittable(c) || !mine(c.subtask)) continue;
          await commitOne(c);
          keep.add(c.pending);
        }
        for (const file of await readdir(directory)) {
          const m = /^\.(.+)-(\d+)(?:-\d+)?\.([a-z0-9]+)\.(inprogress|pending)$/.exec(file);
          if (m === null || m[1] !== prefix || m[3] === token || keep.has(file)) continue;
          if (mine(Number(m[2]))) await rm(join(directory, file), { force: true });
        }
      },
      close() {
        // Uncommitted data is never made visible here: the final checkpoint
        // commits the last transaction; a cancelled job leaves it for recovery.
        if (fd !== undefined) {
          closeSync(fd);
          fd = undefined;
        }
      },
    };
  }
}

/** The name a committed part file gets: `<prefix>-<subtask>-<checkpoint, 10 digits>.jsonl`. */
function committedName(prefix: string, subtask: number, checkpointId: number): string {
  return `${prefix}-${subtask}-${String(checkpointId).padStart(10, '0')}.jsonl`;
}

/** The committed part files of `directory` written with `prefix`, in name order. */
function committedFiles(directory: string, prefix: string): Promise<string[]> {
  return filesNamed(
    directory,
    (name) =>
      name.startsWith(`${prefix}-`) && /^\d+-\d{10,}\.jsonl$/.test(name.slice(prefix.length + 1)),
  );
}
