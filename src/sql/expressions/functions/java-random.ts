/**
 * Java's `java.util.Random` (a 48-bit linear congruential generator), so RAND(seed) and
 * RAND_INTEGER(seed, n) give the sequence Flink gives from the same seed.
 */
const MULTIPLIER = 0x5deece66dn;
const MASK = (1n << 48n) - 1n;

export class JavaRandom {
  private seed: bigint;

  constructor(seed: bigint) {
    this.seed = (BigInt.asIntN(64, seed) ^ MULTIPLIER) & MASK;
  }

  private next(bits: number): number {
    this.seed = (this.seed * MULTIPLIER + 0xbn) & MASK;
    return Number(BigInt.asIntN(32, this.seed >> BigInt(48 - bits)));
  }

  nextDouble(): number {
    return (this.next(26) * 2 ** 27 + this.next(27)) * 2 ** -53;
  }

  nextInt(bound: number): number {
    if (bound <= 0) throw new RangeError(`RAND_INTEGER: the bound must be positive, got ${bound}`);
    if ((bound & -bound) === bound) return Number((BigInt(bound) * BigInt(this.next(31))) >> 31n);
    for (;;) {
      const bits = this.next(31);
      const value = bits % bound;
      if (bits - value + (bound - 1) < 2 ** 31) return value;
    }
  }
}
