import type { ReplayableSource, ReplayRange } from '../../../core/replay.js';
import type {
  ProcessGroupSpec,
  Source,
  SourceContext,
  SourceReader,
} from '../../../core/source.js';
import { AssignedReader } from './assigned-reader.js';
import { GroupReader } from './group-reader.js';
import {
  type KafkaSourceOptions,
  processGroupConfig,
  replayConfig,
  type SourceConfig,
  sourceConfig,
} from './source-options.js';

/**
 * Reads Kafka topics as a stream.
 *
 * ```ts
 * const orders = env.fromSource(
 *   new KafkaSource({
 *     brokers: ['127.0.0.1:9092'],
 *     topics: ['orders'],
 *     format: KafkaFormats.json<Order>(),
 *     startFrom: 'earliest',
 *     watermarks: WatermarkStrategy.forBoundedOutOfOrderness<Order>(5_000)
 *       .withTimestampAssigner((o) => o.time)
 *       .withIdleness(10_000),
 *   }),
 * );
 * ```
 *
 * In the default `'assign'` mode the partitions are split over the source's
 * subtasks (`ownerOf(topic, partition, parallelism)`), offsets are part of
 * checkpoints, and a restored job resumes exactly where its checkpoint was.
 * Pass event time through `watermarks` (per partition, inside the source),
 * not `env.fromSource(source, strategy)` (per subtask, after it).
 *
 * `replay(range)` gives a bounded copy for `weir replay`: see
 * docs/connectors/kafka.md, "Replay and reconcile".
 */
export class KafkaSource<T> implements ReplayableSource<T> {
  readonly name: string;
  readonly bounded: boolean;
  readonly parallelizable = true;
  /**
   * In assign mode a checkpoint holds each partition's offset, so it can be
   * restored at any parallelism; in group mode the group's offsets rule.
   */
  readonly rescalable: boolean;
  private readonly config: SourceConfig<T>;

  constructor(options: KafkaSourceOptions<T>) {
    this.config = sourceConfig(options);
    this.name = this.config.name;
    this.rescalable = this.config.mode === 'assign';
    this.bounded = this.config.bounded;
  }

  createReader(context: SourceContext): SourceReader<T> {
    return this.config.mode === 'group'
      ? new GroupReader(this.config, context)
      : new AssignedReader(this.config, context);
  }

  /**
   * A bounded source over `range`: per partition from `positions[0]`, else the
   * first offset with a log timestamp >= `from`, else the earliest; to
   * `positions[1]`, else the first offset with a timestamp >= `to`, else the
   * last stable offset (read_committed) or high watermark when it opens. One
   * reader reads every partition and merges them deterministically.
   */
  eventTimeOf(value: T): number | undefined {
    const assigner = this.config.watermarks?.toSpec().timestampAssigner;
    if (assigner === undefined) return undefined;
    try {
      // The Kafka timestamp of a record read back from elsewhere is not its own.
      const time = assigner(value, Number.NaN);
      return Number.isFinite(time) ? time : undefined;
    } catch {
      return undefined;
    }
  }

  replay(range: ReplayRange): Source<T> {
    return new DerivedKafkaSource(replayConfig(this.config, range));
  }

  /**
   * In a process group every Kafka source reads in group mode, in the
   * job's group on the consumer protocol: each partition is a task, and the
   * broker spreads them over the processes (see docs/deployment.md).
   */
  inProcessGroup(group: ProcessGroupSpec): Source<T> {
    return new DerivedKafkaSource(processGroupConfig(this.config, group));
  }
}

/**
 * A {@link KafkaSource} as another configuration makes it: a replay (bounded,
 * in one reader, since the deterministic merge needs every partition in
 * one), or a member of a process group (group mode: the group's committed
 * offsets rule on restore, not the checkpoint).
 */
class DerivedKafkaSource<T> implements Source<T> {
  readonly name: string;
  readonly bounded: boolean;
  readonly parallelizable: boolean;
  readonly rescalable = false;
  readonly groupTopics: readonly string[] | undefined;

  constructor(private readonly config: SourceConfig<T>) {
    this.name = config.name;
    this.bounded = config.bounded;
    const inGroup = config.mode === 'group' || config.fixedTasks !== undefined;
    this.parallelizable = inGroup;
    this.groupTopics = inGroup ? config.topics : undefined;
  }

  createReader(context: SourceContext): SourceReader<T> {
    return this.config.mode === 'group'
      ? new GroupReader(this.config, context)
      : new AssignedReader(this.config, context);
  }
}
