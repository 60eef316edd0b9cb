import {
  Admin,
  type Consumer,
  type GroupPartitionsAssigner,
  type MessagesStream,
} from '@platformatic/kafka';
import { WeirError } from '../../../core/errors.js';
import { ensureTopics, newConsumer } from '../client.js';
import { reasonOf } from '../config.js';
import { groupTimeoutsFor } from './group-timeouts.js';
import { type GroupTask, watchAssignment } from './task-group.js';

/**
 * Failure detection of the ownership group by default: the broker declares
 * an owner dead after `sessionTimeoutMs` without a heartbeat. 6 s is the
 * least a broker with default settings accepts (`group.min.session.timeout.ms`),
 * and with a heartbeat every second several may be missed on a busy machine
 * first. `--session-timeout` asks for another session where the broker allows.
 */
export const SINGLE_OWNER_TIMING = {
  sessionTimeoutMs: 6_000,
  heartbeatIntervalMs: 1_000,
  rebalanceTimeoutMs: 10_000,
} as const;

export interface SingleOwnerOptions {
  readonly brokers: readonly string[];
  /** The process group's id (`--group`). */
  readonly applicationId: string;
  /** Names the task: one ownership topic and group per task. */
  readonly task: string;
  /** Names this member in client ids and messages. */
  readonly memberName?: string;
  readonly sessionTimeoutMs?: number;
  readonly heartbeatIntervalMs?: number;
}

/**
 * The topic whose single partition stands for a single-owner task:
 * `weir-<group>-<task>-owner`. Characters Kafka does not allow become `_`.
 */
export function ownershipTopicName(applicationId: string, task: string): string {
  const safe = (s: string) => s.replace(/[^a-zA-Z0-9._-]/g, '_');
  return `weir-${safe(applicationId)}-${safe(task)}-owner`;
}

/** The consumer group deciding who owns the task (not the group of the Kafka tasks). */
export function ownershipGroupId(applicationId: string, task: string): string {
  return `${ownershipTopicName(applicationId, task)}-group`;
}

/**
 * Gives every partition to the group's leader. The coordinator keeps the
 * leader while it stays in the group, so a member joining or leaving does
 * not move the task; only the owner's death or departure does, and then to
 * the member the coordinator makes leader next.
 */
export const leaderOwnsTask: GroupPartitionsAssigner = (leader, members, topics, metadata) => {
  const assignments = new Map<string, { topic: string; partitions: number[] }>();
  for (const topic of topics) {
    const count = metadata.topics.get(topic)?.partitionsCount ?? 0;
    assignments.set(topic, { topic, partitions: Array.from({ length: count }, (_, i) => i) });
  }
  return [...members.keys()].map((memberId) => ({
    memberId,
    assignments: memberId === leader ? assignments : new Map(),
  }));
};

/**
 * Ownership of one single-owner task (a job whose source is not Kafka: a
 * PostgreSQL replication slot, files) by one member of a process group at a
 * time. The task is the one partition of an ownership topic Weir creates;
 * the members form a consumer group over it, and the member the group
 * assigns the partition to runs the task. Failure detection and hand-over
 * are the group coordinator's; Weir runs no lock service of its own.
 *
 * The group uses the classic protocol: its session timeout is the client's
 * to ask for within the broker's `group.min.session.timeout.ms` (6 s by
 * default), whereas under the consumer protocol (KIP-848) the broker sets it
 * (45 s by default, and never under its 45 s minimum unless reconfigured).
 */
export class SingleOwnerTask {
  private owned = false;
  private closed = false;
  private readonly acquiredWaiters: (() => void)[] = [];
  private readonly lostListeners: (() => void)[] = [];

  private constructor(
    private readonly consumer: Consumer,
    private readonly stream: MessagesStream<Buffer, Buffer, Buffer, Buffer>,
    readonly topic: string,
  ) {
    watchAssignment(consumer, (tasks) => this.update(tasks));
  }

  /** Creates the ownership topic if needed and joins the task's group. */
  static async join(options: SingleOwnerOptions): Promise<SingleOwnerTask> {
    const topic = ownershipTopicName(options.applicationId, options.task);
    const groupId = ownershipGroupId(options.applicationId, options.task);
    const name = options.memberName ?? `pid-${process.pid}`;
    const clientId = `weir-${options.applicationId}-${name}`;
    const admin = new Admin({
      clientId,
      bootstrapBrokers: [...options.brokers],
      retries: 5,
      retryDelay: 200,
    });
    const sessionTimeout = options.sessionTimeoutMs ?? SINGLE_OWNER_TIMING.sessionTimeoutMs;
    const heartbeat =
      options.heartbeatIntervalMs ?? groupTimeoutsFor(sessionTimeout).heartbeatIntervalMs;
    const consumer = newConsumer({
      clientId,
      bootstrapBrokers: [...options.brokers],
      groupId,
      sessionTimeout,
      heartbeatInterval: heartbeat,
      rebalanceTimeout: Math.max(sessionTimeout, SINGLE_OWNER_TIMING.rebalanceTimeoutMs),
      partitionAssigner: leaderOwnsTask,
      retries: 5,
      retryDelay: 200,
    });
    try {
      await ensureTopics(admin, [topic], 1);
      // The topic stays empty: the stream is how the client joins and stays in the group.
      const stream = await consumer.consume({
        topics: [topic],
        mode: 'latest',
        autocommit: false,
        maxWaitTime: 1_000,
      });
      return new SingleOwnerTask(consumer, stream, topic);
    } catch (cause) {
      await Promise.resolve(consumer.close(true)).catch(() => {});
      const reason = reasonOf(cause);
      // The broker answers INVALID_SESSION_TIMEOUT outside group.min/max.session.timeout.ms.
      const hint = /session.?timeout/i.test(reason)
        ? ` (asked for ${sessionTimeout} ms: set --session-timeout within the brokers' bounds, 6 s to 30 min by default)`
        : '';
      throw new WeirError(
        'PROCESS_GROUP_FAILED',
        `cannot join the owners of task '${options.task}' in process group '${options.applicationId}' on ${options.brokers.join(',')}: ${reason}${hint}`,
        { cause, domain: 'external', retriable: true },
      );
    } finally {
      await admin.close().catch(() => {});
    }
  }

  /** Whether this member owns the task now. */
  get isOwner(): boolean {
    return this.owned;
  }

  /** Resolves once this member owns the task (at once if it does). */
  acquired(): Promise<void> {
    if (this.owned) return Promise.resolve();
    return new Promise((resolve) => this.acquiredWaiters.push(resolve));
  }

  /** Calls `listener` once if this member, having owned the task, loses it. */
  onLost(listener: () => void): void {
    this.lostListeners.push(listener);
  }

  private update(tasks: ReadonlyMap<string, GroupTask>): void {
    if (this.closed) return;
    const owns = [...tasks.values()].some((t) => t.topic === this.topic);
    if (owns === this.owned) return;
    this.owned = owns;
    if (owns) for (const resolve of this.acquiredWaiters.splice(0)) resolve();
    else for (const listener of this.lostListeners.splice(0)) listener();
  }

  /** Leaves the group: the coordinator hands the task to another member at once. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.stream.close().catch(() => {});
    await Promise.resolve(this.consumer.close(true)).catch(() => {});
  }
}
