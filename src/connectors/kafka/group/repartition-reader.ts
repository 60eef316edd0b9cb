import { Admin, type Consumer, type Message, type MessagesStream } from '@platformatic/kafka';
import { WeirError } from '../../../core/errors.js';
import type { Counter } from '../../../core/metrics.js';
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
import { describePartitions, newConsumer } from '../client.js';
import { reasonOf } from '../config.js';
import { ArrivalQueue } from '../source/arrival-queue.js';
import {
  commitPositions,
  offsetCommitFailures,
  PendingOffsets,
} from '../source/pending-offsets.js';
import { setHeldTasks } from './held-tasks.js';
import { PinnedTasks } from './pinned-tasks.js';
import { decodeEntry, ensureRepartitionTopic } from './repartition-topic.js';
import { RepartitionWatermark } from './repartition-watermarks.js';
import { PROCESS_GROUP_CONSUMER, taskKey, watchAssignment } from './task-group.js';

/**
 * The consuming end of a keyed exchange between processes: reads the
 * partitions (tasks) of the repartition topic the group assigns to this
 * process, with each partition's watermark the minimum over the producing
 * tasks that wrote into it.
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
  ) {
    this.name = `repartition ${spec.topic}`;
    this.groupTopics = [spec.topic];
  }

  createReader(context: SourceContext): SourceReader<ExchangedRecord> {
    return new RepartitionReader(this.brokers, this.applicationId, this.spec, context);
  }
}

interface Entry {
  readonly task: string;
  readonly offset: number;
  /** A record, or undefined for a watermark mark (already applied to its partition). */
  readonly record: ExchangedRecord | undefined;
  readonly timestamp: number;
  readonly apply: (() => void) | undefined;
}

class RepartitionReader implements SourceReader<ExchangedRecord> {
  private consumer: Consumer<Buffer, Buffer, Buffer, Buffer> | undefined;
  private stream: MessagesStream<Buffer, Buffer, Buffer, Buffer> | undefined;
  private producers: string[] = [];
  private readonly queue = new ArrivalQueue<Entry>();
  private assigned = new Set<string>();
  private readonly watermarks = new Map<string, RepartitionWatermark>();
  private readonly positions = new Map<string, number>();
  private readonly pinned: PinnedTasks;
  private readonly commitFailures: Counter;
  private readonly pendingOffsets = new PendingOffsets();
  private failure: unknown;
  private lastWatermark = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly brokers: readonly string[],
    private readonly applicationId: string,
    private readonly spec: ExchangeSpec,
    private readonly context: SourceContext,
  ) {
    this.pinned = new PinnedTasks(this.what, (e) => this.fail(e));
    this.commitFailures = offsetCommitFailures(context.metrics);
    context.metrics.gauge(
      'weir_kafka_source_partitions',
      'Partitions assigned to this reader',
      () => this.assigned.size,
    );
  }

  private get what(): string {
    return `repartition topic '${this.spec.topic}'`;
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
    const consumer = newConsumer({
      clientId,
      bootstrapBrokers: [...this.brokers],
      groupId: this.applicationId,
      ...PROCESS_GROUP_CONSUMER,
      isolationLevel: 1,
      maxWaitTime: 50,
      retries: 5,
      retryDelay: 200,
    });
    this.consumer = consumer;
    watchAssignment(consumer, (tasks) => this.assign(new Set(tasks.keys())));
    try {
      this.stream = await consumer.consume({
        topics: [this.spec.topic],
        mode: 'committed',
        fallbackMode: 'earliest',
        autocommit: false,
        highWaterMark: 1024,
      });
    } catch (cause) {
      await Promise.resolve(consumer.close(true)).catch(() => {});
      throw this.error(`cannot join group '${this.applicationId}': ${reasonOf(cause)}`, cause);
    }
    this.stream.on('data', (m: Message<Buffer, Buffer, Buffer, Buffer>) => this.onMessage(m));
    this.stream.on('error', (e: unknown) => this.fail(e));
  }

  private assign(next: Set<string>): void {
    this.pinned.reassigned(this.assigned, next);
    for (const task of next)
      if (!this.watermarks.has(task))
        this.watermarks.set(task, new RepartitionWatermark(this.producers));
    for (const task of [...this.watermarks.keys()])
      if (!next.has(task)) this.watermarks.delete(task);
    this.assigned = next;
    setHeldTasks(this, next);
    this.queue.wake();
  }

  private onMessage(m: Message<Buffer, Buffer, Buffer, Buffer>): void {
    const task = taskKey(m.topic, m.partition);
    const offset = Number(m.offset);
    const where = `${task}@${offset}`;
    if (this.assigned.has(task)) this.pinned.firstMessage(task, offset);
    let entry: Entry;
    try {
      const e = decodeEntry<ExchangedRecord>(m.value, m.headers, where);
      if (e.kind === 'mark') {
        const { producer, mark } = e;
        entry = {
          task,
          offset,
          record: undefined,
          timestamp: 0,
          apply: () => {
            const w = this.watermarks.get(task);
            w?.observe(producer, mark);
            // Taken at once: producers going idle next must not undo what they reached.
            w?.current();
          },
        };
      } else {
        entry = {
          task,
          offset,
          record: e.record.value,
          timestamp: e.record.timestamp,
          apply: undefined,
        };
      }
    } catch (cause) {
      this.fail(cause);
      return;
    }
    this.queue.push(entry);
  }

  poll(): RecordBatch<ExchangedRecord> | PollStatus {
    if (this.failure !== undefined) throw this.failure;
    const values: ExchangedRecord[] = [];
    const timestamps: number[] = [];
    while (values.length < this.context.batchSize) {
      const e = this.queue.take();
      if (e === undefined) break;
      if (!this.assigned.has(e.task)) continue;
      this.positions.set(e.task, e.offset + 1);
      if (e.apply !== undefined) {
        e.apply();
        continue;
      }
      this.pinned.recordRead(e.task);
      values.push(e.record!);
      timestamps.push(e.timestamp);
    }
    if (values.length === 0) return 'wait';
    return { values, timestamps, keys: undefined };
  }

  available(): Promise<void> {
    return this.queue.available(this.failure !== undefined);
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
    for (const [task, w] of this.watermarks) {
      if (!this.assigned.has(task)) continue;
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
    if (this.queue.size > 0) return false;
    for (const [task, w] of this.watermarks) if (this.assigned.has(task) && !w.idle()) return false;
    return true;
  }

  snapshot(checkpointId: number): Json {
    // Offsets are committed only for tasks with records read, so a task
    // that carried only watermarks so far can move without its state.
    const positions = new Map([...this.positions].filter(([task]) => this.pinned.hasRead(task)));
    this.pendingOffsets.add(checkpointId, positions);
    return { kafkaGroup: 1, offsets: Object.fromEntries(positions) };
  }

  async notifyCheckpointComplete(checkpointId: number): Promise<void> {
    const positions = this.pendingOffsets.complete(checkpointId);
    if (positions === undefined || this.consumer === undefined) return;
    await commitPositions(this.consumer, positions, this.assigned, this.commitFailures);
  }

  async close(): Promise<void> {
    setHeldTasks(this, new Set());
    await this.stream?.close().catch(() => {});
    await Promise.resolve(this.consumer?.close(true)).catch(() => {});
  }

  private fail(cause: unknown): void {
    this.failure ??= cause;
    this.queue.wake();
  }

  private error(message: string, cause?: unknown): WeirError {
    return new WeirError('SOURCE_FAILED', `${this.what}: ${message}`, {
      cause,
      domain: 'external',
      retriable: false,
    });
  }
}
