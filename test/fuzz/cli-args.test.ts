/**
 * Fuzzing the command line: any argv, built from the real commands and
 * flags, values that are almost right and arbitrary strings, is either a
 * command or a UsageError with a message (which the CLI prints with a hint,
 * exiting with 2), never another exception; numbers it accepts are finite.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../src/cli/args.js';
import { UsageError } from '../../src/cli/failure.js';
import { AWKWARD_TEXTS, fuzzParameters, outcome } from './fuzz.js';

const COMMANDS = ['run', 'demo', 'savepoint', 'jobs', 'help', '-h', '--help', '-v', '--version'];
const FLAGS = [
  '--allow-duplicate-output',
  '--allow-non-restored-state',
  '--batch-size',
  '--checkpoint-dir',
  '--checkpoint-interval',
  '--duration',
  '--from',
  '--help',
  '--log-format',
  '--max-parallelism',
  '--metrics-host',
  '--metrics-port',
  '--name',
  '--parallelism',
  '--rate',
  '--restart-attempts',
  '--restart-delay',
  '--restart-failure-interval',
  '--restart-max-delay',
  '--restart-strategy',
  '--savepoint-dir',
  '--savepoint-on-stop',
  '--status-interval',
  '--tls-cert',
  '--tls-key',
  '--to',
  '--token-file',
  '--ui',
  '--ui-host',
  '--ui-port',
  '--url',
  '--verbose',
  '--window',
  '--workers',
  '-p',
  '-h',
  '-d',
  '-r',
  '-w',
  '--',
  '-',
  '--nope',
  '-x',
  '---',
];
const VALUES = [
  '0',
  '1',
  '4',
  '-1',
  '65535',
  '65536',
  '1.5',
  '1e3',
  '10s',
  'auto',
  'text',
  'json',
  'none',
  'fixed-delay',
  'exponential-delay',
  'failure-rate',
  'http://127.0.0.1:8081',
  'http://[::1]:1/',
  'https://x',
  'http://x/?q=1',
  'ftp://x',
  '::',
  'job.ts',
  'job.js',
  '/tmp/chk',
  '',
  ' ',
  '--parallelism=2',
  '--ui-port=',
  '-p4',
  '--restart-delay=1e400',
  ...AWKWARD_TEXTS,
];

const word = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...FLAGS) },
  { weight: 3, arbitrary: fc.constantFrom(...VALUES) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(...FLAGS), fc.constantFrom(...VALUES))
      .map(([f, v]) => `${f}=${v}`),
  },
);
const argv = fc.oneof(
  fc
    .tuple(fc.constantFrom(...COMMANDS), fc.array(word, { maxLength: 10 }))
    .map(([c, rest]) => [c, ...rest]),
  fc.array(word, { maxLength: 8 }),
);

describe('fuzz: command line', () => {
  it('any argv is a command or a UsageError with a message', () => {
    fc.assert(
      fc.property(argv, (args) => {
        const result = outcome(() => parseCommandLine(args));
        if ('error' in result) {
          expect(result.error).toBeInstanceOf(UsageError);
          expect((result.error as UsageError).message.length).toBeGreaterThan(0);
        } else {
          expect(typeof result.value.kind).toBe('string');
          // Numbers that made it through are real numbers, never NaN or an infinity.
          JSON.stringify(result.value, (_k, v: unknown) => {
            if (typeof v === 'number') expect(Number.isFinite(v)).toBe(true);
            return v;
          });
        }
      }),
      fuzzParameters(2_000),
    );
  });
});
