package weir.nexmark;

/**
 * Port of Weir's Nexmark PRNG (src/connectors/nexmark/prng.ts), bit for bit: a counter-based,
 * per-event re-seeded 32-bit generator ("splitmix32" with the lowbias32 finaliser). Unlike the
 * TypeScript module, the state lives in an instance, so parallel subtasks (threads) each own one.
 */
final class Prng {
  /** Weyl-sequence increment (golden ratio times 2^32). */
  private static final int GOLDEN = 0x9e3779b9;
  /** Salt xor-ed into the seed before mixing. */
  private static final int SEED_SALT = 0x85ebca6b;

  private int state;

  /** The 32-bit "lowbias32" finaliser, a bijection on ints. */
  static int mix32(int x) {
    x ^= x >>> 16;
    x *= 0x7feb352d;
    x ^= x >>> 15;
    x *= 0x846ca68b;
    x ^= x >>> 16;
    return x;
  }

  /** Key derived from a seed (only the seed's low 32 bits count). */
  static int seedKey(long seed) {
    return mix32(((int) seed) ^ SEED_SALT);
  }

  /** Re-seeds for event number {@code index} (0 <= index < 2^53) under a key from seedKey. */
  void seedEvent(int key, long index) {
    int lo = (int) index;
    int hi = (int) (index >>> 32);
    state = mix32(lo ^ mix32(hi ^ key));
  }

  /** Sets the raw state (fixed lookup tables are drawn from constant states). */
  void setState(int s) {
    state = s;
  }

  /** Next raw output as a signed int. */
  int nextInt32() {
    state += GOLDEN;
    return mix32(state);
  }

  /** Uniform integer in [0, n) for 1 <= n <= 2^53. */
  long nextBelow(long n) {
    if (n <= 1L << 21) {
      return ((nextInt32() & 0xffffffffL) * n) >>> 32;
    }
    long hi = nextInt32() >>> 11;
    long lo = nextInt32() & 0xffffffffL;
    return ((hi << 32) | lo) % n;
  }
}
