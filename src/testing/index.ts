/// <reference types="node" preserve="true" />
// The declarations use Node's types; a project whose tsconfig lists no `types` (TypeScript >= 6 by default) gets them through this reference.
/**
 * `weir/testing`: harnesses that drive one operator or process function
 * under a manual processing-time clock, and conformance checks every source
 * and sink must pass.
 */

export type { OperatorSnapshot } from '../core/snapshot.js';
export {
  type ConformanceCheck,
  ConformanceError,
} from './conformance/conformance-check.js';
export { type SinkSubject, sinkChecks } from './conformance/sink-conformance.js';
export { type SourceSubject, sourceChecks } from './conformance/source-conformance.js';
export type { HarnessOptions } from './harness-options.js';
export { KeyedOneInputHarness } from './keyed-one-input-harness.js';
export { OneInputHarness, type SingleInputHarness } from './one-input-harness.js';
export type { OperatorHarness, Timestamps } from './operator-harness.js';
export type { Emitted, StreamRecord } from './recording-output.js';
export { TwoInputHarness, type TwoInputHarnessOptions } from './two-input-harness.js';
