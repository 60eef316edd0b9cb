import type { Change } from '../../../core/changelog.js';
import { describeRecord, WeirError } from '../../../core/errors.js';
import type {
  Collector,
  KeyedProcessContext,
  KeyedRuntimeContext,
  OnTimerContext,
} from '../../../core/functions.js';
import type { Key } from '../../../core/key-groups.js';
import { NO_TIMESTAMP } from '../../../core/record-batch.js';
import type { Json } from '../../../core/snapshot.js';
import type { MapState, StateSerializer } from '../../../core/state.js';
import type { KeyedCoProcessFunction } from '../keyed/keyed-co-process.js';

/** How a temporal join checkpoints its waiting probe rows and its versions; default JSON. */
export interface TemporalJoinSerializers<P, B> {
  readonly probe?: StateSerializer<P> | undefined;
  readonly version?: StateSerializer<B> | undefined;
}

/** The rows waiting at one time, each encoded by `row`. */
function listOf<P>(row: StateSerializer<P>): StateSerializer<P[]> {
  return {
    id: `weir.list(${row.id})`,
    version: row.version,
    toJson: (rows) => rows.map((r) => row.toJson(r)),
    fromJson: (json, written) => (json as never[]).map((r) => row.fromJson(r, written)),
  };
}

/** A version, or null for a deletion, encoded by `row`. */
function orDeleted<B>(row: StateSerializer<B>): StateSerializer<B | null> {
  return {
    id: `weir.nullable(${row.id})`,
    version: row.version,
    toJson: (v): Json => (v === null ? { deleted: true } : { row: row.toJson(v) }),
    fromJson: (json, written) => {
      const v = json as { deleted?: true; row?: never };
      return v.deleted === true ? null : row.fromJson(v.row as never, written);
    },
  };
}

/** A probe row with the version of the table row valid at its time (null: none, for a left join). */
export type TemporalJoinRow<P, B> = readonly [P, B | null];

/**
 * An event-time temporal join (`FOR SYSTEM_TIME AS OF probe.time`): input 0
 * are probe rows, input 1 the changelog of a versioned table keyed by its
 * primary key. Each version is valid from its event time until the next
 * change of its key; a `-D` (or `-U` without a `+U` at the same time) ends it.
 * Probe rows wait in state until the watermark passes their time, then join
 * the version valid at that time and leave, stamped with their own time.
 * Versions older than the newest one at or before the time a timer fires
 * are dropped: no probe still to come can need them.
 */
export class TemporalJoinFunction<K extends Key, P, B>
  implements KeyedCoProcessFunction<K, P, Change<B>, TemporalJoinRow<P, B>>
{
  private probes!: MapState<number, P[]>;
  /** Versions by event time; null marks a deletion. */
  private versions!: MapState<number, B | null>;

  constructor(
    private readonly keepUnmatched: boolean,
    private readonly serializers: TemporalJoinSerializers<P, B> = {},
  ) {}

  open(context: KeyedRuntimeContext): void {
    const { probe, version } = this.serializers;
    this.probes = context.state.getMapState<number, P[]>({
      name: 'probes',
      ...(probe === undefined ? {} : { serializer: listOf(probe) }),
    });
    this.versions = context.state.getMapState<number, B | null>({
      name: 'versions',
      ...(version === undefined ? {} : { serializer: orDeleted(version) }),
    });
  }

  processElement1(probe: P, ctx: KeyedProcessContext<K>): void {
    const time = eventTime(ctx.timestamp, 'probe', probe);
    const waiting = this.probes.get(time);
    this.probes.put(time, waiting === undefined ? [probe] : [...waiting, probe]);
    ctx.timerService.registerEventTimeTimer(time);
  }

  processElement2(change: Change<B>, ctx: KeyedProcessContext<K>): void {
    const time = eventTime(ctx.timestamp, 'table', change);
    // An update's -U and +U share a time: the +U, applied last, wins.
    const accumulate = change.kind === '+I' || change.kind === '+U';
    this.versions.put(time, accumulate ? change.value : null);
    ctx.timerService.registerEventTimeTimer(time);
  }

  onTimer(time: number, _ctx: OnTimerContext<K>, out: Collector<TemporalJoinRow<P, B>>): void {
    // The newest version at or before `time`; older ones are no longer needed.
    let validFrom = Number.NEGATIVE_INFINITY;
    let valid: B | null = null;
    const stale: number[] = [];
    for (const [from, row] of this.versions.entries()) {
      if (from > time) continue;
      if (from > validFrom) {
        if (validFrom !== Number.NEGATIVE_INFINITY) stale.push(validFrom);
        validFrom = from;
        valid = row;
      } else stale.push(from);
    }
    const waiting = this.probes.get(time);
    if (waiting !== undefined) {
      this.probes.remove(time);
      for (const probe of waiting) {
        if (valid !== null) out.collect([probe, valid]);
        else if (this.keepUnmatched) out.collect([probe, null]);
      }
    }
    for (const from of stale) this.versions.remove(from);
    // A deletion as the newest version means the same as no version.
    if (valid === null && validFrom !== Number.NEGATIVE_INFINITY) this.versions.remove(validFrom);
  }
}

function eventTime(timestamp: number, side: string, record: unknown): number {
  if (timestamp === NO_TIMESTAMP || !Number.isFinite(timestamp)) {
    throw new WeirError(
      'INVALID_TIMESTAMP',
      `a temporal join needs event time on both inputs, but a ${side} record has none: ${describeRecord(record)}; assign timestamps and watermarks before the join`,
      { record: describeRecord(record) },
    );
  }
  return timestamp;
}
