import { Admin } from '@platformatic/kafka';
import { reasonOf } from '../config.js';
import { applyGroupTimeouts } from './group-timeouts.js';
import { TaskGroup } from './task-group.js';

export interface ProcessMembershipOptions {
  readonly brokers: readonly string[];
  readonly applicationId: string;
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
 * while the membership, and with it the assignment, stays.
 */
export class ProcessMembership {
  private constructor(private readonly group: TaskGroup) {}

  static async join(options: ProcessMembershipOptions): Promise<ProcessMembership> {
    const admin = new Admin({
      clientId: `weir-${options.applicationId}-membership-admin`,
      bootstrapBrokers: [...options.brokers],
      retries: 5,
      retryDelay: 200,
    });
    try {
      await applyGroupTimeouts(admin, options.applicationId);
    } catch (cause) {
      options.warn(
        `cannot set the session timeout of group '${options.applicationId}', so a killed member is noticed only after the broker's default (group.consumer.session.timeout.ms): ${reasonOf(cause)}`,
      );
    } finally {
      await admin.close().catch(() => {});
    }
    const group = await TaskGroup.join({
      brokers: options.brokers,
      applicationId: options.applicationId,
      topics: options.topics,
      memberName: `pid-${process.pid}`,
      membershipOnly: true,
    });
    return new ProcessMembership(group);
  }

  /** The tasks (`topic:partition`) the group gives this process now. */
  tasks(): ReadonlySet<string> {
    return new Set(this.group.tasks().map((t) => `${t.topic}:${t.partition}`));
  }

  /** Calls `listener` with the process's tasks after every change. */
  onChange(listener: (tasks: ReadonlySet<string>) => void): void {
    this.group.onChange((change) =>
      listener(new Set(change.tasks.map((t) => `${t.topic}:${t.partition}`))),
    );
  }

  /** Whether the group still knows this process: the outcome of its next heartbeat (see TaskGroup.nextHeartbeat). */
  nextHeartbeat(timeoutMs: number): Promise<boolean> {
    return this.group.nextHeartbeat(timeoutMs);
  }

  /** Leaves the group: the coordinator gives this process's tasks to the others at once. */
  close(): Promise<void> {
    return this.group.close();
  }
}
