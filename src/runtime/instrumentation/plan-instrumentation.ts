/**
 * Creates the instrumentation of a job's tasks and operators while the
 * runtime instantiates its plan: one {@link StepTimer} per task, one
 * {@link OperatorProbe} per operator subtask, with the metrics they register.
 */

import type { Clock } from '../../core/clock.js';
import type { MetricLabels, MetricRegistry } from '../../metrics/registry.js';
import type { ExecutionPlan } from '../execution/execution-plan.js';
import { OperatorProbe, type OperatorRole } from './operator-probe.js';
import { StepTimer } from './step-timer.js';

/** Metric names registered per task (chain) subtask. */
export const TASK_METRICS = {
  busySeconds: 'weir_task_busy_seconds_total',
  idleSeconds: 'weir_task_idle_seconds_total',
  backpressuredSeconds: 'weir_task_backpressured_seconds_total',
} as const;

/** The labels of an operator subtask's metrics (the job's registry adds the job's). */
export function operatorLabels(operator: string, subtask: number): MetricLabels {
  return { operator, subtask: String(subtask) };
}

export class PlanInstrumentation {
  private readonly timers = new Map<string, StepTimer>();
  private readonly probes = new Map<string, OperatorProbe>();

  constructor(
    private readonly plan: ExecutionPlan,
    private readonly registry: MetricRegistry,
    private readonly clock: Clock,
  ) {
    // Every operator subtask gets its metrics, whether or not something observes its input.
    for (const v of plan.vertices) {
      for (let s = 0; s < v.parallelism; s++) this.probe(v.id, s);
    }
  }

  /** The step timer of the task whose chain starts at node `headId`, subtask `subtask`. */
  timer(headId: number, subtask: number): StepTimer {
    const key = `${headId}/${subtask}`;
    let timer = this.timers.get(key);
    if (timer === undefined) {
      const t = new StepTimer();
      timer = t;
      this.timers.set(key, t);
      const group = this.registry.group({
        task: this.plan.vertices[headId]!.operatorId,
        subtask: String(subtask),
      });
      group.counterFrom(
        TASK_METRICS.busySeconds,
        'Time the task spent working',
        () => t.totals().busy,
      );
      group.counterFrom(
        TASK_METRICS.idleSeconds,
        'Time the task had nothing to do or waited for its turn on the thread',
        () => t.totals().idle,
      );
      group.counterFrom(
        TASK_METRICS.backpressuredSeconds,
        'Time the task was held up by full output channels or a flushing sink',
        () => t.totals().backpressured,
      );
    }
    return timer;
  }

  /** The probe of node `nodeId`, subtask `subtask`. */
  probe(nodeId: number, subtask: number): OperatorProbe {
    const key = `${nodeId}/${subtask}`;
    let probe = this.probes.get(key);
    if (probe === undefined) {
      const v = this.plan.vertices[nodeId]!;
      const role: OperatorRole =
        v.kind === 'source' ? 'source' : v.sink !== undefined ? 'sink' : 'operator';
      probe = new OperatorProbe(
        this.registry.group(operatorLabels(v.operatorId, subtask)),
        this.clock,
        role,
        this.timer(v.chainHead, subtask),
      );
      this.probes.set(key, probe);
    }
    return probe;
  }
}
