/** The connectors' shared reconnect policy, step by step on a manual clock (no server). */
import { describe, expect, it } from 'vitest';
import {
  type OutageKind,
  Reconnector,
  type ReconnectSettings,
} from '../../src/connectors/shared/reconnect.js';
import { WeirError } from '../../src/index.js';

/** A server that is away when the error says `away`. */
const TEST_OUTAGE: OutageKind = {
  server: 'the server',
  isTransient: (e) => e instanceof Error && e.message === 'away',
  state: () => 'is unreachable',
  reason: (e) => (e instanceof Error ? e.message : String(e)),
};
const away = new Error('away');

function setup(settings: ReconnectSettings, random = 0.5) {
  let now = 0;
  const logs: string[] = [];
  let counted = 0;
  const r = new Reconnector(
    settings,
    "source 's'",
    TEST_OUTAGE,
    { log: (m) => logs.push(m), counter: { inc: () => counted++ } },
    () => random,
    () => now,
  );
  return { r, logs, advance: (ms: number) => (now += ms), counted: () => counted };
}

describe('Reconnector', () => {
  it('waits with doubling, capped backoff, half of each wait random', () => {
    const settings = { maxOutageMs: 60_000, initialBackoffMs: 100, maxBackoffMs: 1_000 };
    const high = setup(settings, 1);
    expect(Array.from({ length: 6 }, () => high.r.failed(away, 'read', 'SOURCE_FAILED'))).toEqual([
      100, 200, 400, 800, 1_000, 1_000,
    ]);
    expect(setup(settings, 0).r.failed(away, 'read', 'SOURCE_FAILED')).toBe(50);
  });

  it('logs every retry once with its cause, counts it, and logs the recovery', () => {
    const { r, logs, advance, counted } = setup({
      maxOutageMs: 60_000,
      initialBackoffMs: 200,
      maxBackoffMs: 1_000,
    });
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) {
      const w = r.failed(away, 'read records', 'SOURCE_FAILED');
      waits.push(w);
      advance(w);
    }
    expect(waits).toEqual([150, 300, 600, 750, 750]);
    expect(counted()).toBe(5);
    expect(logs[0]).toBe(
      "source 's' could not read records, the server is unreachable (away); retry 1 in 150 ms, 0.0 s into the outage (gives up after 60.0 s)",
    );
    r.recovered();
    r.recovered(); // no outage: nothing to say
    expect(logs).toHaveLength(6);
    expect(logs.at(-1)).toBe("source 's' reconnected to the server after 2.5 s (5 retries)");
    expect(r.inOutage).toBe(false);
    // A new outage starts the backoff over.
    expect(r.failed(away, 'read records', 'SOURCE_FAILED')).toBe(150);
  });

  it('fails with a retriable error naming the outage once it would outlast maxOutageMs', () => {
    const { r, advance } = setup({ maxOutageMs: 1_000, initialBackoffMs: 400, maxBackoffMs: 400 });
    advance(r.failed(away, 'write', 'SINK_FAILED'));
    advance(r.failed(away, 'write', 'SINK_FAILED'));
    advance(300);
    let error: unknown;
    try {
      r.failed(away, 'write a batch', 'SINK_FAILED');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(WeirError);
    expect(error).toMatchObject({
      code: 'SINK_FAILED',
      retriable: true,
      cause: away,
      message:
        "source 's' could not write a batch: the server has been unreachable for 0.9 s (2 retries; reconnect.maxOutageMs is 1000 ms): away",
    });
    expect(r.inOutage).toBe(false);
    expect(r.failed(away, 'write', 'SINK_FAILED')).toBe(300);
  });

  it('rethrows an error of the request itself at once; maxOutageMs 0 retries nothing', () => {
    const { r, counted } = setup({
      maxOutageMs: 60_000,
      initialBackoffMs: 200,
      maxBackoffMs: 1_000,
    });
    const refused = new Error('refused');
    expect(() => r.failed(refused, 'write', 'SINK_FAILED')).toThrow(refused);
    expect(counted()).toBe(0);
    const never = setup({ maxOutageMs: 0, initialBackoffMs: 200, maxBackoffMs: 1_000 });
    expect(() => never.r.failed(away, 'write', 'SINK_FAILED')).toThrow(/unreachable for 0\.0 s/);
    expect(never.counted()).toBe(0);
  });

  it('runs an action until it succeeds, and gives up at once when stopped', async () => {
    const { r, logs } = setup({ maxOutageMs: 60_000, initialBackoffMs: 1, maxBackoffMs: 1 });
    let calls = 0;
    const value = await r.run('read', 'SOURCE_FAILED', async () => {
      if (++calls < 3) throw away;
      return 'ok';
    });
    expect({ value, calls }).toEqual({ value: 'ok', calls: 3 });
    expect(logs.at(-1)).toMatch(/reconnected to the server after .* \(2 retries\)/);
    await expect(
      r.run(
        'read',
        'SOURCE_FAILED',
        async () => {
          throw away;
        },
        () => true,
      ),
    ).rejects.toBe(away);
  });
});
