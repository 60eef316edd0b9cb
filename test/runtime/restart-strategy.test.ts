import { describe, expect, it } from 'vitest';
import { CollectSink, StreamEnvironment, WeirError } from '../../src/index.js';
import type { RestartEvent } from '../../src/runtime/job/job-monitor.js';
import {
  decideRestart,
  defaultRestartStrategy,
  EXPONENTIAL_DELAY_DEFAULTS,
  type Failure,
  NO_FAILURES,
  type RestartHistory,
  type RestartStrategy,
  resolveRestartStrategy,
} from '../../src/runtime/job/restart-strategy.js';

/** The delays decided for `failures` in turn (undefined: no restart), as the runner would feed them. */
function delays(
  strategy: RestartStrategy,
  failures: readonly Failure[],
  random: () => number = () => 0.5,
): (number | undefined)[] {
  const resolved = resolveRestartStrategy(strategy);
  let history: RestartHistory = NO_FAILURES;
  return failures.map((failure) => {
    const decision = decideRestart(resolved, history, failure, random);
    history = decision.history;
    return decision.delayMs;
  });
}

/** `n` failures one second apart, each after a short run. */
function quick(n: number): Failure[] {
  return Array.from({ length: n }, (_, i) => ({ at: i * 1000, attemptDurationMs: 10 }));
}

describe('restart strategies', () => {
  it('none never restarts', () => {
    expect(delays({ kind: 'none' }, quick(1))).toEqual([undefined]);
  });

  it('fixed-delay restarts `attempts` times after its delay', () => {
    expect(delays({ kind: 'fixed-delay', attempts: 2, delayMs: 25 }, quick(3))).toEqual([
      25,
      25,
      undefined,
    ]);
    expect(delays({ kind: 'fixed-delay', attempts: 0, delayMs: 25 }, quick(1))).toEqual([
      undefined,
    ]);
  });

  it('exponential-delay grows by the multiplier up to the maximum', () => {
    const strategy: RestartStrategy = {
      kind: 'exponential-delay',
      initialBackoffMs: 100,
      maxBackoffMs: 500,
      multiplier: 2,
      jitterFactor: 0,
    };
    expect(delays(strategy, quick(5))).toEqual([100, 200, 400, 500, 500]);
  });

  it('exponential-delay moves each wait by up to the jitter factor, both ways', () => {
    const strategy: RestartStrategy = {
      kind: 'exponential-delay',
      initialBackoffMs: 1000,
      multiplier: 2,
      jitterFactor: 0.1,
    };
    expect(delays(strategy, quick(2), () => 0)).toEqual([900, 1800]);
    expect(delays(strategy, quick(2), () => 0.5)).toEqual([1000, 2000]);
    expect(delays(strategy, quick(2), () => 0.999_999)).toEqual([1100, 2200]);
  });

  it('exponential-delay starts over after a run longer than the reset threshold', () => {
    const strategy: RestartStrategy = {
      kind: 'exponential-delay',
      initialBackoffMs: 100,
      multiplier: 2,
      jitterFactor: 0,
      resetBackoffThresholdMs: 5000,
      attempts: 2,
    };
    const failures: Failure[] = [
      { at: 0, attemptDurationMs: 10 },
      { at: 200, attemptDurationMs: 10 },
      // Two restarts used up, but the job then ran for a while: a fresh start.
      { at: 10_000, attemptDurationMs: 9000 },
      { at: 10_200, attemptDurationMs: 10 },
      { at: 10_400, attemptDurationMs: 10 },
    ];
    expect(delays(strategy, failures)).toEqual([100, 200, 100, 200, undefined]);
  });

  it('exponential-delay has Flink-like defaults and no bound on attempts', () => {
    const decided = delays({ kind: 'exponential-delay' }, quick(30));
    expect(decided[0]).toBe(EXPONENTIAL_DELAY_DEFAULTS.initialBackoffMs);
    expect(decided[1]).toBe(1500);
    expect(decided.every((d) => d !== undefined && d <= 60_000)).toBe(true);
    expect(decided.at(-1)).toBe(60_000);
  });

  it('failure-rate restarts until more than the allowed failures fall within the interval', () => {
    const strategy: RestartStrategy = {
      kind: 'failure-rate',
      maxFailuresPerInterval: 2,
      failureIntervalMs: 1000,
      delayMs: 10,
    };
    // Failures far enough apart never add up.
    expect(
      delays(
        strategy,
        [0, 600, 1200, 1800, 2400].map((at) => ({ at, attemptDurationMs: 1 })),
      ),
    ).toEqual([10, 10, 10, 10, 10]);
    // The third within a second ends the job.
    expect(
      delays(
        strategy,
        [0, 300, 600].map((at) => ({ at, attemptDurationMs: 1 })),
      ),
    ).toEqual([10, 10, undefined]);
  });

  it('defaults to exponential-delay with checkpoints, to none without', () => {
    expect(defaultRestartStrategy(true)).toEqual({ kind: 'exponential-delay' });
    expect(defaultRestartStrategy(false)).toEqual({ kind: 'none' });
  });

  it('rejects bad settings, naming them', () => {
    const bad = (strategy: RestartStrategy, message: RegExp) => {
      expect(() => resolveRestartStrategy(strategy)).toThrow(WeirError);
      expect(() => resolveRestartStrategy(strategy)).toThrow(message);
    };
    bad({ kind: 'fixed-delay', attempts: 1.5, delayMs: 1 }, /attempts must be a whole number/);
    bad({ kind: 'fixed-delay', attempts: 1, delayMs: -1 }, /delayMs must be a number >= 0/);
    bad({ kind: 'exponential-delay', multiplier: 0.5 }, /multiplier must be a number >= 1/);
    bad({ kind: 'exponential-delay', jitterFactor: 2 }, /jitterFactor must be between 0 and 1/);
    bad(
      { kind: 'exponential-delay', initialBackoffMs: 5000, maxBackoffMs: 1000 },
      /maxBackoffMs \(1000\) must be >= initialBackoffMs \(5000\)/,
    );
    bad(
      { kind: 'failure-rate', maxFailuresPerInterval: 0, failureIntervalMs: 1, delayMs: 1 },
      /maxFailuresPerInterval must be a whole number >= 1/,
    );
    bad(
      { kind: 'failure-rate', maxFailuresPerInterval: 1, failureIntervalMs: 0, delayMs: 1 },
      /failureIntervalMs must be positive/,
    );
    bad({ kind: 'restart-always' } as unknown as RestartStrategy, /kind must be none, fixed-delay/);
  });
});

describe('StreamEnvironment.setRestartStrategy', () => {
  it('sets how the job restarts, checking the strategy', async () => {
    const env = new StreamEnvironment({ batchSize: 10 });
    expect(() => env.setRestartStrategy({ kind: 'fixed-delay', attempts: -1, delayMs: 0 })).toThrow(
      /attempts must be a whole number >= 0, got -1/,
    );
    env.setRestartStrategy({ kind: 'fixed-delay', attempts: 1, delayMs: 1 });
    let failed = false;
    const sink = new CollectSink<number>();
    env
      .fromArray([1, 2, 3])
      .map((n) => {
        if (n === 2 && !failed) {
          failed = true;
          throw new Error('once');
        }
        return n;
      })
      .sinkTo(sink);
    const result = await env.execute('set restart strategy');
    expect(result.metric('weir_job_restarts_total')).toBe(1);
    // No checkpoints: the restart starts from scratch (and may repeat what reached the sink).
    expect([...new Set(sink.values)]).toEqual([1, 2, 3]);
  });
});

describe('a restart, as the monitor shows it', () => {
  it('tells listeners the cause and the delay, and the job is restarting meanwhile', async () => {
    const env = new StreamEnvironment({
      restartStrategy: { kind: 'fixed-delay', attempts: 1, delayMs: 60_000 },
    });
    env
      .fromArray([1, 2, 3])
      .map((): number => {
        throw new Error('broken');
      })
      .sinkTo(new CollectSink<number>());
    const client = env.executeAsync('watched restarts');
    const events: RestartEvent[] = [];
    client.monitor.onRestart((event) => events.push(event));
    await expect.poll(() => client.monitor.status, { timeout: 20_000 }).toBe('restarting');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ restart: 1, delayMs: 60_000 });
    expect(String(events[0]!.cause)).toContain('broken');
    expect(client.monitor.exceptions()[0]).toMatchObject({ fatal: false });
    expect(client.metrics.total('weir_job_restarts_total')).toBe(1);
    expect((await client.cancel()).status).toBe('cancelled');
  });
});
