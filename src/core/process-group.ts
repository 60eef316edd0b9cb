import type { Key } from './key-groups.js';

/**
 * What a process of a process group (`weir run --group`) knows of its group,
 * as data the REST API, the UI and `/metrics` show: its tasks with their
 * progress, every member's tasks and address, and the rebalances seen. The
 * connector that runs the group fills it in; the layers above only read it.
 */

/** One task (a partition of a stage's input topic) as the reader holding it sees it. */
export interface GroupTaskProgress {
  /** `topic:partition`. */
  readonly task: string;
  /** The next offset the job reads: the one after the last record handed to it; undefined before the first. */
  readonly position: number | undefined;
  /** The partition's end (last stable offset under read_committed) when last looked up; undefined before. */
  readonly endOffset: number | undefined;
}

/** A group reader (one source subtask in the group), as its process follows it. */
export interface GroupReaderHandle {
  /** The reader's tasks now, with their progress. */
  tasks(): readonly GroupTaskProgress[];
  /** Partition counts of the reader's input topics when last looked up (all tasks of the stage). */
  topicPartitions(): ReadonlyMap<string, number>;
}

/**
 * Told by the group readers of a process about their tasks: a reader is
 * registered when it opens, reports each change of its tasks, and leaves
 * when it closes. Calls come on the job's thread.
 */
export interface ProcessGroupObserver {
  readerOpened(readerId: string, handle: GroupReaderHandle): void;
  readerAssigned(readerId: string, tasks: readonly string[]): void;
  readerClosed(readerId: string): void;
}

/** A keyed stage of a partitioned job: its tasks are the partitions of its repartition topic. */
export interface KeyedStage {
  readonly topic: string;
  readonly partitions: number;
}

/** A member of the group as it last published itself. */
export interface GroupMemberView {
  /** The process's id in the group's metadata (stable for the life of the process). */
  readonly member: string;
  /** Where its REST API answers (`http://127.0.0.1:8081`), if it serves one. */
  readonly url: string | undefined;
  /** The id of its run of the job in that REST API. */
  readonly jobId: string | undefined;
  readonly tasks: readonly string[];
  /** When it published this (ms since the epoch). */
  readonly updatedAt: number;
}

/** One of this process's tasks, with its lag. */
export interface GroupTaskView extends GroupTaskProgress {
  /** Records between the position and the partition's end; undefined until both are known. */
  readonly lag: number | undefined;
}

/** The group as one member sees it. */
export interface ProcessGroupView {
  readonly applicationId: string;
  /** This process's id in the group's metadata. */
  readonly member: string;
  readonly url: string | undefined;
  /** This process's tasks, sorted. */
  readonly tasks: readonly GroupTaskView[];
  /** Every member and its tasks, from the group's metadata topic, this one included. */
  readonly members: readonly GroupMemberView[];
  /** Tasks of the group's input that no member holds now (while a rebalance moves them). */
  readonly unassigned: readonly string[];
  /** Times this process's tasks changed. */
  readonly assignmentChanges: number;
  /** Rebalances of the whole group seen by this member: each time some task was left without an owner. */
  readonly rebalances: number;
  /** When the last rebalance began (ms since the epoch); undefined if none was seen. */
  readonly lastRebalanceAt: number | undefined;
  /** How long it took until every task had an owner again (ms); undefined while it lasts or if none. */
  readonly lastRebalanceMs: number | undefined;
}

/** What the REST API needs of the process group: its view, who owns a task, and which task holds a key. */
export interface ProcessGroupMembership {
  view(): ProcessGroupView;
  /** The member that holds `task` (`topic:partition`) by the group's metadata; undefined if none does. */
  ownerOf(task: string): GroupMemberView | undefined;
  /**
   * The task whose state holds `key` of keyed operator `uid`: the partition
   * of its stage's repartition topic that the key's key group goes to, as
   * the stage's writers send it. Undefined for an operator that is not in a
   * keyed stage (or before the job is cut into stages).
   */
  taskOfKey(uid: string, key: Key): string | undefined;
}
