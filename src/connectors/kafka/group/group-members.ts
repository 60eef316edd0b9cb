import { hostname } from 'node:os';
import {
  Admin,
  type Consumer,
  type Message,
  type MessagesStream,
  Producer,
} from '@platformatic/kafka';
import { WeirError } from '../../../core/errors.js';
import type { Key } from '../../../core/key-groups.js';
import type {
  GroupMemberView,
  GroupReaderHandle,
  GroupTaskView,
  KeyedStage,
  ProcessGroupMembership,
  ProcessGroupObserver,
  ProcessGroupView,
} from '../../../core/process-group.js';
import { hasApiError, newConsumer } from '../client.js';
import { reasonOf } from '../config.js';
import { taskOfKey } from './repartition-topic.js';

/**
 * The compacted topic where the members of a process group publish
 * themselves: `<application id>-members`. KIP-848 assignments carry no user
 * data, so this is how a member learns the others' REST addresses and tasks.
 */
export function membersTopicName(applicationId: string): string {
  return `${applicationId}-members`;
}

export interface GroupMembersOptions {
  readonly brokers: readonly string[];
  readonly applicationId: string;
  /** This process's REST API (`http://127.0.0.1:8081`), if it serves one. */
  readonly url: string | undefined;
  /** Names the member; default `<host>-<pid>-<random>`. */
  readonly member?: string;
  /** Wall clock, for the published times and rebalance durations. */
  readonly now?: () => number;
}

interface Reader {
  readonly handle: GroupReaderHandle;
  tasks: readonly string[];
}

/**
 * This process's membership in the metadata of its process group: what its
 * group readers hold is published (a record keyed by the member, on every
 * change of its tasks; a tombstone when it leaves) and the records of every
 * member are read back, so each member knows the whole assignment and where
 * each task's owner answers. A member killed without leaving keeps its last
 * record; a task claimed twice belongs to the newest claim.
 *
 * A rebalance, as a member sees it, begins when a task of the group's input
 * has no owner (the coordinator revoked it and its next owner has not yet
 * published it) and ends when every task has one again.
 */
export class GroupMembers implements ProcessGroupObserver, ProcessGroupMembership {
  readonly member: string;
  private readonly readers = new Map<string, Reader>();
  private readonly others = new Map<string, GroupMemberView>();
  private own: GroupMemberView;
  private assignmentChanges = 0;
  private rebalances = 0;
  private lastRebalanceAt: number | undefined;
  private lastRebalanceMs: number | undefined;
  private rebalancing = false;
  private published: Promise<void> = Promise.resolve();
  private keyRouting:
    | {
        readonly stages: () => ReadonlyMap<string, KeyedStage> | undefined;
        readonly maxParallelism: number;
      }
    | undefined;
  private closed = false;
  private readonly timer: NodeJS.Timeout;
  private readonly now: () => number;

  private constructor(
    private readonly options: GroupMembersOptions,
    private readonly producer: Producer,
    private readonly consumer: Consumer,
    private readonly stream: MessagesStream<Buffer, Buffer, Buffer, Buffer>,
  ) {
    this.now = options.now ?? Date.now;
    this.member = memberName(options);
    this.own = {
      member: this.member,
      url: options.url,
      jobId: undefined,
      tasks: [],
      updatedAt: this.now(),
    };
    stream.on('data', (m: Message<Buffer, Buffer, Buffer, Buffer>) => this.onRecord(m));
    stream.on('error', () => {});
    // Partition counts arrive with the readers' lookups: look again now and then.
    this.timer = setInterval(() => this.checkRebalance(), 250).unref();
  }

  /** Creates the members topic if needed and starts reading it from its beginning. */
  static async start(options: GroupMembersOptions): Promise<GroupMembers> {
    const topic = membersTopicName(options.applicationId);
    const what = `process group '${options.applicationId}'`;
    const admin = new Admin({
      clientId: `weir-${options.applicationId}-members`,
      bootstrapBrokers: [...options.brokers],
      retries: 5,
      retryDelay: 200,
    });
    try {
      await createCompactedTopic(admin, topic);
    } catch (cause) {
      throw new WeirError(
        'PROCESS_GROUP_FAILED',
        `cannot create the members topic '${topic}' of ${what}: ${reasonOf(cause)}`,
        { cause, domain: 'external', retriable: true },
      );
    } finally {
      await admin.close();
    }
    const member = memberName(options);
    const producer = new Producer({
      clientId: `weir-${options.applicationId}-members-${member}`,
      bootstrapBrokers: [...options.brokers],
      idempotent: true,
      retries: 5,
    });
    // A group of its own, never committed: every member reads the whole topic.
    const consumer = newConsumer({
      clientId: `weir-${options.applicationId}-members-reader-${member}`,
      bootstrapBrokers: [...options.brokers],
      groupId: `${options.applicationId}-members-reader-${member}`,
      sessionTimeout: 10_000,
      heartbeatInterval: 1_000,
      rebalanceTimeout: 15_000,
      retries: 5,
      retryDelay: 200,
    });
    try {
      const stream = await consumer.consume({
        topics: [topic],
        mode: 'earliest',
        autocommit: false,
      });
      return new GroupMembers({ ...options, member }, producer, consumer, stream);
    } catch (cause) {
      await Promise.resolve(consumer.close(true)).catch(() => {});
      await producer.close().catch(() => {});
      throw new WeirError(
        'PROCESS_GROUP_FAILED',
        `cannot read the members topic '${topic}' of ${what}: ${reasonOf(cause)}`,
        { cause, domain: 'external', retriable: true },
      );
    }
  }

  /** The member's run of the job, for requests forwarded to it; published at once. */
  setJobId(jobId: string): void {
    this.own = { ...this.own, jobId, updatedAt: this.now() };
    this.publish(this.own);
  }

  readerOpened(readerId: string, handle: GroupReaderHandle): void {
    this.readers.set(readerId, { handle, tasks: [] });
  }

  readerAssigned(readerId: string, tasks: readonly string[]): void {
    const reader = this.readers.get(readerId);
    if (reader === undefined) return;
    reader.tasks = tasks;
    this.ownTasksMayHaveChanged();
  }

  readerClosed(readerId: string): void {
    if (this.readers.delete(readerId)) this.ownTasksMayHaveChanged();
  }

  private ownTasksMayHaveChanged(): void {
    const tasks = [...new Set([...this.readers.values()].flatMap((r) => r.tasks))].sort();
    if (tasks.join(',') === this.own.tasks.join(',')) return;
    this.assignmentChanges++;
    this.own = { ...this.own, tasks, updatedAt: this.now() };
    this.publish(this.own);
    this.checkRebalance();
  }

  /** Publishes `view` (or the member's tombstone), in order; a failure waits for the next change. */
  private publish(view: GroupMemberView | undefined): void {
    const message = {
      topic: membersTopicName(this.options.applicationId),
      key: Buffer.from(this.member),
      ...(view === undefined ? {} : { value: Buffer.from(JSON.stringify(view)) }),
    };
    this.published = this.published
      .then(() => this.producer.send({ messages: [message] }))
      .then(
        () => {},
        () => {},
      );
  }

  private onRecord(m: Message<Buffer, Buffer, Buffer, Buffer>): void {
    const member = m.key?.toString('utf8');
    if (member === undefined || member === this.member) return;
    const view = m.value === undefined || m.value === null ? undefined : parseMember(m.value);
    if (view === undefined) this.others.delete(member);
    else this.others.set(member, view);
    this.checkRebalance();
  }

  /** Every member, this one as it is now. */
  private members(): GroupMemberView[] {
    return [this.own, ...this.others.values()].sort((a, b) => (a.member < b.member ? -1 : 1));
  }

  /** The owner of every claimed task: the newest claim wins. */
  private owners(): Map<string, GroupMemberView> {
    const owners = new Map<string, GroupMemberView>();
    for (const m of this.members()) {
      for (const task of m.tasks) {
        const known = owners.get(task);
        if (known === undefined || m.updatedAt > known.updatedAt) owners.set(task, m);
      }
    }
    return owners;
  }

  /** Tasks of the group's input (as far as this member's readers know it) that no member holds. */
  private unassigned(): string[] {
    const owners = this.owners();
    const counts = new Map<string, number>();
    for (const r of this.readers.values())
      for (const [topic, n] of r.handle.topicPartitions()) counts.set(topic, n);
    const missing: string[] = [];
    for (const [topic, n] of [...counts].sort())
      for (let p = 0; p < n; p++) if (!owners.has(`${topic}:${p}`)) missing.push(`${topic}:${p}`);
    return missing;
  }

  private checkRebalance(): void {
    const now = this.now();
    const open = this.unassigned().length > 0;
    if (open && !this.rebalancing) {
      this.rebalancing = true;
      this.rebalances++;
      this.lastRebalanceAt = now;
      this.lastRebalanceMs = undefined;
    } else if (!open && this.rebalancing) {
      this.rebalancing = false;
      this.lastRebalanceMs = now - (this.lastRebalanceAt ?? now);
    }
  }

  ownerOf(task: string): GroupMemberView | undefined {
    return this.owners().get(task);
  }

  /**
   * Lets state queries for keys be routed: `stages` gives the keyed stage of
   * each keyed operator by uid once the job is cut into stages (undefined
   * before), `maxParallelism` is the job's.
   */
  routeKeys(
    stages: () => ReadonlyMap<string, KeyedStage> | undefined,
    maxParallelism: number,
  ): void {
    this.keyRouting = { stages, maxParallelism };
  }

  taskOfKey(uid: string, key: Key): string | undefined {
    const routing = this.keyRouting;
    const stage = routing?.stages()?.get(uid);
    return stage === undefined ? undefined : taskOfKey(key, stage, routing!.maxParallelism);
  }

  view(): ProcessGroupView {
    const tasks: GroupTaskView[] = [...this.readers.values()]
      .flatMap((r) => r.handle.tasks())
      .sort((a, b) => (a.task < b.task ? -1 : 1))
      .map((t) => ({
        ...t,
        lag:
          t.position === undefined || t.endOffset === undefined
            ? undefined
            : Math.max(0, t.endOffset - t.position),
      }));
    return {
      applicationId: this.options.applicationId,
      member: this.member,
      url: this.options.url,
      tasks,
      members: this.members(),
      unassigned: this.unassigned(),
      assignmentChanges: this.assignmentChanges,
      rebalances: this.rebalances,
      lastRebalanceAt: this.lastRebalanceAt,
      lastRebalanceMs: this.lastRebalanceMs,
    };
  }

  /** Publishes the member's tombstone (it left) and closes its clients. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.publish(undefined);
    await this.published;
    await this.stream.close().catch(() => {});
    await Promise.resolve(this.consumer.close(true)).catch(() => {});
    await this.producer.close().catch(() => {});
  }
}

function memberName(options: GroupMembersOptions): string {
  return options.member ?? `${hostname()}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
}

/** A member's record; one that is not (another version, a stray write) is left out. */
function parseMember(value: Buffer): GroupMemberView | undefined {
  try {
    const v = JSON.parse(value.toString('utf8')) as Partial<GroupMemberView>;
    if (typeof v.member !== 'string' || !Array.isArray(v.tasks) || typeof v.updatedAt !== 'number')
      return undefined;
    return {
      member: v.member,
      url: typeof v.url === 'string' ? v.url : undefined,
      jobId: typeof v.jobId === 'string' ? v.jobId : undefined,
      tasks: v.tasks.filter((t): t is string => typeof t === 'string'),
      updatedAt: v.updatedAt,
    };
  } catch {
    return undefined;
  }
}

/** One partition, compacted: the newest record of each member is all that matters. */
async function createCompactedTopic(admin: Admin, topic: string): Promise<void> {
  const existing = new Set(await admin.listTopics({ includeInternals: false }));
  if (existing.has(topic)) return;
  try {
    await admin.createTopics({
      topics: [topic],
      partitions: 1,
      replicas: -1,
      configs: [{ name: 'cleanup.policy', value: 'compact' }],
    });
  } catch (error) {
    if (!hasApiError(error, 'TOPIC_ALREADY_EXISTS')) throw error;
  }
}
