import type { MetricGroup } from '../core/metrics.js';
import type { ProcessGroupMembership, ProcessGroupView } from '../core/process-group.js';

/** Names of the metrics of a process group member (`weir run --group`), as registered. */
export const GROUP_METRICS = {
  tasks: 'weir_group_tasks',
  members: 'weir_group_members',
  unassignedTasks: 'weir_group_unassigned_tasks',
  assignmentChanges: 'weir_group_assignment_changes_total',
  rebalances: 'weir_group_rebalances_total',
  lastRebalanceTimestamp: 'weir_group_last_rebalance_timestamp_seconds',
  lastRebalanceDuration: 'weir_group_last_rebalance_duration_seconds',
  memberTasks: 'weir_group_member_tasks',
  taskOwner: 'weir_group_task_owner',
  taskLag: 'weir_group_task_lag_records',
  taskPosition: 'weir_group_task_position',
  taskSnapshots: 'weir_group_task_snapshots_total',
  taskSnapshotFailures: 'weir_group_task_snapshot_failures_total',
  lastTaskSnapshotCheckpoint: 'weir_group_last_task_snapshot_checkpoint',
  lastTaskSnapshotDuration: 'weir_group_last_task_snapshot_duration_seconds',
  taskRestores: 'weir_group_task_restores_total',
  taskRestoredBytes: 'weir_group_task_restored_bytes_total',
  taskRestoredEntries: 'weir_group_task_restored_entries_total',
  lastTaskRestoreDuration: 'weir_group_last_task_restore_duration_seconds',
  restoredFromLocalCopies: 'weir_group_restored_files_local_total',
  restoredDownloaded: 'weir_group_restored_files_downloaded_total',
  standbyTasks: 'weir_group_standby_tasks',
  standbyCopies: 'weir_group_standby_copies_total',
} as const;

/** How often series that come and go (tasks, members) are brought up to date. */
const SYNC_MS = 500;

/**
 * Registers the group's metrics in `metrics` (the job's registry): this
 * member's tasks with their position and lag (label `task`), every member's
 * task count (label `member`) and each task's owner, and the rebalances
 * this member saw. Returns a function that stops the updates.
 */
export function registerGroupMetrics(
  metrics: MetricGroup,
  group: ProcessGroupMembership,
): () => void {
  // Read when scraped, so /metrics agrees with the REST API's view of the same moment.
  const read = (): ProcessGroupView => group.view();
  metrics.gauge(
    GROUP_METRICS.tasks,
    'Tasks (topic partitions) this member holds',
    () => read().tasks.length,
  );
  metrics.gauge(
    GROUP_METRICS.members,
    'Members in the group metadata',
    () => read().members.length,
  );
  metrics.gauge(
    GROUP_METRICS.unassignedTasks,
    'Tasks of the group input no member holds (during a rebalance)',
    () => read().unassigned.length,
  );
  metrics.counterFrom(
    GROUP_METRICS.assignmentChanges,
    'Changes of this member tasks',
    () => read().assignmentChanges,
  );
  metrics.counterFrom(
    GROUP_METRICS.rebalances,
    'Rebalances of the group seen by this member (a task was left without an owner)',
    () => read().rebalances,
  );
  metrics.gauge(
    GROUP_METRICS.lastRebalanceTimestamp,
    'When the last rebalance began (Unix time); 0 if none',
    () => (read().lastRebalanceAt ?? 0) / 1000,
  );
  metrics.gauge(
    GROUP_METRICS.lastRebalanceDuration,
    'How long the last finished rebalance took until every task had an owner again',
    () => (read().lastRebalanceMs ?? 0) / 1000,
  );

  // Series per task and per member: added and removed as the assignment changes.
  const shown = new Map<string, MetricGroup>();
  const sync = (): void => {
    const view = group.view();
    const wanted = new Map<string, () => MetricGroup>();
    for (const t of view.tasks) {
      wanted.set(`task ${t.task}`, () => {
        const g = metrics.child({ task: t.task });
        const current = () => read().tasks.find((x) => x.task === t.task);
        g.gauge(
          GROUP_METRICS.taskLag,
          'Records between the task position and its partition end',
          () => current()?.lag ?? Number.NaN,
        );
        g.gauge(
          GROUP_METRICS.taskPosition,
          'Next offset the job reads in the task',
          () => current()?.position ?? Number.NaN,
        );
        return g;
      });
    }
    for (const m of view.members) {
      wanted.set(`member ${m.member}`, () => {
        const g = metrics.child({ member: m.member });
        g.gauge(
          GROUP_METRICS.memberTasks,
          'Tasks each member holds, by the group metadata',
          () => read().members.find((x) => x.member === m.member)?.tasks.length ?? 0,
        );
        return g;
      });
      for (const task of m.tasks) {
        if (group.ownerOf(task)?.member !== m.member) continue;
        wanted.set(`owner ${task} ${m.member}`, () => {
          const g = metrics.child({ task, member: m.member });
          g.gauge(GROUP_METRICS.taskOwner, 'The member that holds each task (1)', () => 1);
          return g;
        });
      }
    }
    for (const [id, g] of shown) {
      if (wanted.has(id)) continue;
      for (const name of [
        GROUP_METRICS.taskLag,
        GROUP_METRICS.taskPosition,
        GROUP_METRICS.memberTasks,
        GROUP_METRICS.taskOwner,
      ])
        g.remove(name);
      shown.delete(id);
    }
    for (const [id, create] of wanted) if (!shown.has(id)) shown.set(id, create());
  };
  sync();
  const timer = setInterval(sync, SYNC_MS);
  timer.unref();
  return () => clearInterval(timer);
}
