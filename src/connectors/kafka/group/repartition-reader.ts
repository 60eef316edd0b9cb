import { Admin } from '@platformatic/kafka';
import { WeirError } from '../../../core/errors.js';
import type { ProcessGroupObserver } from '../../../core/process-group.js';
import type { RecordBatch } from '../../../core/record-batch.js';
import type { Json } from '../../../core/snapshot.js';
import type {
  ExchangedRecord,
  ExchangeSpec,
  PollStatus,
  Source,
  SourceContext,
  SourceReader,
} from '../../../core/source.js';
import { describePartitions } from '../client.js';
import { reasonOf } from '../config.js';
import type { KafkaConsumerRecord } from '../consumer-record.js';
import { AssignedReader } from '../source/assigned-reader.js';
import { type SourceConfig, sourceConfig } from '../source/source-options.js';
import { decodeEntry, ensureRepartitionTopic } from './repartition-topic.js';
import { RepartitionWatermark } from './repartition-watermarks.js';
import { taskKey } from './task-group.js';

/**
 * The consuming end of a keyed exchange between processes: reads the
 * partitions (tasks) of the repartition topic this process holds (the
 * process's membership in the group decides which, see
 * {@link ProcessGroupSpec.tasks}), with each partition's watermark the
 * minimum over the producing tasks that wrote into it. Its position per
 * task is in its checkpoints, so a task's snapshot resumes it exactly.
 */
export class RepartitionSource implements Source<ExchangedRecord> {
  readonly name: string;
  readonly bounded = false;
  readonly parallelizable = false;
  readonly groupTopics: readonly string[];

  constructor(
    private readonly brokers: readonly string[],
    private readonly applicationId: string,
    private readonly spec: ExchangeSpec,
    private readonly tasks: () => ReadonlySet<string>,
    private readonly observer?: ProcessGroupObserver,
  ) {
    this.name = `repartition ${spec.topic}`;
    this.groupTopics = [spec.topic];
  }

  createReader(context: SourceContext): SourceReader<ExchangedRecord> {
    return new RepartitionReader(
      this.brokers,
      this.applicationId,
      this.spec,
      this.tasks,
      context,
      this.observer,
    );
  }
}

interface Entry {
  readonly task: string;
  /** A record, or undefined for a watermark mark (applied to its partition when polled). */
  readonly record: ExchangedRecord | undefined;
  readonly apply: (() => void) | undefined;
}

class RepartitionReader implements SourceReader<ExchangedRecord> {
  private producers: string[] = [];
  private readonly watermarks = new Map<string, RepartitionWatermark>();
  private readonly partitions: AssignedReader<Entry>;
  private lastWatermark = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly brokers: readonly string[],
    private readonly applicationId: string,
    private readonly spec: ExchangeSpec,
    private readonly tasks: () => ReadonlySet<string>,
    private readonly context: SourceContext,
    private readonly observer: ProcessGroupObserver | undefined,
  ) {
    this.partitions = new AssignedReader(this.partitionsConfig(), context);
  }

  private get what(): string {
    return `repartition topic '${this.spec.topic}'`;
  }

  /** The fixed partitions of the topic this process holds, read_committed, from their task's position. */
  private partitionsConfig(): SourceConfig<Entry> {
    const base = sourceConfig<Entry>({
      brokers: [...this.brokers],
      clientId: `weir-${this.applicationId}-${this.context.operatorId}-${process.pid}`,
      topics: [this.spec.topic],
      isolationLevel: 'read_committed',
      fetchMaxWaitMs: 50,
      name: this.name,
      deserializer: (r) => this.decode(r),
    });
    return {
      ...base,
      groupId: this.applicationId,
      startFrom: { committed: 'earliest' },
      commitOffsets: false,
      discoveryIntervalMs: 0,
      fixedTasks: this.tasks,
      ...(this.observer === undefined ? {} : { groupObserver: this.observer }),
    };
  }

  private get name(): string {
    return `repartition ${this.spec.topic}`;
  }

  async open(): Promise<void> {
    const clientId = `weir-${this.applicationId}-${this.context.operatorId}-${process.pid}`;
    const admin = new Admin({ clientId: `${clientId}-admin`, bootstrapBrokers: [...this.brokers] });
    try {
      await ensureRepartitionTopic(
        admin,
        this.spec.topic,
        this.spec.partitions,
        this.spec.maxParallelism,
      );
      const found = await describePartitions(admin, this.spec.producerTopics.flat());
      this.producers = this.spec.producerTopics.flatMap((topics, input) =>
        found
          .filter((p) => topics.includes(p.topic))
          .map((p) => `${input}/${taskKey(p.topic, p.partition)}`),
      );
    } catch (cause) {
      throw this.error(`cannot prepare it: ${reasonOf(cause)}`, cause);
    } finally {
      await admin.close().catch(() => {});
    }
    for (const task of this.tasks())
      if (task.startsWith(`${this.spec.topic}:`))
        this.watermarks.set(task, new RepartitionWatermark(this.producers));
    await this.partitions.open();
  }

  private decode(r: KafkaConsumerRecord): Entry {
    const task = taskKey(r.topic, r.partition);
    const headers = new Map<Buffer, Buffer>();
    for (const [k, v] of r.headers) if (v !== undefined) headers.set(Buffer.from(k), v);
    const e = decodeEntry<ExchangedRecord>(r.value, headers, `${task}@${r.offset}`);
    if (e.kind === 'record') return { task, record: e.record.value, apply: undefined };
    const { producer, mark } = e;
    return {
      task,
      record: undefined,
      apply: () => {
        const w = this.watermarks.get(task);
        w?.observe(producer, mark);
        // Taken at once: producers going idle next must not undo what they reached.
        w?.current();
      },
    };
  }

  poll(): RecordBatch<ExchangedRecord> | PollStatus {
    const values: ExchangedRecord[] = [];
    const timestamps: number[] = [];
    // Watermark marks are applied in their place and not emitted: poll on past them.
    while (values.length === 0) {
      const batch = this.partitions.poll();
      if (typeof batch === 'string') return batch;
      batch.values.forEach((e, i) => {
        if (e.apply !== undefined) e.apply();
        else {
          values.push(e.record!);
          timestamps.push(batch.timestamps[i]!);
        }
      });
    }
    return { values, timestamps, keys: undefined };
  }

  available(): Promise<void> {
    return this.partitions.available();
  }

  /**
   * The minimum over the partitions held that have an active producer; when
   * every producer of every partition is idle, the minimum of what the
   * partitions reached before (a partition that never heard a watermark
   * holds nothing back then).
   */
  currentWatermark(): number {
    let active = Number.POSITIVE_INFINITY;
    let reached = Number.POSITIVE_INFINITY;
    for (const w of this.watermarks.values()) {
      const t = w.current();
      if (!w.idle()) active = Math.min(active, t);
      else if (t > Number.NEGATIVE_INFINITY) reached = Math.min(reached, t);
    }
    const min = active < Number.POSITIVE_INFINITY ? active : reached;
    if (min === Number.POSITIVE_INFINITY || min <= this.lastWatermark) return this.lastWatermark;
    this.lastWatermark = min;
    return min;
  }

  isIdle(): boolean {
    if (this.partitions.bufferedRecords > 0) return false;
    for (const w of this.watermarks.values()) if (!w.idle()) return false;
    return true;
  }

  snapshot(checkpointId: number): Json {
    return this.partitions.snapshot(checkpointId);
  }

  async close(): Promise<void> {
    await this.partitions.close();
  }

  private error(message: string, cause?: unknown): WeirError {
    return new WeirError('SOURCE_FAILED', `${this.what}: ${message}`, {
      cause,
      domain: 'external',
      retriable: false,
    });
  }
}
