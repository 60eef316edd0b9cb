/**
 * Settings and input generators shared by the fuzz suites (see "Fuzzing" in
 * docs/testing.md). Every suite runs a fixed number of inputs from a fixed
 * seed, so CI is deterministic and quick; WEIR_FUZZ_SEED and WEIR_FUZZ_RUNS
 * run other or more inputs, e.g. `WEIR_FUZZ_RUNS=20000 WEIR_FUZZ_SEED=$RANDOM`.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { WeirError } from '../../src/core/errors.js';

/** fast-check parameters: the seed and number of runs from the environment, or the suite's default. */
export function fuzzParameters(defaultRuns = 300): { seed: number; numRuns: number } {
  return {
    seed: Number(process.env.WEIR_FUZZ_SEED ?? 42),
    numRuns: Number(process.env.WEIR_FUZZ_RUNS ?? defaultRuns),
  };
}

/** Most CPU time one input may take to decode: far above the usual (a million-deep JSON array takes about 0.6 s). */
export const PER_INPUT_MS = 2_000;

/**
 * CPU milliseconds this process has used since `start` (from `process.cpuUsage()`): a
 * runaway decode shows in CPU time, while wall time also grows with a busy machine's load.
 */
function cpuMsSince(start: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
}

/** Runs `decode` and fails if it used more than {@link PER_INPUT_MS} of CPU (a hang shows as a vitest timeout). */
export function timed<R>(decode: () => R): R {
  const start = process.cpuUsage();
  try {
    return decode();
  } finally {
    expect(cpuMsSince(start)).toBeLessThan(PER_INPUT_MS);
  }
}

/** The same for an asynchronous decode. */
export async function timedAsync<R>(decode: () => Promise<R>): Promise<R> {
  const start = process.cpuUsage();
  try {
    return await decode();
  } finally {
    expect(cpuMsSince(start)).toBeLessThan(PER_INPUT_MS);
  }
}

/**
 * Asserts that `error` is one of ours: a {@link WeirError} with one of
 * `codes`, whose message matches `names` (the input position, file or field).
 */
export function expectOurError(
  error: unknown,
  codes: readonly WeirError['code'][],
  names?: RegExp,
): void {
  if (!(error instanceof WeirError)) {
    throw new Error(`expected a WeirError, got ${String(error)}`, { cause: error });
  }
  expect(codes).toContain(error.code);
  if (names !== undefined) expect(error.message).toMatch(names);
}

/** Runs `decode`; returns its value, or the error it threw. */
export function outcome<R>(decode: () => R): { value: R } | { error: unknown } {
  try {
    return { value: timed(decode) };
  } catch (error) {
    return { error };
  }
}

/** Byte sequences that are not valid UTF-8 (lone continuation, overlong, surrogate, cut-off, beyond U+10FFFF). */
export const INVALID_UTF8: readonly (readonly number[])[] = [
  [0x80],
  [0xff],
  [0xc0, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x98],
  [0xf4, 0x90, 0x80, 0x80],
  [0xfe],
];

/** Texts that look like numbers or values but are not ordinary ones. */
export const AWKWARD_TEXTS: readonly string[] = [
  'NaN',
  'Infinity',
  '-Infinity',
  '1e400',
  '-1e400',
  '9007199254740993',
  '-9223372036854775809',
  '18446744073709551616',
  '0x1f',
  '1_000',
  '',
  ' ',
  '\u0000',
  '\uFFFD',
  '\uD800',
  '-0',
  '00',
  'null',
  'true',
  '[]',
  '{}',
  '"',
  '\\',
];

/** One way of damaging an encoding. */
type Mutation =
  | { readonly kind: 'flip'; readonly at: number; readonly bit: number }
  | { readonly kind: 'truncate'; readonly at: number }
  | { readonly kind: 'splice'; readonly at: number; readonly bytes: Uint8Array }
  | { readonly kind: 'delete'; readonly at: number; readonly length: number }
  | { readonly kind: 'duplicate'; readonly at: number; readonly length: number }
  | { readonly kind: 'set'; readonly at: number; readonly byte: number };

const position = fc.nat({ max: 1 << 20 });

const spliced = fc.oneof(
  fc.uint8Array({ maxLength: 16 }),
  fc.constantFrom(...INVALID_UTF8).map((b) => Uint8Array.from(b)),
  fc.constant(Uint8Array.of(0)),
  // Lengths and counts as a decoder reads them: huge, negative, zero.
  fc.constantFrom(
    Uint8Array.of(0xff, 0xff, 0xff, 0xff),
    Uint8Array.of(0x7f, 0xff, 0xff, 0xff),
    Uint8Array.of(0x80, 0, 0, 0),
    Uint8Array.of(0, 0, 0, 0),
    Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01),
  ),
  fc.constantFrom(...AWKWARD_TEXTS).map((t) => new Uint8Array(Buffer.from(t))),
);

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: position, bit: fc.nat({ max: 7 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: position }),
  fc.record({ kind: fc.constant('splice' as const), at: position, bytes: spliced }),
  fc.record({ kind: fc.constant('delete' as const), at: position, length: fc.nat({ max: 16 }) }),
  fc.record({ kind: fc.constant('duplicate' as const), at: position, length: fc.nat({ max: 64 }) }),
  fc.record({ kind: fc.constant('set' as const), at: position, byte: fc.nat({ max: 255 }) }),
);

function apply(bytes: Buffer, m: Mutation): Buffer {
  if (bytes.length === 0) return m.kind === 'splice' ? Buffer.from(m.bytes) : bytes;
  const at = m.at % (bytes.length + 1);
  switch (m.kind) {
    case 'flip': {
      const out = Buffer.from(bytes);
      const i = at % bytes.length;
      out[i] = (out[i] as number) ^ (1 << m.bit);
      return out;
    }
    case 'set': {
      const out = Buffer.from(bytes);
      out[at % bytes.length] = m.byte;
      return out;
    }
    case 'truncate':
      return bytes.subarray(0, at);
    case 'splice':
      return Buffer.concat([bytes.subarray(0, at), m.bytes, bytes.subarray(at)]);
    case 'delete':
      return Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + m.length)]);
    case 'duplicate':
      return Buffer.concat([bytes.subarray(0, at + m.length), bytes.subarray(at)]);
  }
}

/** A valid encoding from `valid`, damaged by one to four mutations. */
export function mutated(valid: fc.Arbitrary<Buffer>): fc.Arbitrary<Buffer> {
  return fc
    .tuple(valid, fc.array(mutation, { minLength: 1, maxLength: 4 }))
    .map(([bytes, ms]) => ms.reduce(apply, bytes));
}

/** Arbitrary bytes, valid encodings and damaged ones, in about equal parts. */
export function bytesAround(valid: fc.Arbitrary<Buffer>): fc.Arbitrary<Buffer> {
  return fc.oneof(
    fc.uint8Array({ maxLength: 256 }).map((b) => Buffer.from(b)),
    valid,
    mutated(valid),
  );
}
