import { describe, expect, it } from 'vitest';
import { parseCommandLine, type RunOptions } from '../../src/cli/args.js';
import { UsageError } from '../../src/cli/failure.js';

function restartOf(...flags: string[]): RunOptions['restartStrategy'] {
  const command = parseCommandLine(['run', 'job.ts', ...flags]);
  if (command.kind !== 'run') throw new Error(`expected run, got ${command.kind}`);
  return command.options.restartStrategy;
}

function rejects(flags: string[], message: RegExp): void {
  expect(() => restartOf(...flags)).toThrow(UsageError);
  expect(() => restartOf(...flags)).toThrow(message);
}

describe('restart flags of run', () => {
  it('leave the strategy to the default when not given', () => {
    expect(restartOf()).toBeUndefined();
    expect(restartOf('--checkpoint-dir', 'ckpt')).toBeUndefined();
  });

  it('parse each strategy, with defaults for settings not given', () => {
    expect(restartOf('--restart-strategy', 'none')).toEqual({ kind: 'none' });
    expect(restartOf('--restart-strategy', 'fixed-delay')).toEqual({
      kind: 'fixed-delay',
      attempts: 1,
      delayMs: 1000,
    });
    expect(
      restartOf(
        '--restart-strategy',
        'fixed-delay',
        '--restart-attempts',
        '5',
        '--restart-delay',
        '0.5',
      ),
    ).toEqual({ kind: 'fixed-delay', attempts: 5, delayMs: 500 });
    expect(restartOf('--restart-strategy', 'exponential-delay')).toEqual({
      kind: 'exponential-delay',
    });
    expect(
      restartOf(
        '--restart-strategy',
        'exponential-delay',
        '--restart-delay',
        '2',
        '--restart-max-delay',
        '30',
        '--restart-attempts',
        '10',
      ),
    ).toEqual({
      kind: 'exponential-delay',
      initialBackoffMs: 2000,
      maxBackoffMs: 30_000,
      attempts: 10,
    });
    expect(
      restartOf(
        '--restart-strategy',
        'failure-rate',
        '--restart-attempts',
        '3',
        '--restart-failure-interval',
        '300',
        '--restart-delay',
        '10',
      ),
    ).toEqual({
      kind: 'failure-rate',
      maxFailuresPerInterval: 3,
      failureIntervalMs: 300_000,
      delayMs: 10_000,
    });
  });

  it('reject unknown strategies, stray and bad settings', () => {
    rejects(['--restart-strategy', 'always'], /--restart-strategy must be none, fixed-delay/);
    rejects(['--restart-delay', '1'], /--restart-delay needs --restart-strategy/);
    rejects(
      ['--restart-strategy', 'fixed-delay', '--restart-max-delay', '9'],
      /--restart-max-delay does not apply to --restart-strategy fixed-delay/,
    );
    rejects(
      ['--restart-strategy', 'none', '--restart-attempts', '2'],
      /--restart-attempts does not apply to --restart-strategy none/,
    );
    rejects(
      ['--restart-strategy', 'fixed-delay', '--restart-attempts', 'x'],
      /--restart-attempts must be a whole number, got 'x'/,
    );
    rejects(
      ['--restart-strategy', 'fixed-delay', '--restart-delay', 'soon'],
      /--restart-delay must be a number of seconds/,
    );
    rejects(
      [
        '--restart-strategy',
        'exponential-delay',
        '--restart-delay',
        '10',
        '--restart-max-delay',
        '5',
      ],
      /--restart-max-delay must not be below --restart-delay/,
    );
    rejects(
      ['--restart-strategy', 'failure-rate', '--restart-attempts', '0'],
      /--restart-attempts must be at least 1 for failure-rate/,
    );
  });
});
