import { describe, expect, it } from 'vitest';
import { DEMO_DEFAULTS, parseCommandLine } from '../../src/cli/args.js';
import { UsageError } from '../../src/cli/failure.js';

describe('parseCommandLine', () => {
  it('parses run with flags and job arguments after --', () => {
    expect(
      parseCommandLine(['run', 'job.ts', '-p', '4', '--batch-size', '256', '--', 'a', '--b']),
    ).toEqual({
      kind: 'run',
      options: {
        module: 'job.ts',
        parallelism: 4,
        maxParallelism: undefined,
        batchSize: 256,
        name: undefined,
        jobArgs: ['a', '--b'],
        verbose: false,
      },
    });
  });

  it('applies demo defaults', () => {
    expect(parseCommandLine(['demo'])).toEqual({
      kind: 'demo',
      options: {
        durationMs: DEMO_DEFAULTS.durationSeconds * 1000,
        rate: DEMO_DEFAULTS.rate,
        parallelism: 1,
        windowMs: DEMO_DEFAULTS.windowSeconds * 1000,
        verbose: false,
      },
    });
    expect(parseCommandLine(['demo', '-d', '0', '--window', '0.5'])).toMatchObject({
      options: { durationMs: 0, windowMs: 500 },
    });
  });

  it.each([
    [[], 'missing command'],
    [['launch'], "unknown command 'launch'"],
    [['run'], 'missing the job module'],
    [['run', 'job.ts', 'extra'], 'pass arguments for the job after --'],
    [['run', 'job.ts', '--parallelism', '0'], '--parallelism must be a positive whole number'],
    [['run', 'job.ts', '--nope'], "unknown option '--nope'"],
    [['demo', '--duration'], "option '--duration' needs a value"],
    [['demo', '--window', '0'], '--window must be a positive number of seconds'],
  ])('rejects %j', (argv, message) => {
    expect(() => parseCommandLine(argv)).toThrow(UsageError);
    expect(() => parseCommandLine(argv)).toThrow(message);
  });
});
