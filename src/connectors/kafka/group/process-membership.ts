import { Admin } from '@platformatic/kafka';
import { reasonOf } from '../config.js';
import { applyGroupSession } from './group-timeouts.js';
import { joinAgain, TaskGroup } from './task-group.js';

export interface ProcessMembershipOptions {
  readonly brokers: readonly string[];
  readonly applicationId: string;
  /** The session timeout to ask for (`--session-timeout`); 6 s when undefined. */
  readonly sessionTimeoutMs?: number | undefined;
  /** Every stage's input topics: each of their partitions is a task. */
  readonly topics: readonly string[];
  readonly warn: (line: string) => void;
}

/**
 * The one membership of a process in its process group, for a job whose
 * keyed state moves with its tasks: it joins the group (KIP-848, the
 * broker's sticky `uniform` assignor) and owns the assignment, and reads no
 * records. The job's readers read the tasks it holds on fixed partitions, so
 * the job can stop and start again with another task set (and its state)
 * while the membership, and with it the assignment, stays. If the group
 * drops the process (a pause past the session timeout, such as CPU
 * starvation), it holds no task and joins again as a new member: else it
 * would stay outside the group for good, with no task at all if it held none.
 */
export class ProcessMembership {
  private readonly listeners: ((tasks: ReadonlySet<string>) => void)[] = [];
  /** The tasks as last said to the listeners: none while the process joins again. */
  private current: ReadonlySet<string>;
  private rejoining: Promise<void> | undefined;
  private closed = false;

  private constructor(
    private group: TaskGroup,
    private readonly options: ProcessMembershipOptions,
  ) {
    this.current = tasksOf(group);
    this.watch(group);
  }

  static async join(options: ProcessMembershipOptions): Promise<ProcessMembership> {
    const admin = new Admin({
      clientId: `weir-${options.applicationId}-membership-admin`,
      bootstrapBrokers: [...options.brokers],
      retries: 5,
      retryDelay: 200,
    });
    try {
      await applyGroupSession(admin, options.applicationId, options.sessionTimeoutMs, options.warn);
    } catch (cause) {
      options.warn(
        `cannot set the session timeout of group '${options.applicationId}', so a killed member is noticed only after the broker's default (group.consumer.session.timeout.ms): ${reasonOf(cause)}`,
      );
    } finally {
      await admin.close().catch(() => {});
    }
    return new ProcessMembership(await joinGroup(options), options);
  }

  /** The tasks (`topic:partition`) the group gives this process now. */
  tasks(): ReadonlySet<string> {
    return this.current;
  }

  /** Calls `listener` with the process's tasks after every change. */
  onChange(listener: (tasks: ReadonlySet<string>) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Whether the group still knows this process: the outcome of its next
   * heartbeat (see TaskGroup.nextHeartbeat), once it has joined again if it
   * was dropped.
   */
  async nextHeartbeat(timeoutMs: number): Promise<boolean> {
    await this.rejoining;
    return this.group.nextHeartbeat(timeoutMs);
  }

  /** Leaves the group: the coordinator gives this process's tasks to the others at once. */
  async close(): Promise<void> {
    this.closed = true;
    await this.rejoining;
    await this.group.close();
  }

  private watch(group: TaskGroup): void {
    group.onChange(() => this.say(tasksOf(group)));
    group.onDropped(() => {
      this.rejoining ??= this.rejoin(group).finally(() => {
        this.rejoining = undefined;
      });
    });
  }

  private say(tasks: ReadonlySet<string>): void {
    this.current = tasks;
    for (const l of this.listeners) l(tasks);
  }

  /** Joins again as a new member after the group dropped `dropped`, whose tasks are the others' now. */
  private async rejoin(dropped: TaskGroup): Promise<void> {
    this.options.warn(
      `the group '${this.options.applicationId}' dropped this process (paused past its session timeout); it gives up its tasks and joins again`,
    );
    // Closed first (it says nothing more from here on), its tasks given up at once.
    const closing = dropped.close();
    if (this.current.size > 0) this.say(new Set());
    await closing;
    const group = await joinAgain(
      () => joinGroup(this.options),
      () => this.closed,
      (cause) => this.options.warn(`cannot join the group again: ${reasonOf(cause)}; trying again`),
    );
    if (group === undefined) return;
    if (this.closed) {
      await group.close();
      return;
    }
    this.group = group;
    this.watch(group);
    if (group.tasks().length > 0) this.say(tasksOf(group));
  }
}

function joinGroup(options: ProcessMembershipOptions): Promise<TaskGroup> {
  return TaskGroup.join({
    brokers: options.brokers,
    applicationId: options.applicationId,
    topics: options.topics,
    memberName: `pid-${process.pid}`,
    membershipOnly: true,
  });
}

function tasksOf(group: TaskGroup): ReadonlySet<string> {
  return new Set(group.tasks().map((t) => `${t.topic}:${t.partition}`));
}
