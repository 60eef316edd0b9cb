import type { Consumer, Message, MessagesStream } from '@platformatic/kafka';
import { WeirError } from '../../../core/errors.js';
import type { Key } from '../../../core/key-groups.js';
import type { GroupTaskProgress } from '../../../core/process-group.js';
import {
  type QueryableState,
  type StateQueryAnswer,
  stateAnswer,
} from '../../../core/queryable-state.js';
import type { RecordBatch } from '../../../core/record-batch.js';
import type { Json } from '../../../core/snapshot.js';
import type { PollStatus, SourceContext, SourceReader } from '../../../core/source.js';
import { bytesReadCounter } from '../../../metrics/connector-metrics.js';
import type { Counter } from '../../../metrics/registry.js';
import { clientBase, newAdmin, newConsumer, topicsMatching } from '../client.js';
import { reasonOf } from '../config.js';
import type { KafkaConsumerRecord } from '../consumer-record.js';
import { DeadLetters, kafkaBadRecordError } from '../dead-letter.js';
import { applyGroupSession } from '../group/group-timeouts.js';
import { setHeldTasks } from '../group/held-tasks.js';
import {
  joinAgain,
  PROCESS_GROUP_CONSUMER,
  watchAssignment,
  watchDropped,
} from '../group/task-group.js';
import { securityError } from '../security.js';
import { ArrivalQueue } from './arrival-queue.js';
import {
  IdleTimeoutAlarm,
  PartitionTime,
  type SourceTimeSpec,
  sourceTimeSpec,
  stampRecord,
} from './partition-time.js';
import { commitPositions, offsetCommitFailures, PendingOffsets } from './pending-offsets.js';
import type { SourceConfig } from './source-options.js';

interface Buffered<T> {
  readonly key: string;
  readonly value: T;
  /** Event time, already checked (stampRecord). */
  readonly timestamp: number;
  readonly offset: number;
}

/**
 * A reader in a Kafka consumer group: the group coordinator spreads the
 * partitions over all members (in this and other processes) and moves them
 * when members come and go. Offsets come from the group: they are committed
 * when a checkpoint completes (and every `autoCommitIntervalMs`, if set).
 * At-least-once; meant for stateless jobs scaled out over processes (a job
 * with keyed state reads fixed partitions instead, see {@link AssignedReader}).
 * On the consumer protocol, a reader the group dropped (a pause past the
 * session timeout) gives its partitions up and joins again as a new member.
 */
export class GroupReader<T> implements SourceReader<T>, QueryableState {
  private consumer!: Consumer<Buffer, Buffer, Buffer, Buffer>;
  private stream: MessagesStream<Buffer, Buffer, Buffer, Buffer> | undefined;
  private readonly queue = new ArrivalQueue<Buffered<T>>();
  private readonly positions = new Map<string, number>();
  private readonly times = new Map<string, PartitionTime<T>>();
  private readonly idleAlarm = new IdleTimeoutAlarm(() => this.queue.wake());
  private readonly time: SourceTimeSpec<T> | undefined;
  private readonly deadLetters: DeadLetters;
  private failure: unknown;
  private paused = false;
  /** Messages waiting for the format's schema lookups (see onMessage). */
  private held: Message<Buffer, Buffer, Buffer, Buffer>[] | undefined;
  private dlq: Promise<void> = Promise.resolve();
  private readonly pendingOffsets = new PendingOffsets();
  private commitTimer: NodeJS.Timeout | undefined;
  private readonly commitFailures: Counter;
  private readonly bytesRead: Counter;
  private assigned = new Set<string>();
  private lastWatermark = Number.NEGATIVE_INFINITY;
  private topics: string[] = [];
  /** Partition ends and partition counts, looked up while a process group observes the reader. */
  private readonly endOffsets = new Map<string, number>();
  private readonly partitionCounts = new Map<string, number>();
  private endOffsetTimer: NodeJS.Timeout | undefined;
  /** Joining again as a new member, after the group dropped this reader's. */
  private rejoining: Promise<void> | undefined;
  private closed = false;

  /** Names the reader to the process group's observer. */
  private get readerId(): string {
    return `${this.context.operatorId}/${this.context.subtaskIndex}`;
  }

  /** Names the reader in messages. */
  private get what(): string {
    return `Kafka source '${this.context.operatorId}' (subtask ${this.context.subtaskIndex})`;
  }

  constructor(
    private readonly config: SourceConfig<T>,
    private readonly context: SourceContext,
  ) {
    this.time = sourceTimeSpec(config.watermarks);
    this.deadLetters = new DeadLetters(
      config.onError,
      config.connection,
      context.metrics,
      `Kafka source '${context.operatorId}' (subtask ${context.subtaskIndex})`,
      config.onWarning,
    );
    this.commitFailures = offsetCommitFailures(context.metrics);
    this.bytesRead = bytesReadCounter(context.metrics);
    context.metrics.gauge(
      'weir_kafka_source_partitions',
      'Partitions assigned to this reader',
      () => this.assigned.size,
    );
  }

  async open(): Promise<void> {
    const conn = this.config.connection;
    let topics = this.config.topics === undefined ? [] : [...this.config.topics];
    if (this.config.topicPattern !== undefined) {
      const admin = newAdmin(conn, this.what);
      try {
        topics = await topicsMatching(admin, this.config.topicPattern);
      } catch (cause) {
        throw securityError(cause, conn, this.what, 'SOURCE_FAILED') ?? cause;
      } finally {
        await admin.close();
      }
    }
    this.topics = topics;
    if (this.config.groupProtocol === 'consumer') await this.askForFastFailover();
    try {
      await this.join();
    } catch (cause) {
      const refused = securityError(cause, conn, this.what, 'SOURCE_FAILED');
      if (refused !== undefined) throw refused;
      throw new WeirError(
        'SOURCE_FAILED',
        `Kafka source '${this.context.operatorId}' cannot join group '${this.config.groupId}': ${reasonOf(cause)}`,
        { cause, domain: 'external', retriable: true, operatorId: this.context.operatorId },
      );
    }
    this.observeInGroup();
    if (this.config.autoCommitIntervalMs > 0) {
      this.commitTimer = setInterval(() => {
        void this.commit(new Map(this.positions));
      }, this.config.autoCommitIntervalMs);
      this.commitTimer.unref();
    }
  }

  /**
   * Joins the group as a new member and reads what it assigns. Events of an
   * earlier member (one the group dropped) are no longer this reader's.
   */
  private async join(): Promise<void> {
    const consumer = this.newGroupConsumer();
    this.consumer = consumer;
    const start = this.config.startFrom;
    const fallback =
      start === 'latest' ||
      (typeof start === 'object' && 'committed' in start && start.committed === 'latest')
        ? 'latest'
        : 'earliest';
    let stream: MessagesStream<Buffer, Buffer, Buffer, Buffer>;
    try {
      stream = await consumer.consume({
        topics: this.topics,
        mode: 'committed',
        fallbackMode: fallback,
        autocommit: false,
        highWaterMark: 1024,
      });
    } catch (cause) {
      await Promise.resolve(consumer.close(true)).catch(() => {});
      throw cause;
    }
    this.stream = stream;
    stream.on('data', (m: Message<Buffer, Buffer, Buffer, Buffer>) => {
      if (stream === this.stream) this.onMessage(m);
    });
    stream.on('error', (e: unknown) => {
      if (stream === this.stream) this.fail(e);
    });
    // Still held back by a full queue or a schema lookup, as the dropped member's stream was.
    if (this.paused || this.held !== undefined) stream.pause();
  }

  private newGroupConsumer(): Consumer<Buffer, Buffer, Buffer, Buffer> {
    const common = {
      ...clientBase(this.config.connection, this.what),
      groupId: this.config.groupId!,
      isolationLevel: this.config.readCommitted ? 1 : 0,
      maxWaitTime: this.config.fetchMaxWaitMs,
    };
    if (this.config.groupProtocol === 'consumer') {
      const consumer = newConsumer({ ...common, ...PROCESS_GROUP_CONSUMER });
      watchAssignment(consumer, (tasks) => {
        if (consumer === this.consumer) this.assign(new Set(tasks.keys()));
      });
      watchDropped(consumer, () => {
        if (consumer !== this.consumer || this.closed) return;
        this.rejoining ??= this.rejoin().finally(() => {
          this.rejoining = undefined;
        });
      });
      return consumer;
    }
    // The classic protocol's client joins again by itself when the group dropped it.
    const consumer = newConsumer({
      ...common,
      sessionTimeout: 10_000,
      heartbeatInterval: 1_000,
      rebalanceTimeout: 15_000,
    });
    consumer.on('consumer:group:join', (payload) => {
      const next = new Set<string>();
      for (const a of payload.assignments ?? [])
        for (const p of a.partitions) next.add(`${a.topic}:${p}`);
      this.assign(next);
    });
    return consumer;
  }

  /**
   * After the group dropped this reader's member (consumer protocol, see
   * watchDropped): gives its partitions up as on a revocation, since the
   * group has given them to others (what was polled is in the next
   * checkpoint, whose offsets are committed only for partitions held
   * again), stops reading them, and joins again as a new member, which
   * resumes from the group's committed offsets; until the reader closes.
   */
  private async rejoin(): Promise<void> {
    this.config.onWarning(
      `${this.what}: the group '${this.config.groupId}' dropped this reader (paused past its session timeout); it gives up its partitions and joins again`,
    );
    const { consumer, stream } = this;
    this.stream = undefined;
    this.assign(new Set());
    await stream?.close().catch(() => {});
    await Promise.resolve(consumer.close(true)).catch(() => {});
    await joinAgain(
      () => this.join(),
      () => this.closed,
      (cause) => {
        // A member that failed once assigned may have said which partitions it would read.
        if (this.assigned.size > 0) this.assign(new Set());
        this.config.onWarning(
          `${this.what}: cannot join group '${this.config.groupId}' again: ${reasonOf(cause)}; trying again`,
        );
      },
    );
  }

  /**
   * A process group's members: the group's session timeout as short as the
   * brokers allow (they own it under the consumer protocol). A refusal (no
   * ALTER_CONFIGS right on the group, a broker before 3.8) leaves the
   * broker's default and says so; the group works either way.
   */
  private async askForFastFailover(): Promise<void> {
    const admin = newAdmin(this.config.connection, this.what);
    try {
      await applyGroupSession(
        admin,
        this.config.groupId!,
        this.config.groupSessionTimeoutMs,
        (line) => this.config.onWarning(`${this.what}: ${line}`),
      );
    } catch (cause) {
      this.config.onWarning(
        `${this.what}: cannot set the session timeout of group '${this.config.groupId}', so a killed member is noticed only after the broker's default (group.consumer.session.timeout.ms): ${reasonOf(cause)}`,
      );
    } finally {
      await admin.close().catch(() => {});
    }
  }

  private assign(next: Set<string>): void {
    this.assigned = next;
    setHeldTasks(this, next);
    for (const key of [...this.times.keys()]) if (!next.has(key)) this.times.delete(key);
    // A task that comes back resumes where its last owner committed, not where this reader left it.
    for (const key of [...this.positions.keys()]) if (!next.has(key)) this.positions.delete(key);
    this.config.groupObserver?.readerAssigned(this.readerId, [...next].sort());
  }

  /**
   * In a process group: registers with the process's observer and looks the
   * partitions' ends up every second, for the tasks' lag (a failed lookup
   * leaves the last known ends; lag is for watching, not for correctness).
   */
  private observeInGroup(): void {
    const observer = this.config.groupObserver;
    if (observer === undefined) return;
    observer.readerOpened(this.readerId, {
      tasks: () => this.taskProgress(),
      topicPartitions: () => this.partitionCounts,
    });
    observer.readerAssigned(this.readerId, [...this.assigned].sort());
    const lookUp = async (): Promise<void> => {
      const ends = await this.consumer.listOffsets({
        topics: this.topics,
        isolationLevel: this.config.readCommitted ? 1 : 0,
      });
      for (const [topic, offsets] of ends) {
        this.partitionCounts.set(topic, offsets.length);
        offsets.forEach((end, partition) => {
          this.endOffsets.set(`${topic}:${partition}`, Number(end));
        });
      }
    };
    const tick = () => {
      lookUp()
        .catch(() => {})
        .finally(() => {
          if (this.endOffsetTimer !== undefined)
            this.endOffsetTimer = setTimeout(tick, 1000).unref();
        });
    };
    this.endOffsetTimer = setTimeout(tick, 0).unref();
  }

  private taskProgress(): GroupTaskProgress[] {
    return [...this.assigned].sort().map((task) => ({
      task,
      position: this.positionOf(task),
      endOffset: this.endOffsets.get(task),
    }));
  }

  /**
   * The next offset the job reads in `task`: after the last record polled,
   * or, before any, where the consumer resumed it (the group's committed
   * offset) if none of its records waits in the queue.
   */
  private positionOf(task: string): number | undefined {
    const polled = this.positions.get(task);
    if (polled !== undefined) return polled;
    const waiting = this.queue.find((r) => r.key === task);
    if (waiting !== undefined) return waiting.offset;
    const fetching = this.stream?.offsetsToFetch.get(task);
    return fetching === undefined ? undefined : Number(fetching);
  }

  /**
   * In a process group the reader's state is queryable per task: key
   * `topic:partition`, value the next offset the job reads there.
   */
  queryState(key: Key): StateQueryAnswer {
    const task = String(key);
    const offset = this.assigned.has(task) ? this.positionOf(task) : undefined;
    const i = task.lastIndexOf(':');
    return stateAnswer(
      offset === undefined
        ? undefined
        : { topic: task.slice(0, i), partition: Number(task.slice(i + 1)), offset },
      this.context.operatorId,
      key,
    );
  }

  private onMessage(m: Message<Buffer, Buffer, Buffer, Buffer>): void {
    // A format that must look a schema up first (a registry) holds this
    // message, and those after it in order, until it has.
    if (this.held !== undefined) {
      this.held.push(m);
      return;
    }
    const ready = this.config.prepareValues?.([m.value ?? undefined]);
    if (ready !== undefined) {
      this.held = [m];
      this.stream?.pause();
      ready.then(
        () => this.releaseHeld(),
        (cause: unknown) => this.fail(cause),
      );
      return;
    }
    const key = `${m.topic}:${m.partition}`;
    const offset = Number(m.offset);
    const timestamp = Number(m.timestamp);
    // The stream hands over one message at a time: one addition each, no allocation.
    this.bytesRead.inc((m.key?.length ?? 0) + (m.value?.length ?? 0));
    let value: T;
    try {
      const { decodeValue, decodeRecord } = this.config;
      value =
        decodeValue !== undefined ? decodeValue(m.value ?? undefined) : decodeRecord!(toRecord(m));
    } catch (cause) {
      this.reject(m, key, offset, cause, undefined);
      return;
    }
    let time: number | WeirError;
    try {
      time = stampRecord(this.time?.assigner, value, timestamp, this.context.operatorId);
    } catch (cause) {
      this.fail(cause);
      return;
    }
    if (typeof time !== 'number') {
      this.reject(m, key, offset, time, time);
      return;
    }
    this.queue.push({ key, value, timestamp: time, offset });
    if (this.queue.size >= this.config.maxBufferedRecords && !this.paused) {
      this.paused = true;
      this.stream?.pause();
    }
    this.wakeUp();
  }

  private releaseHeld(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (let i = 0; i < held.length; i++) {
      if (this.held !== undefined) {
        // A later message needs another lookup: it and the rest wait for that one.
        (this.held as Message<Buffer, Buffer, Buffer, Buffer>[]).push(...held.slice(i));
        return;
      }
      this.onMessage(held[i]!);
    }
    if (this.held === undefined && !this.paused) this.stream?.resume();
  }

  /**
   * A record that cannot be read or has no event time, under the policy;
   * `asIs` is the error to fail with instead of BAD_RECORD.
   */
  private reject(
    m: Message<Buffer, Buffer, Buffer, Buffer>,
    key: string,
    offset: number,
    cause: unknown,
    asIs: WeirError | undefined,
  ): void {
    const record = toRecord(m);
    const reason = reasonOf(cause);
    const policy = this.deadLetters.count();
    if (policy === 'fail') {
      this.fail(asIs ?? kafkaBadRecordError(record, reason, this.context.operatorId));
    } else if (policy !== 'skip') {
      // Hold the stream until the dead letter is acknowledged.
      this.stream?.pause();
      this.dlq = this.dlq
        .then(() => this.deadLetters.send([{ record, reason }]))
        .then(
          () => {
            this.positions.set(key, Math.max(this.positions.get(key) ?? 0, offset + 1));
            if (!this.paused) this.stream?.resume();
          },
          (e: unknown) => this.fail(e),
        );
    }
  }

  private wakeUp(): void {
    this.queue.wake();
  }

  private fail(cause: unknown): void {
    this.failure ??= cause;
    this.wakeUp();
  }

  poll(): RecordBatch<T> | PollStatus {
    if (this.failure !== undefined) throw this.failure;
    const n = Math.min(this.context.batchSize, this.queue.size);
    if (n === 0) return 'wait';
    const values: T[] = new Array<T>(n);
    const timestamps: number[] = new Array<number>(n);
    const now = this.context.clock.now();
    const touched = new Set<PartitionTime<T>>();
    for (let i = 0; i < n; i++) {
      const r = this.queue.take()!;
      const ts = r.timestamp;
      values[i] = r.value;
      timestamps[i] = ts;
      this.positions.set(r.key, r.offset + 1);
      let pt = this.times.get(r.key);
      if (pt === undefined) {
        pt = new PartitionTime<T>(this.time?.createGenerator?.(), now);
        this.times.set(r.key, pt);
      }
      pt.onRecord(r.value, ts, now);
      touched.add(pt);
    }
    for (const pt of touched) pt.periodic();
    if (this.paused && this.queue.size < this.config.maxBufferedRecords / 2) {
      this.paused = false;
      this.stream?.resume();
    }
    // Event times were checked as the records arrived (stampRecord).
    return { values, timestamps, keys: undefined };
  }

  available(): Promise<void> {
    if (this.time?.idlenessMs !== undefined)
      this.idleAlarm.arm(
        [...this.times].filter(([key]) => this.assigned.has(key)).map(([, time]) => time),
        this.time.idlenessMs,
        this.context.clock.now(),
      );
    return this.queue.available(this.failure !== undefined);
  }

  currentWatermark(): number {
    if (this.time?.createGenerator === undefined) return Number.NEGATIVE_INFINITY;
    const now = this.context.clock.now();
    let min = Number.POSITIVE_INFINITY;
    for (const [key, pt] of this.times) {
      // Without the log end at hand, a partition with no records for the idleness timeout counts as caught up.
      if (!this.assigned.has(key) || pt.idle(true, now, this.time.idlenessMs, this.lastWatermark))
        continue;
      if (pt.watermark < min) min = pt.watermark;
    }
    if (min === Number.POSITIVE_INFINITY) return this.lastWatermark;
    if (min > this.lastWatermark) this.lastWatermark = min;
    return min;
  }

  isIdle(): boolean {
    if (this.time === undefined) return this.assigned.size === 0;
    const now = this.context.clock.now();
    for (const [key, pt] of this.times) {
      if (this.assigned.has(key) && !pt.idle(true, now, this.time.idlenessMs, this.lastWatermark))
        return false;
    }
    return this.queue.size === 0;
  }

  snapshot(checkpointId: number): Json {
    const offsets: Record<string, number> = {};
    for (const [k, v] of this.positions) offsets[k] = v;
    this.pendingOffsets.add(checkpointId, new Map(this.positions));
    // Informational: on restore, group mode resumes from the group's committed offsets.
    return { kafkaGroup: 1, offsets };
  }

  async notifyCheckpointComplete(checkpointId: number): Promise<void> {
    const positions = this.pendingOffsets.complete(checkpointId);
    if (positions !== undefined && this.config.commitOffsets) await this.commit(positions);
  }

  private async commit(positions: ReadonlyMap<string, number>): Promise<void> {
    await commitPositions(this.consumer, positions, this.assigned, this.commitFailures);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.idleAlarm.cancel();
    await this.rejoining;
    setHeldTasks(this, new Set());
    if (this.commitTimer !== undefined) clearInterval(this.commitTimer);
    if (this.endOffsetTimer !== undefined) clearTimeout(this.endOffsetTimer);
    this.endOffsetTimer = undefined;
    this.config.groupObserver?.readerClosed(this.readerId);
    await this.dlq.catch(() => {});
    await this.stream?.close().catch(() => {});
    await Promise.resolve(this.consumer?.close(true)).catch(() => {});
    await this.deadLetters.close();
  }
}

function toRecord(m: Message<Buffer, Buffer, Buffer, Buffer>): KafkaConsumerRecord {
  return {
    topic: m.topic,
    partition: m.partition,
    offset: Number(m.offset),
    timestamp: Number(m.timestamp),
    key: m.key ?? undefined,
    value: m.value ?? undefined,
    headers: [...m.headers].map(([k, v]) => [k.toString('utf8'), v] as const),
  };
}
