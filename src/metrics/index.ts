/// <reference types="node" preserve="true" />
// The declarations use Node's types; a project whose tsconfig lists no `types` (TypeScript >= 6 by default) gets them through this reference.
/**
 * `weir/metrics`: monitoring a job from outside it. The metric registry and
 * its Prometheus rendering, the metrics HTTP server, the names of the metrics
 * Weir registers, histogram helpers, and the job monitor with the job graph
 * and checkpoint history it keeps.
 *
 * Job code needs none of this (operators, sources and sinks see a
 * `MetricGroup`, exported by `weir` too), so it lives apart from the main
 * entry point. This module is an entry point, not part of the metrics layer:
 * it gathers names from the layers that own them (see docs/architecture.md).
 */

export { BAD_RECORDS_METRIC } from '../connectors/shared/bad-records.js';
export type { Counter, HistogramRecorder, MetricGroup, MetricLabels } from '../core/metrics.js';
export { OPERATOR_METRICS } from '../runtime/instrumentation/operator-probe.js';
export { TASK_METRICS } from '../runtime/instrumentation/plan-instrumentation.js';
export type { TimeShares } from '../runtime/instrumentation/step-timer.js';
export {
  type CheckpointCounts,
  type CheckpointEntry,
  type CheckpointStatus,
  COORDINATOR_METRICS,
} from '../runtime/job/checkpoint-history.js';
export type {
  EdgePartitioning,
  JobGraph,
  JobGraphEdge,
  JobGraphOperator,
  JobGraphTask,
} from '../runtime/job/job-graph.js';
export type {
  ExceptionEntry,
  JobMonitor,
  JobStatus,
  PassedOverEvent,
  RestartEvent,
} from '../runtime/job/job-monitor.js';
export { ASYNC_METRICS } from '../runtime/operators/async/async-wait.js';
export { LOOKUP_METRICS } from '../runtime/operators/async/lookup-join-function.js';
export { BYTES_METRICS } from './connector-metrics.js';
export {
  estimateQuantile,
  type Histogram,
  type HistogramSnapshot,
  LATENCY_BUCKETS_SECONDS,
} from './histogram.js';
export { type HttpEndpoint, type MetricsOptions, startMetricsServer } from './metrics-server.js';
export { PROMETHEUS_CONTENT_TYPE, renderPrometheus } from './prometheus.js';
export {
  JOB_LABELS,
  type MetricKind,
  MetricRegistry,
  type MetricSample,
} from './registry.js';
