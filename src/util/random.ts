/**
 * A small, fast, seedable random number generator (SplitMix32 variant on
 * 32-bit integer arithmetic). Generators re-seed it per record index, so any
 * record can be regenerated on its own and sources split across subtasks
 * produce exactly the records a single subtask would.
 */
export class DeterministicRandom {
  private state = 0;

  constructor(seed = 0) {
    this.state = seed | 0;
  }

  /** Restarts the sequence from (seed, index). */
  reseed(seed: number, index: number): this {
    // Mix the high and low halves of the index so indexes beyond 2^32 differ.
    const hi = Math.floor(index / 0x100000000);
    this.state = mix(mix(seed ^ 0x9e3779b9) ^ (index >>> 0)) ^ mix(hi + 0x632be5ab);
    return this;
  }

  /** Next unsigned 32-bit integer. */
  nextUint32(): number {
    this.state = (this.state + 0x9e3779b9) | 0;
    return mix(this.state);
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextUint32() / 0x100000000;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Uniform integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
}

function mix(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}
