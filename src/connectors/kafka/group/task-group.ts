import { setTimeout as sleep } from 'node:timers/promises';
import type { Consumer, MessagesStream } from '@platformatic/kafka';
import { WeirError } from '../../../core/errors.js';
import { hasApiError, newConsumer } from '../client.js';
import { reasonOf } from '../config.js';

/** One unit of work of a process group: one partition of one stage's input topic. */
export interface GroupTask {
  readonly topic: string;
  readonly partition: number;
}

/** What changed in this member's tasks, and what it holds now. */
export interface AssignmentChange {
  readonly assigned: readonly GroupTask[];
  readonly revoked: readonly GroupTask[];
  readonly tasks: readonly GroupTask[];
}

export interface TaskGroupOptions {
  readonly brokers: readonly string[];
  /** The group id: every process of one job uses the same one. */
  readonly applicationId: string;
  /** The input topics of the job's stages: each of their partitions is a task. */
  readonly topics: readonly string[];
  /** Names this member in client ids and messages. */
  readonly memberName?: string;
  /**
   * Membership only: the member reads no records (its process's readers read
   * its tasks' partitions themselves); `records` stays paused.
   */
  readonly membershipOnly?: boolean;
}

/**
 * Consumer options of a member of a process group: the consumer protocol
 * (KIP-848) with the broker's `uniform` assignor, which keeps each partition
 * where it was unless balance needs it elsewhere, so a member joining or
 * leaving moves only the tasks it takes or gives up. The broker owns the
 * session timeout under this protocol, but the client still checks the
 * rebalance timeout against its own (classic) default of 60 s.
 */
export const PROCESS_GROUP_CONSUMER = {
  groupProtocol: 'consumer',
  groupRemoteAssignor: 'uniform',
  rebalanceTimeout: 60_000,
} as const;

/**
 * Calls `onChange` with the consumer's partitions (`topic:partition`) after
 * every change. The consumer protocol delivers assignments in heartbeat
 * responses; the client applies them after a metadata lookup and heartbeats
 * again at once, so every change is visible at the end of some heartbeat.
 */
export function watchAssignment(
  consumer: Consumer,
  onChange: (tasks: ReadonlyMap<string, GroupTask>) => void,
): void {
  let last = '';
  const check = (): void => {
    const next = new Map<string, GroupTask>();
    for (const a of consumer.assignments ?? []) {
      for (const partition of a.partitions)
        next.set(taskKey(a.topic, partition), { topic: a.topic, partition });
    }
    const signature = [...next.keys()].sort().join(',');
    if (signature === last) return;
    last = signature;
    onChange(next);
  };
  consumer.on('consumer:heartbeat:end', check);
  consumer.on('consumer:group:join', check);
}

/** How long a member the group dropped waits before it tries to join again after a failed attempt. */
const REJOIN_RETRY_MS = 1_000;

/**
 * Joins again after the group dropped a member: `join` until it succeeds or `closed()` holds,
 * `onFailure` told of each failed attempt, the next one a second later. Undefined once closed.
 */
export async function joinAgain<T>(
  join: () => Promise<T>,
  closed: () => boolean,
  onFailure: (cause: unknown) => void,
): Promise<T | undefined> {
  while (!closed()) {
    try {
      return await join();
    } catch (cause) {
      onFailure(cause);
      await sleep(REJOIN_RETRY_MS);
    }
  }
  return undefined;
}

/**
 * Calls `onDropped` once the group has dropped the consumer (consumer
 * protocol): a heartbeat was answered UNKNOWN_MEMBER_ID, as after a pause
 * past the session timeout (a process starved of CPU). The coordinator has
 * given its partitions to the others, but the client rejoins by itself only
 * after FENCED_MEMBER_EPOCH: here it keeps its stale assignment (and fetches
 * it) and heartbeats in vain forever, so only a new member can take part in
 * the group again.
 */
export function watchDropped(consumer: Consumer, onDropped: () => void): void {
  let dropped = false;
  consumer.on('consumer:heartbeat:error', (event: { error?: unknown }) => {
    if (dropped || !hasApiError(event?.error, 'UNKNOWN_MEMBER_ID')) return;
    dropped = true;
    onDropped();
  });
}

/**
 * Membership of one process in a job's process group. The group is a Kafka
 * consumer group on the consumer protocol (KIP-848): the broker's group
 * coordinator decides which member owns which task and moves tasks
 * incrementally when members come and go; Weir runs no coordinator of its
 * own. The client's records stream is the tasks' input.
 */
export class TaskGroup {
  private current = new Map<string, GroupTask>();
  private readonly listeners: ((change: AssignmentChange) => void)[] = [];
  private readonly droppedListeners: (() => void)[] = [];
  private closed = false;

  private constructor(
    private readonly consumer: Consumer,
    /** Records of the tasks this member owns, in partition order; starts from the group's committed offsets. */
    readonly records: MessagesStream<Buffer, Buffer, Buffer, Buffer>,
    private readonly options: TaskGroupOptions,
  ) {
    watchAssignment(consumer, (next) => this.update(next));
    watchDropped(consumer, () => {
      if (!this.closed) for (const l of this.droppedListeners) l();
    });
  }

  /** Joins the group; resolves once the member is registered (its first tasks may come later). */
  static async join(options: TaskGroupOptions): Promise<TaskGroup> {
    const name = options.memberName ?? `pid-${process.pid}`;
    const consumer = newConsumer({
      clientId: `weir-${options.applicationId}-${name}`,
      bootstrapBrokers: [...options.brokers],
      groupId: options.applicationId,
      ...PROCESS_GROUP_CONSUMER,
      isolationLevel: 1,
      retries: 5,
      retryDelay: 200,
    });
    try {
      const records = await consumer.consume({
        topics: [...options.topics],
        mode: 'committed',
        fallbackMode: 'earliest',
        autocommit: false,
        ...(options.membershipOnly === true ? { highWaterMark: 1 } : {}),
      });
      if (options.membershipOnly === true) records.pause();
      return new TaskGroup(consumer, records, options);
    } catch (cause) {
      await Promise.resolve(consumer.close(true)).catch(() => {});
      throw new WeirError(
        'PROCESS_GROUP_FAILED',
        `cannot join process group '${options.applicationId}' on ${options.brokers.join(',')}: ${reasonOf(cause)}`,
        { cause, domain: 'external', retriable: true },
      );
    }
  }

  /** The group's id for this member (assigned by the broker). */
  get memberId(): string {
    return this.consumer.memberId ?? '';
  }

  get applicationId(): string {
    return this.options.applicationId;
  }

  /** The tasks this member owns now, sorted by topic and partition. */
  tasks(): GroupTask[] {
    return sortTasks([...this.current.values()]);
  }

  /** Calls `listener` after every change of this member's tasks. */
  onChange(listener: (change: AssignmentChange) => void): void {
    this.listeners.push(listener);
  }

  /** Calls `listener` once the group has dropped this member (see {@link watchDropped}). */
  onDropped(listener: () => void): void {
    this.droppedListeners.push(listener);
  }

  private update(next: ReadonlyMap<string, GroupTask>): void {
    if (this.closed) return;
    const assigned = [...next].filter(([k]) => !this.current.has(k)).map(([, t]) => t);
    const revoked = [...this.current].filter(([k]) => !next.has(k)).map(([, t]) => t);
    if (assigned.length === 0 && revoked.length === 0) return;
    this.current = new Map(next);
    const change = {
      assigned: sortTasks(assigned),
      revoked: sortTasks(revoked),
      tasks: this.tasks(),
    };
    for (const l of this.listeners) l(change);
  }

  /**
   * Whether the group still knows this member: resolves with the outcome of
   * its next heartbeat (false on an error, such as an unknown member after a
   * pause past the session timeout, which the client does not recover from,
   * or if none ends within `timeoutMs`).
   */
  nextHeartbeat(timeoutMs: number): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (ok: boolean): void => {
        clearTimeout(timer);
        this.consumer.off('consumer:heartbeat:end', onEnd);
        this.consumer.off('consumer:heartbeat:error', onError);
        resolve(ok);
      };
      const onEnd = (): void => done(true);
      const onError = (): void => done(false);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.consumer.on('consumer:heartbeat:end', onEnd);
      this.consumer.on('consumer:heartbeat:error', onError);
    });
  }

  /** Leaves the group: the coordinator hands this member's tasks to the others at once. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.records.close().catch(() => {});
    await Promise.resolve(this.consumer.close(true)).catch(() => {});
  }
}

/** `topic:partition`, the key of a task in maps and metrics. */
export function taskKey(topic: string, partition: number): string {
  return `${topic}:${partition}`;
}

function sortTasks(tasks: GroupTask[]): GroupTask[] {
  return tasks.sort((a, b) =>
    a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1,
  );
}
