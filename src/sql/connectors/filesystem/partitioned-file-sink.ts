/**
 * The filesystem connector's sink: rows as lines in part files committed on checkpoints
 * (`ExactlyOnceFileSink`), one directory per partition (`dt=2026-01-01/hm=10:05/`) for a
 * `PARTITIONED BY` table. A partition is committed (Flink's `sink.partition-commit`) with a
 * `_SUCCESS` file once a checkpoint has committed its files and its commit time has come:
 * for `process-time`, the partition's creation plus the delay; for `partition-time`, the
 * partition's time (from `partition.time-extractor.timestamp-pattern`) plus the delay, compared
 * with the largest event time this subtask has written. At the end of a bounded input (the
 * watermark reaching +infinity) every partition is due, whatever its time, as Flink commits
 * all partitions when its input ends.
 */
import { mkdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ExactlyOnceFileSink } from '../../../connectors/files/sink/exactly-once-file-sink.js';
import type { RecordBatch } from '../../../core/record-batch.js';
import type { Sink, SinkContext, TwoPhaseCommitWriter } from '../../../core/sink.js';
import type { Json } from '../../../core/snapshot.js';
import type { Row } from '../connector.js';

export interface PartitionCommit {
  readonly trigger: 'process-time' | 'partition-time';
  readonly delayMs: number;
  /** Write a success file into a committed partition (`policy.kind` includes `success-file`). */
  readonly successFile: boolean;
  /** Its name (`sink.partition-commit.success-file.name`, `_SUCCESS` by default). */
  readonly successFileName: string;
  /** The partition's time from its values (`partition-time`), epoch ms; undefined if unknown. */
  readonly timeOf: (values: readonly string[]) => number | undefined;
}

export interface PartitionedFileSinkOptions {
  readonly directory: string;
  readonly name: string;
  /** Positions of the partition columns in a row; empty for an unpartitioned table. */
  readonly partitionPositions: readonly number[];
  readonly partitionNames: readonly string[];
  /** The partition value of a row's column as text (`__DEFAULT_PARTITION__` for null). */
  readonly partitionText: (row: Row, position: number) => string;
  /** One line of a part file, from the row without its partition columns. */
  readonly line: (row: Row) => string;
  readonly commit: PartitionCommit;
}

/** Flink's name for the partition of a null value. */
export const DEFAULT_PARTITION = '__DEFAULT_PARTITION__';

interface Partition {
  readonly values: readonly string[];
  readonly writer: TwoPhaseCommitWriter<Row>;
  readonly createdAt: number;
  /** A completed checkpoint has committed files of it: only then can it be committed. */
  hasFiles: boolean;
  committed: boolean;
}

export class PartitionedFileSink implements Sink<Row> {
  readonly name: string;
  readonly commitsOnCheckpoint = true;

  constructor(private readonly options: PartitionedFileSinkOptions) {
    this.name = options.name;
  }

  createWriter(context: SinkContext): TwoPhaseCommitWriter<Row> {
    const o = this.options;
    const partitions = new Map<string, Partition>();
    // Part files named after the sink operator too: two INSERTs into one table in a job (a
    // statement set) write files of their own, as Flink's file sink names its parts by a
    // per-sink id. And after the run: a later job writing into the same directory (INSERT
    // INTO appends, as in Flink) starts its checkpoint ids again, and would otherwise replace
    // the earlier job's files of the same names. A restored writer takes the run of the
    // files it recovers (see `recover`), so that it finds the leftovers of its own run.
    let prefix = `part-${operatorTag(context.operatorId)}-${runTag()}`;
    let maxEventTime = Number.NEGATIVE_INFINITY;
    // Set when the watermark reaches +infinity: the input ended, every partition is due.
    let inputEnded = false;
    const relative = (values: readonly string[]) =>
      values.map((v, i) => `${o.partitionNames[i]}=${encodeURIComponent(v)}`).join('/');
    const partition = (values: readonly string[]): Partition => {
      const path = relative(values);
      let p = partitions.get(path);
      if (p === undefined) {
        // Made now: rows of a new partition are written at once, without waiting for `blocked`.
        mkdirSync(join(o.directory, path), { recursive: true });
        const sink = new ExactlyOnceFileSink<Row>({
          directory: join(o.directory, path),
          format: o.line,
          prefix,
        });
        p = {
          values,
          writer: sink.createWriter(context),
          createdAt: Date.now(),
          hasFiles: false,
          committed: false,
        };
        partitions.set(path, p);
      }
      return p;
    };
    const due = (p: Partition): boolean => {
      if (inputEnded) return true;
      if (o.commit.trigger === 'process-time') return Date.now() >= p.createdAt + o.commit.delayMs;
      const time = o.commit.timeOf(p.values);
      return time !== undefined && maxEventTime >= time + o.commit.delayMs;
    };
    const byPartition = (committables: readonly Json[]): Map<string, Json[]> => {
      const out = new Map<string, Json[]>();
      for (const c of committables) {
        if (c === null || typeof c !== 'object' || Array.isArray(c)) continue;
        for (const [path, inner] of Object.entries(c)) {
          const list = out.get(path) ?? [];
          list.push(inner as Json);
          out.set(path, list);
        }
      }
      return out;
    };
    const valuesOf = (path: string): string[] =>
      path === ''
        ? []
        : path.split('/').map((kv) => decodeURIComponent(kv.slice(kv.indexOf('=') + 1)));
    return {
      write(batch: RecordBatch<Row>) {
        const groups = new Map<string, { values: string[]; rows: Row[]; times: number[] }>();
        for (let i = 0; i < batch.values.length; i++) {
          const row = batch.values[i] as Row;
          const time = batch.timestamps[i] as number;
          if (time > maxEventTime) maxEventTime = time;
          const values = o.partitionPositions.map((at) => o.partitionText(row, at));
          const key = values.join('\u0000');
          let g = groups.get(key);
          if (g === undefined) {
            g = { values, rows: [], times: [] };
            groups.set(key, g);
          }
          g.rows.push(row);
          g.times.push(time);
        }
        for (const g of groups.values()) {
          partition(g.values).writer.write({
            values: g.rows,
            timestamps: g.times,
            keys: undefined,
          });
        }
      },
      writeWatermark(time: number) {
        if (time === Number.POSITIVE_INFINITY) inputEnded = true;
      },
      blocked() {
        const waits = [...partitions.values()]
          .map((p) => p.writer.blocked?.())
          .filter((w) => w !== undefined);
        return waits.length === 0 ? undefined : Promise.all(waits).then(() => undefined);
      },
      preCommit(checkpointId: number): Json {
        const out: Record<string, Json> = {};
        for (const [path, p] of partitions) {
          const c = p.writer.preCommit(checkpointId);
          if (c !== null) out[path] = c;
        }
        return out;
      },
      async commit(committables: readonly Json[]) {
        for (const [path, list] of byPartition(committables)) {
          const p = partition(valuesOf(path));
          await p.writer.commit(list);
          p.hasFiles = true;
        }
        // As Flink, partitions of a PARTITIONED BY table only: an unpartitioned table's
        // directory gets no success file.
        if (!o.commit.successFile || o.partitionNames.length === 0) return;
        for (const [path, p] of partitions) {
          // A partition whose rows all came after the checkpoint has no files yet: a success
          // file there would announce data that readers cannot see.
          if (p.committed || !p.hasFiles || !due(p)) continue;
          await writeFile(join(o.directory, path, o.commit.successFileName), '');
          p.committed = true;
        }
      },
      async recover(committables: readonly Json[]) {
        const recovered = byPartition(committables);
        const run = [...recovered.values()]
          .flat()
          .map(prefixOf)
          .find((p) => p !== undefined);
        if (run !== undefined && partitions.size === 0) prefix = run;
        for (const [path, list] of recovered) {
          const p = partition(valuesOf(path));
          await p.writer.recover(list);
          p.hasFiles = true;
        }
      },
      async close() {
        for (const p of partitions.values()) await p.writer.close();
      },
    };
  }
}

let runs = 0;

/** A tag of this writer's run, unique on this machine: base 36 time, process and count. */
function runTag(): string {
  runs++;
  return `${Date.now().toString(36)}${process.pid.toString(36)}${runs.toString(36)}`;
}

/** The part-file prefix of an `ExactlyOnceFileSink` committable (`<prefix>-<subtask>-<id>.jsonl`). */
function prefixOf(committable: Json): string | undefined {
  if (committable === null || typeof committable !== 'object' || Array.isArray(committable))
    return undefined;
  const final = committable.final;
  if (typeof final !== 'string') return undefined;
  return /^(part-.+)-\d+-\d+\.jsonl$/.exec(final)?.[1];
}

/** Eight hex digits of an operator id (FNV-1a): a file-name-safe tag, the same on every run. */
function operatorTag(operatorId: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < operatorId.length; i++) {
    hash ^= operatorId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}
