/**
 * The keyed semi and anti join of SQL's `EXISTS` / `IN` (semi) and `NOT EXISTS` / `NOT IN`
 * (anti) subqueries, over changelogs, as Flink's streaming semi/anti join operator runs them:
 * per join key, the left rows (each with how many right rows match it) and the right rows. A
 * semi join emits a left row (`+I`) while it has at least one match and retracts it (`-D`)
 * when its last match goes; an anti join the opposite. Only left rows come out.
 */
import type { Change } from '../../../core/changelog.js';
import type { KeyedCoProcessFunction } from '../../../core/co-functions.js';
import type {
  Collector,
  KeyedProcessContext,
  KeyedRuntimeContext,
} from '../../../core/functions.js';
import type { Key } from '../../../core/key-groups.js';
import type { Json } from '../../../core/snapshot.js';
import type { MapState, StateSerializer, StateTtlConfig } from '../../../core/state.js';
import { rowText } from './same-row.js';

/** How a semi or anti join is set up. */
export interface SemiAntiJoinSpec<L, R> {
  /** `semi`: a left row is emitted while some right row matches it; `anti`: while none does. */
  readonly type: 'semi' | 'anti';
  /** The condition beyond the key (undefined: every right row of the key matches). */
  readonly matches: ((left: L, right: R) => boolean) | undefined;
  /** How long idle state is kept (undefined: until retracted). */
  readonly ttl?: StateTtlConfig;
  /** How each side's rows are written to snapshots; default JSON. */
  readonly leftSerializer?: StateSerializer<L>;
  readonly rightSerializer?: StateSerializer<R>;
}

/** A left row, how many copies are held, and how many right rows (with copies) match it. */
type LeftEntry<L> = [row: L, count: number, matched: number];
/** A right row and how many copies are held. */
type RightEntry<R> = [row: R, count: number];

function entrySerializer<T, E extends [T, ...number[]]>(
  rows: StateSerializer<T> | undefined,
  what: string,
): { serializer?: StateSerializer<E> } {
  if (rows === undefined) return {};
  return {
    serializer: {
      id: `semi-join-${what}(${rows.id})`,
      version: rows.version,
      toJson: ([row, ...counts]) => [rows.toJson(row), ...counts],
      fromJson: (json, version) => {
        const [row, ...counts] = json as [Json, ...number[]];
        return [rows.fromJson(row, version), ...counts] as E;
      },
    },
  };
}

/** Takes one copy of the row held under `text` away (the count is the entry's second field). */
function removeOne<E extends [unknown, number, ...number[]]>(
  state: MapState<string, E>,
  text: string,
  held: E,
): void {
  if (held[1] <= 1) {
    state.remove(text);
    return;
  }
  const next = [...held] as E;
  next[1] = held[1] - 1;
  state.put(text, next);
}

const accumulates = (change: Change<unknown>): boolean =>
  change.kind === '+I' || change.kind === '+U';

/**
 * A semi or anti join keyed by the join key. Rows are kept by their text, so a retraction
 * finds the row it takes back; the output has `+I` and `-D` changes only (an update of a left
 * row is its `-D` then its `+I`), so no consumer needs an update-before from it.
 */
export class SemiAntiJoinFunction<K extends Key, L, R>
  implements KeyedCoProcessFunction<K, Change<L>, Change<R>, Change<L>>
{
  // Set in open: the runtime runs each subtask on its own Object.create() of this function.
  private left!: MapState<string, LeftEntry<L>>;
  private right!: MapState<string, RightEntry<R>>;

  constructor(private readonly spec: SemiAntiJoinSpec<L, R>) {}

  open(context: KeyedRuntimeContext): void {
    const ttl = this.spec.ttl === undefined ? {} : { ttl: this.spec.ttl };
    this.left = context.state.getMapState<string, LeftEntry<L>>({
      name: 'semi-join left',
      ...entrySerializer<L, LeftEntry<L>>(this.spec.leftSerializer, 'left'),
      ...ttl,
    });
    this.right = context.state.getMapState<string, RightEntry<R>>({
      name: 'semi-join right',
      ...entrySerializer<R, RightEntry<R>>(this.spec.rightSerializer, 'right'),
      ...ttl,
    });
  }

  /** Whether a left row with `matched` matches is in the result. */
  private visible(matched: number): boolean {
    return this.spec.type === 'semi' ? matched > 0 : matched === 0;
  }

  private matches(left: L, right: R): boolean {
    const m = this.spec.matches;
    return m === undefined || m(left, right);
  }

  processElement1(
    change: Change<L>,
    _ctx: KeyedProcessContext<K>,
    out: Collector<Change<L>>,
  ): void {
    const row = change.value;
    const text = rowText(row);
    const held = this.left.get(text);
    if (accumulates(change)) {
      // Copies of one row match the same right rows: count them once.
      let matched = held?.[2] ?? -1;
      if (matched < 0) {
        matched = 0;
        for (const [, [r, count]] of this.right.entries())
          if (this.matches(row, r)) matched += count;
      }
      this.left.put(text, [row, (held?.[1] ?? 0) + 1, matched]);
      if (this.visible(matched)) out.collect({ kind: '+I', value: row });
      return;
    }
    // Not held: expired (TTL), so nothing it produced is left to retract.
    if (held === undefined) return;
    removeOne(this.left, text, held);
    if (this.visible(held[2])) out.collect({ kind: '-D', value: held[0] });
  }

  processElement2(
    change: Change<R>,
    _ctx: KeyedProcessContext<K>,
    out: Collector<Change<L>>,
  ): void {
    const row = change.value;
    const text = rowText(row);
    const held = this.right.get(text);
    const add = accumulates(change);
    if (add) this.right.put(text, [row, (held?.[1] ?? 0) + 1]);
    else if (held === undefined) return;
    else removeOne(this.right, text, held);
    const delta = add ? 1 : -1;
    // Read first: a state backend need not allow writes while its entries are iterated.
    for (const [key, [l, count, matched]] of [...this.left.entries()]) {
      if (!this.matches(l, row)) continue;
      const now = matched + delta;
      this.left.put(key, [l, count, now]);
      const was = this.visible(matched);
      if (was === this.visible(now)) continue;
      const kind = was ? '-D' : '+I';
      for (let i = 0; i < count; i++) out.collect({ kind, value: l });
    }
  }
}
