/// <reference types="node" preserve="true" />
// The declarations use Node's types; a project whose tsconfig lists no `types` (TypeScript >= 6 by default) gets them through this reference.
/**
 * Weir: stream processing for TypeScript. This module (`weir`) is what a job
 * author needs: streams and their environment, user functions, state,
 * windows, triggers, watermarks, time, changelogs, joins, side outputs, the
 * connectors that need no external client, errors and job modules. Kafka,
 * PostgreSQL, monitoring and the web UI are the subpaths `weir/kafka`,
 * `weir/postgres`, `weir/metrics` and `weir/ui`. Anything not exported from
 * an entry point is internal and may change.
 */

export {
  AfterMatchSkipStrategy,
  type LastStage,
  type Match,
  Pattern,
  type PatternContext,
  type StageTypes,
  type WithinType,
} from './api/cep/pattern.js';
export {
  CEP,
  type CepOptions,
  type MatchProcessFunction,
  PatternStream,
  type TimedOut,
} from './api/cep/pattern-stream.js';
export { defineJob, type JobContext, type JobDefinition } from './api/job-module/job.js';
export {
  type JobModuleRun,
  type RunJobModuleOptions,
  runJobModule,
  type StartedJobModule,
  startJobModule,
} from './api/job-module/run-job-module.js';
export type {
  BroadcastJoinOptions,
  CoGroupWindowFunction,
  CollectedWithSideOutputs,
  CollectOptions,
  DeduplicateOptions,
  DeduplicateOrder,
  DeduplicateRowsOptions,
  EnvironmentOptions,
  ExecuteOptions,
  InnerBroadcastJoinOptions,
  IntervalJoinContext,
  JobClient,
  JobResult,
  JoinResult,
  KeepFirstByArrival,
  KeepRow,
  LeftBroadcastJoinOptions,
  ProcessJoinFunction,
  RankComparator,
  Ranked,
  RankedRowsTopNOptions,
  RankedTopNOptions,
  ReduceOptions,
  RegularJoinOptions,
  RestartStrategy,
  SavepointOptions,
  SideOutputRecords,
  SideOutputTags,
  StateQueryResult,
  StateRetention,
  TableViewOptions,
  TemporalJoinOptions,
  TemporalJoinResult,
  TopNOptions,
  UpdatingAggregateOptions,
  WindowDeduplicateOptions,
  WindowRanked,
  WindowTopNOptions,
} from './api/options.js';
export { StreamEnvironment } from './api/stream-environment.js';
export type {
  ChangelogStream,
  ConnectedStreams,
  DataStream,
  GroupedChangelogStream,
  IntervalJoin,
  IntervalJoined,
  KeyedConnectedStreams,
  KeyedStream,
  StreamEnvironmentApi,
  StreamEnvironmentConstructor,
  TableView,
  TwoStreams,
  TwoStreamsEqualTo,
  TwoStreamsWhere,
  WindowCoGroup,
  WindowedStream,
  WindowJoin,
} from './api/streams.js';
export { Time } from './api/time.js';
export {
  InMemoryLookupTable,
  type InMemoryLookupTableOptions,
  type LookupTableStats,
} from './connectors/collection/lookup/in-memory-lookup-table.js';
export { CollectSink, DiscardingSink } from './connectors/collection/sink/collect-sink.js';
export { ArraySource } from './connectors/collection/source/array-source.js';
export {
  type BadRecord,
  type BadRecordPolicy,
  type CsvDialectOptions,
  type CsvHeaderOptions,
  type CsvNoHeaderOptions,
  type CsvRecord,
  type DeadLetter,
  DirectorySource,
  type DirectorySourceOptions,
  ExactlyOnceFileSink,
  type ExactlyOnceFileSinkOptions,
  FileFormat,
  type FileNameFilter,
  FileSource,
  type FileSourceOptions,
  type FormatOutput,
  type JsonLinesFormatOptions,
  JsonLinesSink,
  type JsonLinesSinkOptions,
  type RecordPosition,
} from './connectors/files/index.js';
export {
  GeneratorSource,
  type GeneratorSourceOptions,
} from './connectors/generator/source/generator-source.js';
export { PrintSink, type PrintSinkOptions } from './connectors/stdout/sink/print-sink.js';
export {
  type AsyncFunction,
  type AsyncInvoke,
  type AsyncOptions,
  type AsyncOrder,
  AsyncRetry,
  type AsyncRetryPredicates,
  type AsyncRetryStrategy,
  type AsyncRuntimeContext,
  type RecordSerializer,
} from './core/async-io.js';
export type {
  CepCondition,
  CepConditionContext,
  ConditionSpec,
  Contiguity,
  EventComparator,
  InnerContiguity,
  MatchEvents,
  PatternProcessContext,
  PatternProcessFunction,
  PatternSpec,
  QuantifierSpec,
  SkipStrategySpec,
  StageSpec,
} from './core/cep.js';
export {
  acceptsChangelog,
  type Change,
  type ChangeKind,
  type ChangelogMode,
  Changes,
  type GroupResult,
  isChange,
  type RetractableAggregateFunction,
} from './core/changelog.js';
export type { Clock } from './core/clock.js';
export type {
  CoFlatMapFunction,
  CoMapFunction,
  CoProcessFunction,
  KeyedCoFlatMapFunction,
  KeyedCoMapFunction,
  KeyedCoProcessFunction,
} from './core/co-functions.js';
export {
  describeRecord,
  type ErrorDomain,
  WeirError,
  type WeirErrorCode,
  type WeirErrorDetails,
} from './core/errors.js';
export {
  type DeltaFunction,
  type EvictableElements,
  type Evictor,
  type EvictorContext,
  type EvictorOptions,
  Evictors,
  type TimestampedValue,
} from './core/evictors.js';
export type {
  AggregateFunction,
  BroadcastElementContext,
  BroadcastProcessContext,
  BroadcastProcessFunction,
  BroadcastState,
  Collector,
  KeyedBroadcastContext,
  KeyedBroadcastOnTimerContext,
  KeyedBroadcastProcessFunction,
  KeyedProcessContext,
  KeyedProcessFunction,
  KeyedRuntimeContext,
  KeyedTimerService,
  OnTimerContext,
  OperatorRuntimeContext,
  ProcessContext,
  ProcessFunction,
  ReadOnlyBroadcastState,
  ReduceFunction,
  RuntimeContext,
  TimerService,
} from './core/functions.js';
export type { Key } from './core/key-groups.js';
export type {
  InnerLookupJoinOptions,
  LeftLookupJoinOptions,
  LookupCacheOptions,
  LookupJoinBaseOptions,
  LookupJoinOptions,
  LookupTable,
} from './core/lookup.js';
export type { Counter, HistogramRecorder, MetricGroup, MetricLabels } from './core/metrics.js';
export { OutputTag } from './core/output-tag.js';
export type {
  GroupReaderHandle,
  GroupTaskProgress,
  ProcessGroupObserver,
} from './core/process-group.js';
export type { StateQueryAnswer } from './core/queryable-state.js';
export { NO_TIMESTAMP, type RecordBatch } from './core/record-batch.js';
export {
  isReconcilableSink,
  isReplayableSource,
  type ReconcilableSink,
  type ReconcileTarget,
  type ReplayableSource,
  type ReplayedValue,
  type ReplayRange,
  type WrittenRow,
} from './core/replay.js';
export type {
  CollectingSink,
  Sink,
  SinkContext,
  SinkWriter,
  TwoPhaseCommitWriter,
} from './core/sink.js';
export type { Json } from './core/snapshot.js';
export type {
  ExchangedRecord,
  ExchangeSpec,
  GroupExchange,
  PollStatus,
  ProcessGroupSpec,
  Source,
  SourceContext,
  SourceReader,
} from './core/source.js';
export type {
  AggregatingState,
  AggregatingStateDescriptor,
  KeyedStateStore,
  ListState,
  ListStateDescriptor,
  MapState,
  MapStateDescriptor,
  OperatorStateStore,
  ReducingState,
  ReducingStateDescriptor,
  StateDescriptor,
  StateSerializer,
  StateTtlConfig,
  TtlUpdate,
  ValueState,
  ValueStateDescriptor,
} from './core/state.js';
export type { DiskBackendOptions, HeapBackendOptions } from './core/state-backend.js';
export {
  type ProcessingTimeoutOptions,
  type Trigger,
  type TriggerContext,
  type TriggerResult,
  Triggers,
} from './core/triggers.js';
export {
  type TimestampAssigner,
  type WatermarkGenerator,
  type WatermarkOutput,
  WatermarkStrategy,
} from './core/watermarks.js';
export {
  ALL_WINDOWS_KEY,
  type AllWindowsKey,
  type FiringTiming,
  type ProcessWindowFunction,
  type WindowClearContext,
  type WindowContext,
  type WindowFunctionContext,
  type WindowResult,
} from './core/window-result.js';
export {
  type GapFunction,
  GLOBAL_WINDOW,
  maxTimestamp,
  type RecordWindows,
  type RecordWindowsOfSides,
  type TimeDomain,
  type Window,
  type WindowAssigner,
  type WindowClock,
  Windows,
} from './core/windows.js';
export type { CheckpointOptions } from './runtime/checkpoint/checkpoint-config.js';
export type {
  CheckpointData,
  TaskSnapshotOrigin,
} from './runtime/checkpoint/checkpoint-data.js';
export {
  type CheckpointStorage,
  checkpointStorageAt,
  DirectoryCheckpointStorage,
  type LatestCheckpoint,
  LocalCheckpointStorage,
  type SkippedCheckpoint,
} from './runtime/checkpoint/checkpoint-storage.js';
export { refuseRestoreBehindCommit } from './runtime/checkpoint/commit-guard.js';
export type { CommitRecord } from './runtime/checkpoint/commit-record.js';
export type { ExponentialDelaySettings } from './runtime/job/restart-strategy.js';
export type { JoinedRow, JoinType } from './runtime/operators/changelog/regular-join.js';
export type { StatementResult } from './sql/catalog/catalog-statements.js';
export type { Row } from './sql/connectors/connector.js';
export {
  type AggregateFunctionSpec,
  defineAggregateFunction,
  defineScalarFunction,
  defineTableFunction,
  type ScalarFunction,
  type TableFunctionSpec,
} from './sql/functions/user-functions.js';
export { type SourcePosition, SqlError } from './sql/sql-error.js';
export {
  type BuildScriptOptions,
  type DataStreamSchema,
  type ExecuteSqlOptions,
  type ResultColumn,
  type SqlScriptResult,
  type Table,
  TableEnvironment,
} from './sql/table-environment.js';
export type { JsonValue } from './sql/types/values.js';
export type { StateBackendOptions } from './state/create-backend.js';
export { Serializers } from './state/serializers.js';
export type { DeterministicRandom } from './util/random.js';
