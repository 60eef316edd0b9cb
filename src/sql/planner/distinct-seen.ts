/**
 * The values a COUNT(DISTINCT) state has seen, each with a mask (a bit per call sharing the
 * state). Integer ids dense over a range, as one group's bidders in Nexmark q15, sit in an
 * array indexed from the smallest (a plain object did that too, in V8's fast elements); any
 * other values, as q16's ids spread over many groups, in a `Map`, where a plain object fell
 * into V8's dictionary mode and a read-and-set cost about twice a Map's.
 *
 * Accumulators are checkpointed, held in window slices and compared as JSON. So a live state
 * carries a non-enumerable `toJSON` that writes its values as an object of keys, the form
 * snapshots always had, and every JSON copy (the state backends', `JSON.stringify`) uses it. A
 * state read back from JSON, or one that crossed threads (structured clone keeps the Map and
 * the array but not `toJSON`), is adopted again by {@link ownSeen} before it is used.
 */

/** A value's key: a small non-negative integer as itself, any other value as typed text. */
export type SeenKey = string | number;

/**
 * A distinct state as aggregates use it; masks are non-zero. The generated add of shared
 * COUNT(DISTINCT) calls (fused-accumulate.ts) reads `dense`, `base` and `n` directly.
 */
export interface SeenState<N> {
  n: N;
  /** Text keys, and integer keys while `dense` is null or below `base`. */
  seen: Map<SeenKey, number>;
  /** Masks of the integer keys from `base` on, at `key - base` (0: not seen); or null. */
  dense: number[] | null;
  base: number;
}

/** The same state as JSON gives it back: `seen` an object whose keys are texts. */
interface SeenStateJson<N> {
  n: N;
  seen: Map<SeenKey, number> | Record<string, number>;
  dense?: number[] | null;
  base?: number;
  toJSON?: unknown;
}

/** A dense array grows by at most this many slots at once; a key further off moves it all to the Map. */
const MAX_GAP = 1024;
/** Dense once this many integer keys cover at most this many times their number of slots. */
const DENSE_FROM = 64;
const MAX_SLOTS_PER_KEY = 4;

function seenToJson<N>(this: SeenState<N>): { n: N; seen: Record<string, number> } {
  const seen: Record<string, number> = {};
  for (const [key, mask] of liveEntries(this)) seen[key] = mask;
  return { n: this.n, seen };
}

function withToJson<N>(state: SeenState<N>): SeenState<N> {
  Object.defineProperty(state, 'toJSON', {
    value: seenToJson,
    enumerable: false,
    writable: true,
    configurable: true,
  });
  return state;
}

/** A new state: nothing seen. */
export function newSeen<N>(n: N): SeenState<N> {
  return withToJson({ n, seen: new Map(), dense: null, base: 0 });
}

const keyOf = (text: string): SeenKey => (text.includes(':') ? text : Number(text));

/**
 * `state` ready to use: its own if it is live, else made live in place. In JSON a key that was
 * a number is its digits; typed text always holds a colon, so the two stay apart.
 */
export function ownSeen<N>(state: unknown): SeenState<N> {
  const s = state as SeenStateJson<N>;
  if (s.toJSON !== undefined) return s as SeenState<N>;
  if (!(s.seen instanceof Map)) {
    const json = s.seen;
    const seen = new Map<SeenKey, number>();
    for (const key of Object.keys(json)) seen.set(keyOf(key), json[key] as number);
    s.seen = seen;
  }
  s.dense ??= null;
  s.base ??= 0;
  const live = withToJson(s as SeenState<N>);
  if (live.dense === null) densify(live);
  return live;
}

/**
 * Where `value` sits in a live state's dense array, or -1: an integer within the array's range
 * (such a value is below 2^32 - 1, so its key is itself; anything else is looked up by its key).
 */
export function denseSlot(s: SeenState<unknown>, value: unknown): number {
  const dense = s.dense;
  if (dense === null || typeof value !== 'number') return -1;
  const at = value - s.base;
  return at >= 0 && at < dense.length && (at | 0) === at ? at : -1;
}

/** The mask of `key` in a live state; 0 if not seen. */
export function maskOf(s: SeenState<unknown>, key: SeenKey): number {
  const dense = s.dense;
  if (dense !== null && typeof key === 'number' && key >= s.base) return dense[key - s.base] ?? 0;
  return s.seen.get(key) ?? 0;
}

/** Sets the (non-zero) mask of `key` in a live state. */
export function setMask(s: SeenState<unknown>, key: SeenKey, mask: number): void {
  const dense = s.dense;
  if (dense !== null && typeof key === 'number' && key >= s.base) {
    const at = key - s.base;
    if (at < dense.length) {
      dense[at] = mask;
      return;
    }
    if (at < dense.length + MAX_GAP) {
      while (dense.length < at) dense.push(0);
      dense.push(mask);
      return;
    }
    // Far beyond the range: the array would turn sparse, so every key goes to the Map.
    for (let i = 0; i < dense.length; i++) if (dense[i] !== 0) s.seen.set(s.base + i, dense[i]!);
    s.dense = null;
  }
  const seen = s.seen;
  const size = seen.size;
  seen.set(key, mask);
  // Each time the Map doubles, whether its integer keys are dense enough for an array.
  if (seen.size !== size && size >= DENSE_FROM && (size & (size - 1)) === 0 && s.dense === null)
    densify(s);
}

/** Moves the Map's integer keys into an array when they are dense over their range. */
function densify(s: SeenState<unknown>): void {
  let count = 0;
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const key of s.seen.keys()) {
    if (typeof key !== 'number') continue;
    count++;
    if (key < lo) lo = key;
    if (key > hi) hi = key;
  }
  if (count < DENSE_FROM || hi - lo + 1 > MAX_SLOTS_PER_KEY * count) return;
  // Filled by push, so V8 keeps the array's elements packed small integers.
  const dense: number[] = [];
  for (let i = lo; i <= hi; i++) dense.push(0);
  for (const [key, mask] of s.seen) {
    if (typeof key !== 'number') continue;
    dense[key - lo] = mask;
    s.seen.delete(key);
  }
  s.dense = dense;
  s.base = lo;
}

function* liveEntries(s: SeenState<unknown>): Generator<[SeenKey, number]> {
  yield* s.seen;
  const dense = s.dense;
  if (dense === null) return;
  for (let i = 0; i < dense.length; i++) if (dense[i] !== 0) yield [s.base + i, dense[i]!];
}

/** The values of `state`, in whichever form it is, without adopting it. */
export function seenEntries(state: unknown): Iterable<[SeenKey, number]> {
  const s = state as SeenStateJson<unknown>;
  if (s.seen instanceof Map) {
    return liveEntries({ n: undefined, seen: s.seen, dense: s.dense ?? null, base: s.base ?? 0 });
  }
  const json = s.seen;
  return Object.keys(json).map((key): [SeenKey, number] => [keyOf(key), json[key] as number]);
}

/** How many values a live state holds. */
export function seenCount(s: SeenState<unknown>): number {
  let n = s.seen.size;
  const dense = s.dense;
  if (dense !== null) for (const mask of dense) if (mask !== 0) n++;
  return n;
}
