import type { Admin, Consumer } from '@platformatic/kafka';
import { WeirError } from '../../../core/errors.js';
import type { RecordBatch } from '../../../core/record-batch.js';
import type { Json } from '../../../core/snapshot.js';
import type { PollStatus, SourceContext, SourceReader } from '../../../core/source.js';
import { bytesReadCounter } from '../../../metrics/connector-metrics.js';
import type { Counter } from '../../../metrics/registry.js';
import {
  commitGroupOffsets,
  committedOffsets,
  describePartitions,
  EARLIEST,
  hasApiError,
  LATEST,
  listOffsets,
  newAdmin,
  newFetcher,
  type PartitionInfo,
  topicsMatching,
} from '../client.js';
import { reasonOf } from '../config.js';
import type { KafkaConsumerRecord } from '../consumer-record.js';
import { DeadLetters, kafkaBadRecordError } from '../dead-letter.js';
import { setHeldTasks } from '../group/held-tasks.js';
import { isClusterUnreachable, KafkaReconnector, reconnectsCounter } from '../reconnect.js';
import { consumerRecord, forEachRecord, prepareChunk } from '../records.js';
import { isSecurityFailure } from '../security.js';
import { resolveBound } from './offset-bounds.js';
import { Partition } from './partition-buffer.js';
import {
  IdleTimeoutAlarm,
  PartitionTime,
  type SourceTimeSpec,
  sourceTimeSpec,
  stampRecord,
} from './partition-time.js';
import { offsetCommitFailures, PendingOffsets } from './pending-offsets.js';
import { ReplayMerge } from './replay-merge.js';
import { ownerOf, type SourceConfig } from './source-options.js';

const PER_PARTITION_MAX_BYTES = 4 << 20;

/**
 * A source reader that owns the partitions `ownerOf(topic, partition) ===
 * subtask`, fetches them from their leaders in the background and keeps its
 * positions in checkpoints.
 *
 * A replay (`config.replayStart` set) reads every partition in one reader and
 * polls through a {@link ReplayMerge}, so its output is a function of the
 * records in the range alone.
 */
export class AssignedReader<T> implements SourceReader<T> {
  private readonly partitions = new Map<string, Partition<T>>();
  private order: Partition<T>[] = [];
  private rr = 0;
  private readonly time: SourceTimeSpec<T> | undefined;
  private admin!: Admin;
  private fetcher!: Consumer;
  private readonly deadLetters: DeadLetters;
  private failure: unknown;
  private closed = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private stopBackoff: (() => void) | undefined;
  private dataArrived: { promise: Promise<void>; resolve: () => void } | undefined;
  private readonly idleAlarm = new IdleTimeoutAlarm(() => this.signalData());
  private lastDiscovery = 0;
  private knownTopics: string[] = [];
  private buffered = 0;
  private lastWatermark = Number.NEGATIVE_INFINITY;
  private holder: string | undefined;
  /** Positions of checkpoints not yet complete. */
  private readonly pendingOffsets = new PendingOffsets();
  private readonly commitFailures: Counter;
  private readonly bytesRead: Counter;
  private readonly restored: Map<string, number> | undefined;
  /** A restored replay: the ends it resolved when it first opened. */
  private readonly restoredEnds: Map<string, number> | undefined;
  /** Each restored partition's event-time progress (`PartitionTime.snapshot`). */
  private readonly restoredTimes: Map<string, Json> | undefined;
  private readonly reconnector: KafkaReconnector;
  /** Partition counts of the topics read, for a process group's observer. */
  private readonly partitionCounts = new Map<string, number>();
  /** Replay only: the deterministic poll. */
  private merge: ReplayMerge<T> | undefined;

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
    // At another parallelism every old subtask's offsets arrive: together
    // they cover every partition once, and `discover` keeps the ones this
    // subtask owns now.
    const restored = context.restoredPositions ?? [context.restoredPosition];
    this.restored = mergePositions(restored, context.operatorId, 'offsets');
    this.restoredEnds = mergePositions(restored, context.operatorId, 'ends');
    this.restoredTimes = mergeTimes(restored);
    this.reconnector = new KafkaReconnector(
      config.connection,
      `Kafka source '${context.operatorId}' (subtask ${context.subtaskIndex})`,
      { log: config.onWarning, counter: reconnectsCounter(context.metrics) },
    );
    context.metrics.gauge(
      'weir_kafka_source_partitions',
      'Partitions assigned to this reader',
      () => this.partitions.size,
    );
  }

  /** Names the reader to a process group's observer. */
  private get readerId(): string {
    return `${this.context.operatorId}/${this.context.subtaskIndex}`;
  }

  async open(): Promise<void> {
    this.config.groupObserver?.readerOpened(this.readerId, {
      tasks: () =>
        [...this.partitions.values()].map((p) => ({
          task: p.key,
          position: p.position,
          endOffset: p.endOffset < 0 ? undefined : p.endOffset,
        })),
      topicPartitions: () => this.partitionCounts,
    });
    const what = `Kafka source '${this.context.operatorId}' (subtask ${this.context.subtaskIndex})`;
    this.admin = newAdmin(this.config.connection, what);
    this.fetcher = newFetcher(this.config.connection, this.config.readCommitted ? 1 : 0, what);
    try {
      await this.reconnector.run(
        'read its partitions',
        'SOURCE_FAILED',
        () => this.discover(true),
        () => this.closed,
      );
    } catch (cause) {
      await this.close();
      if (cause instanceof WeirError) throw cause;
      throw new WeirError(
        'SOURCE_FAILED',
        `Kafka source '${this.context.operatorId}' cannot read its partitions from ${this.config.connection.brokers.join(',')}: ${reasonOf(cause)}`,
        { cause, domain: 'external', retriable: true, operatorId: this.context.operatorId },
      );
    }
    this.loop = this.run();
  }

  /** Finds the partitions this subtask owns and adds new ones, resolving where each starts. */
  private async discover(initial: boolean): Promise<void> {
    this.lastDiscovery = this.context.clock.now();
    const topics =
      this.config.topics !== undefined
        ? [...this.config.topics]
        : await topicsMatching(this.admin, this.config.topicPattern!);
    this.knownTopics = topics;
    const all = await describePartitions(this.fetcher, topics);
    const { subtaskIndex, parallelism } = this.context;
    const ends = this.restoredEnds;
    const fixed = this.config.fixedTasks?.();
    for (const p of all)
      this.partitionCounts.set(
        p.topic,
        Math.max(this.partitionCounts.get(p.topic) ?? 0, p.partition + 1),
      );
    const mine =
      this.config.replayStart === undefined
        ? all.filter(
            (p) =>
              ownerOf(p.topic, p.partition, parallelism) === subtaskIndex &&
              (fixed === undefined || fixed.has(`${p.topic}:${p.partition}`)),
          )
        : ends === undefined
          ? all
          : // A restored replay reads the partitions it read before, no new ones.
            all.filter((p) => ends.has(`${p.topic}:${p.partition}`));
    const fresh: PartitionInfo[] = [];
    for (const info of mine) {
      const existing = this.partitions.get(`${info.topic}:${info.partition}`);
      if (existing !== undefined) existing.info = info;
      else fresh.push(info);
    }
    // A replay reads the partitions there were when it opened, no others.
    if (!initial && (fresh.length === 0 || this.merge !== undefined)) return;
    const starts = await this.startOffsets(fresh, initial);
    let stops: Map<string, number> | undefined;
    if (this.config.stopAt !== undefined) {
      stops = await resolveBound(
        this.fetcher,
        fresh,
        this.config.stopAt,
        this.config.readCommitted ? 1 : 0,
      );
    }
    const now = this.context.clock.now();
    for (const info of fresh) {
      const key = `${info.topic}:${info.partition}`;
      const offset = starts.get(key) ?? 0;
      const time = new PartitionTime<T>(this.time?.createGenerator?.(), now);
      const restoredTime = this.restoredTimes?.get(key);
      if (restoredTime !== undefined) time.restore(restoredTime);
      const p = new Partition<T>(info, offset, time);
      if (stops !== undefined) p.stopOffset = this.restoredEnds?.get(key) ?? stops.get(key) ?? 0;
      this.partitions.set(key, p);
      this.registerMetrics(p);
    }
    this.order = [...this.partitions.values()];
    if (fixed !== undefined) {
      const held = [...this.partitions.keys()].sort();
      setHeldTasks(this, new Set(held));
      this.config.groupObserver?.readerAssigned(this.readerId, held);
    }
    if (this.config.replayStart !== undefined) {
      // Discovery is off in a replay: this runs once, when the reader opens.
      this.order.sort((a, b) =>
        a.info.topic < b.info.topic
          ? -1
          : a.info.topic > b.info.topic
            ? 1
            : a.info.partition - b.info.partition,
      );
      this.merge = new ReplayMerge(
        this.order,
        this.context.batchSize,
        () => this.context.clock.now(),
        () => this.buffered--,
      );
    }
    this.wake?.();
  }

  /** Where new partitions start: the restored position, else the configured start (initially) or earliest (discovered later). */
  private async startOffsets(
    fresh: PartitionInfo[],
    initial: boolean,
  ): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    const rest: PartitionInfo[] = [];
    for (const info of fresh) {
      const key = `${info.topic}:${info.partition}`;
      const restored = this.restored?.get(key);
      if (restored !== undefined) out.set(key, restored);
      else rest.push(info);
    }
    if (rest.length === 0) return out;
    const iso = this.config.readCommitted ? 1 : 0;
    if (this.config.replayStart !== undefined) {
      for (const [k, o] of await resolveBound(this.fetcher, rest, this.config.replayStart, iso))
        out.set(k, o);
      return out;
    }
    // A process group's fixed tasks without a restored position start from the group's committed offsets.
    const spec =
      (initial && this.restored === undefined) || this.config.fixedTasks !== undefined
        ? this.config.startFrom
        : 'earliest';
    const resolve = async (parts: PartitionInfo[], which: 'earliest' | 'latest') => {
      const offsets = await listOffsets(
        this.fetcher,
        parts,
        which === 'earliest' ? EARLIEST : LATEST,
        iso,
      );
      for (const [k, o] of offsets) out.set(k, Number(o));
    };
    if (spec === 'earliest' || spec === 'latest') {
      await resolve(rest, spec);
    } else if ('committed' in spec) {
      const committed = await committedOffsets(this.admin, this.config.groupId!, rest);
      for (const [k, o] of committed) out.set(k, Number(o));
      await resolve(
        rest.filter((p) => !committed.has(`${p.topic}:${p.partition}`)),
        spec.committed,
      );
    } else if ('timestamp' in spec) {
      const byTime = await listOffsets(this.fetcher, rest, BigInt(Math.floor(spec.timestamp)), iso);
      const missing: PartitionInfo[] = [];
      for (const p of rest) {
        const o = byTime.get(`${p.topic}:${p.partition}`);
        if (o === undefined || o < 0n) missing.push(p);
        else out.set(`${p.topic}:${p.partition}`, Number(o));
      }
      await resolve(missing, 'latest');
    } else {
      const missing: PartitionInfo[] = [];
      for (const p of rest) {
        const o = spec.offsets[p.topic]?.[p.partition];
        if (o === undefined) missing.push(p);
        else out.set(`${p.topic}:${p.partition}`, o);
      }
      await resolve(missing, spec.fallback ?? 'earliest');
    }
    return out;
  }

  private registerMetrics(p: Partition<T>): void {
    const m = this.context.metrics.child({
      topic: p.info.topic,
      partition: String(p.info.partition),
    });
    m.gauge(
      'weir_kafka_partition_lag',
      'Records between the position and the end of the partition',
      () => (p.endOffset < 0 ? 0 : Math.max(0, p.endOffset - p.position)),
    );
    m.gauge('weir_kafka_partition_offset', 'Offset of the next record to emit', () => p.position);
    m.gauge(
      'weir_kafka_partition_watermark_timestamp_seconds',
      'Watermark of the partition, in seconds since the epoch',
      () => p.time.watermark / 1000,
    );
    m.gauge('weir_kafka_partition_idle', '1 while the partition is idle', () =>
      this.partitionIdle(p, this.context.clock.now()) ? 1 : 0,
    );
    m.gauge(
      'weir_kafka_partition_holds_watermark',
      '1 on the partition whose watermark is the minimum, holding back the source',
      () => (this.holder === p.key ? 1 : 0),
    );
  }

  // ---------------------------------------------------------------- fetching

  private async run(): Promise<void> {
    while (!this.closed) {
      try {
        if (
          this.config.discoveryIntervalMs > 0 &&
          this.context.clock.now() - this.lastDiscovery >= this.config.discoveryIntervalMs
        ) {
          await this.discover(false);
        }
        const max = this.config.maxBufferedRecords;
        const wanted = this.order.filter(
          (p) =>
            p.fetchOffset < p.stopOffset &&
            ((p.buffered < max / 2 && this.buffered < max) ||
              // The replay's merge waits for a partition with nothing buffered:
              // fetch it whatever the others hold, or the merge would never move.
              (this.merge !== undefined && p.chunks.length === 0)),
        );
        if (wanted.length === 0) {
          await this.sleep(this.config.fetchMaxWaitMs);
          continue;
        }
        const byLeader = new Map<number, Partition<T>[]>();
        for (const p of wanted) {
          const list = byLeader.get(p.info.leader) ?? [];
          list.push(p);
          byLeader.set(p.info.leader, list);
        }
        await Promise.all([...byLeader].map(([leader, parts]) => this.fetchFrom(leader, parts)));
        this.reconnector.recovered();
      } catch (cause) {
        if (this.closed) return;
        if (cause instanceof WeirError) {
          this.fail(cause);
          return;
        }
        if (isClusterUnreachable(cause) || isSecurityFailure(cause)) {
          // Positions stay where they are; fetching resumes from them.
          try {
            await this.backoff(this.reconnector.failed(cause, 'fetch records', 'SOURCE_FAILED'));
          } catch (outage) {
            this.fail(outage);
            return;
          }
          await this.discover(false).catch(() => {});
          continue;
        }
        // Leadership moved, a broker restarted, a topic vanished: refresh and retry.
        const code =
          typeof cause === 'object' && cause !== null
            ? (cause as { errorCode?: unknown }).errorCode
            : undefined;
        if (hasApiError(cause, 'OFFSET_OUT_OF_RANGE') || code === 1) {
          await this.resetOutOfRange().catch(() => {});
        }
        await this.sleep(200);
        try {
          await this.discover(false);
        } catch {
          // retried next round
        }
      }
    }
  }

  private async fetchFrom(leader: number, parts: Partition<T>[]): Promise<void> {
    const byTopic = new Map<string, Partition<T>[]>();
    for (const p of parts) {
      const list = byTopic.get(p.info.topicId) ?? [];
      list.push(p);
      byTopic.set(p.info.topicId, list);
    }
    const response = await this.fetcher.fetch({
      node: leader,
      maxWaitTime: this.config.fetchMaxWaitMs,
      minBytes: 1,
      maxBytes: 32 << 20,
      isolationLevel: this.config.readCommitted ? 1 : 0,
      topics: [...byTopic].map(([topicId, ps]) => ({
        topicId,
        partitions: ps.map((p) => ({
          partition: p.info.partition,
          fetchOffset: BigInt(p.fetchOffset),
          partitionMaxBytes: PER_PARTITION_MAX_BYTES,
          currentLeaderEpoch: -1,
          lastFetchedEpoch: -1,
          logStartOffset: -1n,
        })),
      })),
    });
    if (this.closed) return;
    let arrived = false;
    for (const topic of response.responses) {
      const ps = byTopic.get(topic.topicId);
      if (ps === undefined) continue;
      for (const rp of topic.partitions) {
        const p = ps.find((x) => x.info.partition === rp.partitionIndex);
        if (p === undefined) continue;
        if (rp.errorCode !== 0)
          throw Object.assign(new Error(`fetch error ${rp.errorCode}`), {
            errorCode: rp.errorCode,
          });
        p.endOffset = Number(this.config.readCommitted ? rp.lastStableOffset : rp.highWatermark);
        if (await this.accept(p, rp)) arrived = true;
      }
    }
    if (arrived) this.signalData();
  }

  /** Decodes a partition's fetched records into a chunk; returns whether anything was queued. */
  private async accept(p: Partition<T>, rp: Parameters<typeof forEachRecord>[0]): Promise<boolean> {
    // A format that looks schemas up (a registry) does so for the whole chunk before it is decoded.
    if (this.config.prepareValues !== undefined)
      await prepareChunk(rp, p.fetchOffset, this.config.prepareValues);
    const values: T[] = [];
    const timestamps: number[] = [];
    const offsets: number[] = [];
    const bad: { record: KafkaConsumerRecord; reason: string }[] = [];
    let failure: unknown;
    let failedAt = -1;
    const { decodeValue, decodeRecord } = this.config;
    const assigner = this.time?.assigner;
    const operatorId = this.context.operatorId;
    // A record that cannot be read or has no event time, under the policy;
    // `asIs` is the error to fail with instead of BAD_RECORD.
    const reject = (full: KafkaConsumerRecord, cause: unknown, asIs: WeirError | undefined) => {
      const reason = reasonOf(cause);
      const policy = this.deadLetters.count();
      if (policy === 'fail') {
        failure = asIs ?? kafkaBadRecordError(full, reason, operatorId);
        failedAt = full.offset;
      } else if (policy !== 'skip') {
        bad.push({ record: full, reason });
      }
    };
    const topic = p.info.topic;
    const partition = p.info.partition;
    const stop = p.stopOffset;
    let bytes = 0;
    let next = forEachRecord(rp, p.fetchOffset, (record, offset, ts, epoch) => {
      if (failure !== undefined || offset >= stop) return;
      bytes += (record.key?.length ?? 0) + (record.value?.length ?? 0);
      let value: T;
      try {
        value =
          decodeValue !== undefined
            ? decodeValue(record.value ?? undefined)
            : decodeRecord!(consumerRecord(topic, partition, record, offset, ts, epoch));
      } catch (cause) {
        reject(consumerRecord(topic, partition, record, offset, ts, epoch), cause, undefined);
        return;
      }
      let time: number | WeirError;
      try {
        time = stampRecord(assigner, value, ts, operatorId);
      } catch (cause) {
        failure = cause;
        failedAt = offset;
        return;
      }
      if (typeof time !== 'number') {
        reject(consumerRecord(topic, partition, record, offset, ts, epoch), time, time);
        return;
      }
      values.push(value);
      timestamps.push(time);
      offsets.push(offset);
    });
    this.bytesRead.inc(bytes);
    if (next > stop) next = stop;
    if (failure !== undefined) next = failedAt;
    // Dead letters are acknowledged before the position can pass them.
    if (bad.length > 0) await this.deadLetters.send(bad);
    if (next <= p.fetchOffset && values.length === 0 && failure === undefined) return false;
    p.fetchOffset = failure !== undefined ? Number.POSITIVE_INFINITY : next;
    p.chunks.push({ values, timestamps, offsets, end: next, failure, next: 0 });
    p.buffered += values.length;
    this.buffered += values.length;
    return true;
  }

  private async resetOutOfRange(): Promise<void> {
    const parts = this.order;
    const iso = this.config.readCommitted ? 1 : 0;
    const earliest = await listOffsets(
      this.fetcher,
      parts.map((p) => p.info),
      EARLIEST,
      iso,
    );
    const latest = await listOffsets(
      this.fetcher,
      parts.map((p) => p.info),
      LATEST,
      iso,
    );
    for (const p of parts) {
      const lo = Number(earliest.get(p.key) ?? 0n);
      const hi = Number(latest.get(p.key) ?? 0n);
      if (p.buffered === 0 && (p.fetchOffset < lo || p.fetchOffset > hi)) {
        // Records were deleted by retention before they were read: start at the earliest left.
        p.fetchOffset = lo;
        p.position = lo;
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wake = undefined;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(t);
        this.wake = undefined;
        resolve();
      };
    });
  }

  /** Waits before a retry; only closing cuts it short (polls do not). */
  private backoff(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.stopBackoff = undefined;
        resolve();
      }, ms);
      this.stopBackoff = () => {
        clearTimeout(t);
        this.stopBackoff = undefined;
        resolve();
      };
    });
  }

  private signalData(): void {
    const d = this.dataArrived;
    this.dataArrived = undefined;
    d?.resolve();
  }

  private fail(cause: unknown): void {
    this.failure ??= cause;
    this.signalData();
  }

  // ---------------------------------------------------------------- polling

  poll(): RecordBatch<T> | PollStatus {
    if (this.failure !== undefined) throw this.failure;
    if (this.merge !== undefined) {
      const result = this.merge.poll();
      this.wake?.();
      return result;
    }
    const max = this.context.batchSize;
    const values: T[] = [];
    const timestamps: number[] = [];
    const now = this.context.clock.now();
    const parts = this.order;
    let pendingFailure: unknown;
    for (let tried = 0; tried < parts.length && values.length < max; tried++) {
      const p = parts[(this.rr + tried) % parts.length]!;
      let took = false;
      while (values.length < max && p.chunks.length > 0) {
        const chunk = p.chunks[0]!;
        const n = Math.min(max - values.length, chunk.values.length - chunk.next);
        for (let i = chunk.next; i < chunk.next + n; i++) {
          const v = chunk.values[i]!;
          const ts = chunk.timestamps[i]!;
          values.push(v);
          timestamps.push(ts);
          p.time.onRecord(v, ts, now);
        }
        if (n > 0) {
          chunk.next += n;
          p.position = chunk.offsets[chunk.next - 1]! + 1;
          p.buffered -= n;
          this.buffered -= n;
          took = true;
        }
        if (chunk.next < chunk.values.length) break;
        p.chunks.shift();
        if (chunk.end > p.position) p.position = chunk.end;
        if (chunk.failure !== undefined) {
          pendingFailure = chunk.failure;
          break;
        }
      }
      if (took) p.time.periodic();
      if (pendingFailure !== undefined) break;
    }
    this.rr = parts.length === 0 ? 0 : (this.rr + 1) % parts.length;
    if (pendingFailure !== undefined) this.failure = pendingFailure;
    if (values.length > 0) {
      this.wake?.();
      // Event times were checked as the records were decoded (stampRecord).
      return { values, timestamps, keys: undefined };
    }
    if (this.failure !== undefined) throw this.failure;
    if (this.config.bounded && this.order.every((p) => p.done)) return 'end';
    this.wake?.();
    return 'wait';
  }

  available(): Promise<void> {
    if (this.failure !== undefined) return Promise.resolve();
    if (this.merge === undefined ? this.buffered > 0 : this.merge.ready()) return Promise.resolve();
    if (this.dataArrived === undefined) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => {
        resolve = r;
      });
      this.dataArrived = { promise, resolve };
    }
    if (this.merge === undefined && this.time?.idlenessMs !== undefined)
      this.idleAlarm.arm(
        this.order.filter((p) => !p.done).map((p) => p.time),
        this.time?.idlenessMs,
        this.context.clock.now(),
      );
    return this.dataArrived.promise;
  }

  private partitionIdle(p: Partition<T>, now: number): boolean {
    if (p.done) return true;
    if (this.merge !== undefined) return false;
    // In a process group, as in group mode: a task with no record since the
    // reader opened holds nothing back (an empty partition would stall every
    // stage after it; its idleness crosses the repartition topics).
    if (this.config.fixedTasks !== undefined && !p.time.hadRecord) return true;
    return p.time.idle(p.caughtUp(), now, this.time?.idlenessMs, this.lastWatermark);
  }

  currentWatermark(): number {
    if (this.time?.createGenerator === undefined) return Number.NEGATIVE_INFINITY;
    if (this.merge !== undefined) return this.merge.watermark;
    const now = this.context.clock.now();
    let min = Number.POSITIVE_INFINITY;
    let holder: string | undefined;
    for (const p of this.order) {
      if (this.partitionIdle(p, now)) continue;
      if (p.time.watermark < min) {
        min = p.time.watermark;
        holder = p.key;
      }
    }
    this.holder = holder;
    if (min === Number.POSITIVE_INFINITY) return this.lastWatermark;
    if (min > this.lastWatermark) this.lastWatermark = min;
    return min;
  }

  isIdle(): boolean {
    // A replay is never idle: the clock must not shape its output.
    if (this.merge !== undefined) return false;
    if (this.order.length === 0) return true;
    if (this.time === undefined) return false;
    const now = this.context.clock.now();
    return this.order.every((p) => this.partitionIdle(p, now));
  }

  // ---------------------------------------------------------------- checkpoints

  snapshot(checkpointId: number): Json {
    const offsets: Record<string, number> = {};
    const positions = new Map<string, number>();
    // A replay holds records of its next batch: its position is the last batch's.
    const at = this.merge?.position();
    for (const p of this.order) {
      const position = at?.get(p.key) ?? p.position;
      offsets[p.key] = position;
      positions.set(p.key, position);
    }
    if (this.config.commitOffsets) this.pendingOffsets.add(checkpointId, positions);
    if (this.merge === undefined) {
      if (this.time?.createGenerator === undefined) return { kafka: 1, offsets };
      const time: Record<string, Json> = {};
      for (const p of this.order) time[p.key] = p.time.snapshot();
      return { kafka: 1, offsets, time };
    }
    // A restored replay ends where it was going to, even if the topics grew since.
    const ends: Record<string, number> = {};
    for (const p of this.order) ends[p.key] = p.stopOffset;
    return { kafka: 1, offsets, ends };
  }

  async notifyCheckpointComplete(checkpointId: number): Promise<void> {
    const positions = this.pendingOffsets.complete(checkpointId);
    if (positions === undefined || this.closed) return;
    try {
      await commitGroupOffsets(
        this.admin,
        this.config.groupId!,
        new Map([...positions].map(([k, v]) => [k, BigInt(v)])),
      );
    } catch {
      this.commitFailures.inc();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.idleAlarm.cancel();
    if (this.config.fixedTasks !== undefined) setHeldTasks(this, new Set());
    this.config.groupObserver?.readerClosed(this.readerId);
    this.wake?.();
    this.stopBackoff?.();
    await this.loop?.catch(() => {});
    await Promise.allSettled([
      this.fetcher?.close(true),
      this.admin?.close(),
      this.deadLetters.close(),
    ]);
  }

  /** Records fetched and not yet polled (a repartition reader is idle only without any). */
  get bufferedRecords(): number {
    return this.buffered;
  }

  /** @internal For tests and the group reader: topics currently read. */
  get topics(): readonly string[] {
    return this.knownTopics;
  }
}

/** The positions of several snapshots as one map (undefined when none holds any). */
function mergePositions(
  snapshots: readonly (Json | undefined)[],
  operatorId: string,
  field: 'offsets' | 'ends',
): Map<string, number> | undefined {
  let merged: Map<string, number> | undefined;
  for (const json of snapshots) {
    const one = parsePosition(json, operatorId, field);
    if (one === undefined) continue;
    merged ??= new Map();
    for (const [k, v] of one) merged.set(k, v);
  }
  return merged;
}

/** The partitions' event-time progress in several snapshots, by partition (undefined when none holds any). */
function mergeTimes(snapshots: readonly (Json | undefined)[]): Map<string, Json> | undefined {
  let merged: Map<string, Json> | undefined;
  for (const json of snapshots) {
    if (json === undefined || json === null || typeof json !== 'object' || Array.isArray(json))
      continue;
    const time = json.time;
    if (time === undefined || time === null || typeof time !== 'object' || Array.isArray(time))
      continue;
    merged ??= new Map();
    for (const [k, v] of Object.entries(time)) merged.set(k, v);
  }
  return merged;
}

function parsePosition(
  json: Json | undefined,
  operatorId: string,
  field: 'offsets' | 'ends',
): Map<string, number> | undefined {
  if (json === undefined || json === null) return undefined;
  // A process group's task snapshots merge into `kafkaGroup` positions of the same shape.
  if (
    typeof json !== 'object' ||
    Array.isArray(json) ||
    (json.kafka !== 1 && json.kafkaGroup !== 1)
  ) {
    throw new WeirError(
      'INVALID_JOB',
      `source '${operatorId}': the checkpoint holds a position that is not a Kafka source's`,
      { operatorId },
    );
  }
  const offsets = json[field];
  if (field === 'ends' && offsets === undefined) return undefined;
  const out = new Map<string, number>();
  if (offsets !== null && typeof offsets === 'object' && !Array.isArray(offsets)) {
    for (const [k, v] of Object.entries(offsets)) if (typeof v === 'number') out.set(k, v);
  }
  return out;
}
