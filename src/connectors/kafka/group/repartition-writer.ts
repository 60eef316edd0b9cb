import { Admin, type MessageToProduce, Producer } from '@platformatic/kafka';
import { WeirError } from '../../../core/errors.js';
import type { Key } from '../../../core/key-groups.js';
import type { RecordBatch } from '../../../core/record-batch.js';
import type { Sink, SinkContext, SinkWriter } from '../../../core/sink.js';
import type { ExchangeSpec } from '../../../core/source.js';
import { reasonOf } from '../config.js';
import { heldTasksOf } from './held-tasks.js';
import { ensureRepartitionTopic, markMessages, recordMessages } from './repartition-topic.js';
import type { ProducerMark } from './repartition-watermarks.js';

type Message = MessageToProduce<Buffer, Buffer, Buffer, Buffer>;

/** How often a writer checks whether the producing tasks it holds changed, to speak for new ones. */
const HELD_CHECK_MS = 200;
/**
 * How often a writer says its latest mark again though it has not changed. A consumer
 * restored from a task snapshot reads on from the snapshot's offset, past the marks
 * written before it, and waits for every producer to speak again: an idle producer
 * (an input partition without records) would otherwise never speak, and stall it.
 */
const MARK_REPEAT_MS = 1_000;

/**
 * The producing end of a keyed exchange between processes: every record
 * goes to the partition of its key's key-group range, and every watermark
 * (or idleness) of this process's input is written into every partition,
 * once for each producing task this process holds, so each consumer hears
 * every task. Records and marks are sent in input order by one producer;
 * the task is held until the broker has them, so a checkpoint that passes
 * this sink (and commits the input's offsets) never outruns them.
 */
export class RepartitionSink implements Sink<unknown> {
  readonly name: string;

  constructor(
    private readonly brokers: readonly string[],
    private readonly applicationId: string,
    private readonly spec: ExchangeSpec,
    private readonly input: number,
    private readonly selectKey: (value: never) => Key,
  ) {
    this.name = `repartition ${spec.topic} (input ${input})`;
  }

  createWriter(context: SinkContext): SinkWriter<unknown> {
    return new RepartitionWriter(
      this.brokers,
      `weir-${this.applicationId}-${context.operatorId}-${process.pid}`,
      this.spec,
      this.input,
      this.selectKey,
    );
  }
}

class RepartitionWriter implements SinkWriter<unknown> {
  private readonly producer: Producer;
  private readonly ready: Promise<void>;
  private pending: Message[] = [];
  /** The input's latest watermark or idleness, to write for every producing task held. */
  private mark: ProducerMark | undefined;
  private markDirty = false;
  private sentFor = '';
  private markSentAt = 0;
  private flushing: Promise<void> | undefined;
  private failure: WeirError | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(
    brokers: readonly string[],
    clientId: string,
    private readonly spec: ExchangeSpec,
    private readonly input: number,
    private readonly selectKey: (value: never) => Key,
  ) {
    this.producer = new Producer({
      clientId,
      bootstrapBrokers: [...brokers],
      idempotent: true,
      retries: 5,
      retryDelay: 200,
    });
    const admin = new Admin({ clientId: `${clientId}-admin`, bootstrapBrokers: [...brokers] });
    this.ready = ensureRepartitionTopic(admin, spec.topic, spec.partitions, spec.maxParallelism)
      .finally(() => admin.close())
      .catch((cause: unknown) => {
        throw this.failed('cannot create it', cause);
      });
    this.ready.catch(() => {});
    this.timer = setInterval(() => {
      if (this.mark === undefined) return;
      if (performance.now() - this.markSentAt >= MARK_REPEAT_MS) this.markDirty = true;
      if (this.markDirty || this.heldSignature() !== this.sentFor) this.kick();
    }, HELD_CHECK_MS);
    this.timer.unref();
  }

  write(batch: RecordBatch<unknown>): void {
    const selectKey = this.selectKey as (value: unknown) => Key;
    const records = batch.values.map((value, i) => ({
      key: selectKey(value),
      value: { input: this.input, value },
      timestamp: batch.timestamps[i]!,
    }));
    for (const m of recordMessages(
      this.spec.topic,
      records,
      this.spec.maxParallelism,
      this.spec.partitions,
    ))
      this.pending.push(m);
    this.kick();
  }

  writeWatermark(time: number): void {
    this.mark = { kind: 'watermark', watermark: time };
    this.markDirty = true;
    this.kick();
  }

  writeIdle(): void {
    if (this.mark?.kind === 'idle') return;
    this.mark = { kind: 'idle' };
    this.markDirty = true;
    this.kick();
  }

  blocked(): Promise<void> | undefined {
    if (this.failure !== undefined) throw this.failure;
    return this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    try {
      this.kick();
      await this.flushing;
    } finally {
      await this.producer.close().catch(() => {});
    }
  }

  private heldTasks(): string[] {
    return heldTasksOf(this.spec.producerTopics[this.input] ?? []).sort();
  }

  private heldSignature(): string {
    return this.heldTasks().join(',');
  }

  private kick(): void {
    if (this.flushing !== undefined || this.failure !== undefined) return;
    this.flushing = this.drain().finally(() => {
      this.flushing = undefined;
    });
    this.flushing.catch(() => {});
  }

  /** Sends everything pending, in order, with the latest mark after the records before it. */
  private async drain(): Promise<void> {
    await this.ready;
    for (;;) {
      const messages = this.pending;
      this.pending = [];
      const held = this.heldTasks();
      const signature = held.join(',');
      if (this.mark !== undefined && (this.markDirty || signature !== this.sentFor)) {
        for (const task of held)
          messages.push(
            ...markMessages(
              this.spec.topic,
              `${this.input}/${task}`,
              this.mark,
              this.spec.partitions,
            ),
          );
        this.markDirty = false;
        this.sentFor = signature;
        this.markSentAt = performance.now();
      }
      if (messages.length === 0) return;
      try {
        await this.producer.send({ messages });
      } catch (cause) {
        this.failure = this.failed('cannot write to it', cause);
        throw this.failure;
      }
    }
  }

  private failed(what: string, cause: unknown): WeirError {
    return new WeirError(
      'SINK_FAILED',
      `repartition topic '${this.spec.topic}': ${what}: ${reasonOf(cause)}`,
      { cause, domain: 'external', retriable: true },
    );
  }
}
