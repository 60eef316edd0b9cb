/**
 * The Nexmark generator's pseudo-random number generator: a counter-based, per-event re-seeded
 * 32-bit generator ("splitmix32"). It uses only 32-bit integer operations, so a Java (or any
 * other) port reproduces it bit for bit. Specification (Java syntax, all `int` arithmetic
 * wrapping mod 2^32, `>>>` the unsigned shift):
 *
 * ```
 * int mix32(int x) {                 // "lowbias32" finaliser, a bijection on 32-bit ints
 *   x ^= x >>> 16; x *= 0x7feb352d;
 *   x ^= x >>> 15; x *= 0x846ca68b;
 *   x ^= x >>> 16; return x;
 * }
 * // Seeding for event number `index` (0 <= index < 2^53) under 32-bit `seed`:
 * int lo = (int) index, hi = (int) (index >>> 32);
 * state = mix32(lo ^ mix32(hi ^ mix32(seed ^ 0x85ebca6b)));
 * // Each draw:
 * int nextInt32() { state += 0x9e3779b9; return mix32(state); }
 * // Uniform integer in [0, n), 1 <= n <= 2^53:
 * long nextBelow(long n) {
 *   if (n <= 1L << 21) return ((nextInt32() & 0xffffffffL) * n) >>> 32;
 *   long hi = nextInt32() >>> 11;             // first draw: top 21 bits
 *   long lo = nextInt32() & 0xffffffffL;      // second draw: 32 bits
 *   return ((hi << 32) | lo) % n;
 * }
 * ```
 *
 * In TypeScript `*` on 32-bit ints is `Math.imul`, `(int)` is `| 0` and unsigned reads are
 * `>>> 0`. For `n <= 2^21` the product `u32 * n` is below 2^53, so the double computation
 * `Math.floor(u32 * n * 2^-32)` is exact (scaling by a power of two rounds nothing). Since `mix32` is a bijection, the 2^32 event numbers
 * sharing one `hi` all start from distinct states.
 *
 * The generator keeps its state in a module-level one-element `Int32Array`: seeding and drawing
 * allocate nothing, and V8 reads and writes a typed array's element without the
 * initialisation check a module-level `let` needs on every access (that check made each draw
 * twice as slow). It is not re-entrant, which is fine for JavaScript's single thread as long as
 * one event is fully generated before the next is seeded.
 */

/** Weyl-sequence increment (golden ratio · 2^32). */
const GOLDEN = 0x9e3779b9 | 0;

/** 2^-32, to scale a 32-bit draw into [0, 1) exactly. */
const TWO_TO_MINUS_32 = 2 ** -32;

/** Salt xor-ed into the seed before mixing. */
const SEED_SALT = 0x85ebca6b | 0;

/** The 32-bit state, as element 0. */
const state = new Int32Array(1);

/** The 32-bit "lowbias32" finaliser (see module doc). Returns a signed 32-bit int. */
export function mix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b | 0);
  x ^= x >>> 16;
  return x;
}

/** Key derived from a seed; `seedEvent` mixes it with the event number. */
export function seedKey(seed: number): number {
  return mix32((seed | 0) ^ SEED_SALT);
}

/**
 * Re-seed the generator for event number `index` (an integer in `[0, 2^53)`) using a key from
 * {@link seedKey}.
 */
export function seedEvent(key: number, index: number): void {
  const hi = Math.floor(index / 4294967296) | 0;
  state[0] = mix32((index | 0) ^ mix32(hi ^ key));
}

/** Set the raw 32-bit state (used to build the fixed lookup tables from constant seeds). */
export function setState(s: number): void {
  state[0] = s;
}

/** Next raw output as a signed 32-bit int. */
export function nextInt32(): number {
  const s = (state[0]! + GOLDEN) | 0;
  state[0] = s;
  return mix32(s);
}

/**
 * Uniform integer in `[0, n)` for an integer `1 <= n <= 2^53` (see module doc). Kept small so
 * that V8 inlines it at each of the generator's many call sites: the rare wide range is a
 * call of its own.
 */
export function nextBelow(n: number): number {
  // The product is an integer below 2^53, and scaling by 2^-32 is exact: the same as a
  // division by 2^32, for a fraction of its cost.
  if (n <= 2097152) return Math.floor((nextInt32() >>> 0) * n * TWO_TO_MINUS_32);
  return nextBelowWide(n);
}

/** {@link nextBelow} for `2^21 < n <= 2^53`: two draws. */
function nextBelowWide(n: number): number {
  const hi = nextInt32() >>> 11;
  const lo = nextInt32() >>> 0;
  return (hi * 4294967296 + lo) % n;
}
