import { Admin, type MessageToProduce } from '@platformatic/kafka';
import { WeirError } from '../../../core/errors.js';
import type { Key } from '../../../core/key-groups.js';
import type { RecordBatch } from '../../../core/record-batch.js';
import type { Sink, SinkContext, TwoPhaseCommitWriter } from '../../../core/sink.js';
import type { Json } from '../../../core/snapshot.js';
import type { ExchangeSpec } from '../../../core/source.js';
import { reasonOf } from '../config.js';
import { kafkaSinkWriter } from '../sink/kafka-sink.js';
import { type SinkConfig, sinkConfig } from '../sink/sink-options.js';
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
 * How long a pre-committed repartition transaction may wait for its commit
 * (by this member, or by the new owner of its tasks after a crash) before
 * the broker aborts it.
 */
const TRANSACTION_TIMEOUT_MS = 300_000;

/**
 * The producing end of a keyed exchange between processes: every record
 * goes to the partition of its key's key-group range, and every watermark
 * (or idleness) of this process's input is written into every partition,
 * once for each producing task this process holds, so each consumer hears
 * every task. Records and marks go, in input order, into Kafka transactions
 * tied to the member's checkpoints: the exactly-once Kafka sink's writer
 * pre-commits at the barrier and commits when the checkpoint (and the task
 * snapshots written from it) is complete, and readers read read_committed.
 * The transactional ids are `weir-<group>-<operator>-<member run>-0-<n>`, so
 * the new owner of a task can commit what a dead member's checkpoint covered
 * and fence what that run wrote after it.
 */
export class RepartitionSink implements Sink<unknown> {
  readonly name: string;
  readonly commitsOnCheckpoint = true;

  constructor(
    private readonly brokers: readonly string[],
    private readonly applicationId: string,
    private readonly spec: ExchangeSpec,
    private readonly input: number,
    private readonly selectKey: (value: never) => Key,
    private readonly run: () => string,
  ) {
    this.name = `repartition ${spec.topic} (input ${input})`;
  }

  createWriter(context: SinkContext): TwoPhaseCommitWriter<unknown> {
    const safe = (s: string) => s.replace(/[^a-zA-Z0-9._-]/g, '_');
    const config: SinkConfig<Message> = {
      ...sinkConfig<Message>({
        brokers: [...this.brokers],
        topic: this.spec.topic,
        format: {
          name: 'repartition',
          serialize: (m) => m.value ?? Buffer.alloc(0),
          deserialize: () => {
            throw new Error('a repartition writer does not read');
          },
        },
        key: (m) => m.key ?? undefined,
        tombstone: (m) => m.value === undefined,
        headers: (m) => headersOf(m),
        partitioner: (m) => m.partition ?? 0,
        deliveryGuarantee: 'exactly-once',
        transactionalIdPrefix: `weir-${safe(this.applicationId)}-${safe(context.operatorId)}`,
        transactionTimeoutMs: TRANSACTION_TIMEOUT_MS,
        name: this.name,
      }),
      run: this.run,
      eventTimestamps: true,
    };
    const out = kafkaSinkWriter(config, context);
    return new RepartitionWriter(
      out,
      `weir-${this.applicationId}-${context.operatorId}-${process.pid}`,
      this.brokers,
      this.spec,
      this.input,
      this.selectKey,
    );
  }
}

function headersOf(m: Message): Record<string, Buffer> | undefined {
  const h = m.headers;
  if (h === undefined) return undefined;
  if (!(h instanceof Map)) return h;
  const out: Record<string, Buffer> = {};
  for (const [k, v] of h) out[k.toString()] = v;
  return out;
}

class RepartitionWriter implements TwoPhaseCommitWriter<unknown> {
  private readonly ready: Promise<void>;
  private prepared = false;
  private failure: WeirError | undefined;
  /** The input's latest watermark or idleness, to write for every producing task held. */
  private mark: ProducerMark | undefined;
  private sentFor = '';
  /** The event time of the last record written, which marks are stamped with. */
  private lastTimestamp = 0;
  private markSentAt = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly out: TwoPhaseCommitWriter<Message>,
    clientId: string,
    brokers: readonly string[],
    private readonly spec: ExchangeSpec,
    private readonly input: number,
    private readonly selectKey: (value: never) => Key,
  ) {
    const admin = new Admin({ clientId: `${clientId}-admin`, bootstrapBrokers: [...brokers] });
    this.ready = ensureRepartitionTopic(admin, spec.topic, spec.partitions, spec.maxParallelism)
      .finally(() => admin.close())
      .then(
        () => {
          this.prepared = true;
        },
        (cause: unknown) => {
          this.failure = this.failed('cannot create it', cause);
        },
      );
    this.timer = setInterval(() => {
      if (this.mark === undefined || this.failure !== undefined) return;
      const due = performance.now() - this.markSentAt >= MARK_REPEAT_MS;
      try {
        if (due || this.heldSignature() !== this.sentFor) this.sendMark();
      } catch (cause) {
        // The producer failed (fenced by a member that took a task over, or cut
        // off): a throw here, in a timer, would end the process. The task
        // learns of it from its next write or wait, and fails as it should.
        this.failure =
          cause instanceof WeirError ? cause : this.failed('cannot write a watermark', cause);
      }
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
    const messages = recordMessages(
      this.spec.topic,
      records,
      this.spec.maxParallelism,
      this.spec.partitions,
    );
    this.out.write({ values: messages, timestamps: batch.timestamps, keys: undefined });
    const n = batch.values.length;
    if (n > 0) this.lastTimestamp = batch.timestamps[n - 1]!;
  }

  writeWatermark(time: number): void {
    this.mark = { kind: 'watermark', watermark: time };
    this.sendMark();
  }

  writeIdle(): void {
    if (this.mark?.kind === 'idle') return;
    this.mark = { kind: 'idle' };
    this.sendMark();
  }

  /** The latest mark, once for every producing task held, after the records written before it. */
  private sendMark(): void {
    const mark = this.mark;
    if (mark === undefined) return;
    const held = this.heldTasks();
    this.sentFor = held.join(',');
    this.markSentAt = performance.now();
    const messages = held.flatMap((task) =>
      markMessages(this.spec.topic, `${this.input}/${task}`, mark, this.spec.partitions),
    );
    if (messages.length === 0) return;
    // Stamped like the records around them: the client encodes a record's
    // timestamp as a delta from its batch's first, and a delta of decades
    // (wall clock against event time) comes back rounded.
    const at = this.lastTimestamp;
    this.out.write({ values: messages, timestamps: messages.map(() => at), keys: undefined });
  }

  blocked(): Promise<void> | undefined {
    if (this.failure !== undefined) throw this.failure;
    if (!this.prepared) return this.ready;
    return this.out.blocked?.();
  }

  preCommit(checkpointId: number): Json {
    return this.out.preCommit(checkpointId);
  }

  commit(committables: readonly Json[]): Promise<void> | void {
    return this.out.commit(committables);
  }

  recover(committables: readonly Json[]): Promise<void> | void {
    return this.out.recover(committables);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.out.close();
  }

  private heldTasks(): string[] {
    return heldTasksOf(this.spec.producerTopics[this.input] ?? []).sort();
  }

  private heldSignature(): string {
    return this.heldTasks().join(',');
  }

  private failed(what: string, cause: unknown): WeirError {
    return new WeirError(
      'SINK_FAILED',
      `repartition topic '${this.spec.topic}': ${what}: ${reasonOf(cause)}`,
      { cause, domain: 'external', retriable: true },
    );
  }
}
