/// <reference types="node" preserve="true" />
// The declarations use Node's types; a project whose tsconfig lists no `types` (TypeScript >= 6 by default) gets them through this reference.
/**
 * `weir/ui`: the web UI. `startWebUi` serves the REST API, `/metrics` and the
 * static pages for the jobs registered with it; the view types describe the
 * REST API's JSON. Kept off the main entry point so a job that never serves
 * the UI does not load it.
 */

export type {
  GroupMemberView,
  GroupTaskView,
  ProcessGroupMembership,
  ProcessGroupView,
} from '../core/process-group.js';
export type {
  BackpressureLevel,
  JobCheckpoints,
  JobDetails,
  JobExceptions,
  JobMetrics,
  JobSummary,
  LatencySummary,
  OperatorMetrics,
  SubtaskMetrics,
} from './job-view.js';
export {
  DEFAULT_UI_PORT,
  startWebUi,
  type TlsOptions,
  type WebUi,
  type WebUiOptions,
} from './server.js';
export type { KeyType, StateView } from './state-query-route.js';
