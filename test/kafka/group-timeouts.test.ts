import { Admin, ConfigResourceTypes } from '@platformatic/kafka';
import { afterAll, describe, expect, it } from 'vitest';
import {
  applyGroupSession,
  applyGroupTimeouts,
  chooseGroupTimeouts,
  FAST_FAILOVER,
  groupTimeoutBounds,
  groupTimeoutsFor,
  KAFKA_DEFAULT_BOUNDS,
} from '../../src/connectors/kafka/group/group-timeouts.js';
import { uniqueTopic } from './helpers.js';

describe('groupTimeoutsFor (--session-timeout)', () => {
  it('asks for 6 s and 250 ms heartbeats without the flag', () => {
    expect(groupTimeoutsFor(undefined)).toEqual(FAST_FAILOVER);
  });

  it('heartbeats every fifth of the session, at most every 250 ms', () => {
    expect(groupTimeoutsFor(1_000)).toEqual({ sessionTimeoutMs: 1_000, heartbeatIntervalMs: 200 });
    expect(groupTimeoutsFor(2_500)).toEqual({ sessionTimeoutMs: 2_500, heartbeatIntervalMs: 250 });
    expect(groupTimeoutsFor(30_000)).toEqual({
      sessionTimeoutMs: 30_000,
      heartbeatIntervalMs: 250,
    });
  });
});

describe('chooseGroupTimeouts', () => {
  it("with Kafka's default broker bounds, gets the least the broker allows: 45 s and 5 s", () => {
    expect(chooseGroupTimeouts(FAST_FAILOVER, KAFKA_DEFAULT_BOUNDS)).toEqual({
      sessionTimeoutMs: 45_000,
      heartbeatIntervalMs: 5_000,
    });
  });

  it('with a broker whose minimums are lowered, gets what it asks for', () => {
    const bounds = {
      minSessionTimeoutMs: 3_000,
      maxSessionTimeoutMs: 60_000,
      minHeartbeatIntervalMs: 100,
      maxHeartbeatIntervalMs: 15_000,
    };
    expect(chooseGroupTimeouts(FAST_FAILOVER, bounds)).toEqual(FAST_FAILOVER);
  });

  it('keeps the heartbeat under a third of the session where it can, and always under it', () => {
    const bounds = { ...KAFKA_DEFAULT_BOUNDS, minSessionTimeoutMs: 6_000 };
    // The heartbeat's minimum (5 s) is above a third of 6 s: the least allowed, still under 6 s.
    expect(
      chooseGroupTimeouts({ sessionTimeoutMs: 6_000, heartbeatIntervalMs: 4_000 }, bounds),
    ).toEqual({
      sessionTimeoutMs: 6_000,
      heartbeatIntervalMs: 5_000,
    });
    const loose = { ...bounds, minHeartbeatIntervalMs: 100 };
    expect(
      chooseGroupTimeouts({ sessionTimeoutMs: 6_000, heartbeatIntervalMs: 4_000 }, loose),
    ).toEqual({
      sessionTimeoutMs: 6_000,
      heartbeatIntervalMs: 2_000,
    });
  });
});

describe('applyGroupTimeouts against the test broker', () => {
  const admin = new Admin({ clientId: 'weir-test', bootstrapBrokers: ['127.0.0.1:9092'] });
  afterAll(() => admin.close());

  it("sets the group's session timeout and heartbeat within the broker's bounds, and they read back", async () => {
    const group = uniqueTopic('timeouts-group');
    const bounds = await groupTimeoutBounds(admin);
    const chosen = await applyGroupTimeouts(admin, group);
    expect(chosen).toEqual(chooseGroupTimeouts(FAST_FAILOVER, bounds));
    const [described] = await admin.describeConfigs({
      resources: [
        {
          resourceType: ConfigResourceTypes.GROUP,
          resourceName: group,
          configurationKeys: ['consumer.session.timeout.ms', 'consumer.heartbeat.interval.ms'],
        },
      ],
    });
    const value = (name: string) => described!.configs.find((c) => c.name === name)?.value;
    expect(value('consumer.session.timeout.ms')).toBe(String(chosen.sessionTimeoutMs));
    expect(value('consumer.heartbeat.interval.ms')).toBe(String(chosen.heartbeatIntervalMs));
  });

  it('--session-timeout: sets the session asked for, or the nearest the broker allows and says so', async () => {
    const bounds = await groupTimeoutBounds(admin);
    const warnings: string[] = [];
    const warn = (line: string) => warnings.push(line);
    const wanted = Math.max(bounds.minSessionTimeoutMs, 3_000);
    const chosen = await applyGroupSession(admin, uniqueTopic('timeouts-session'), wanted, warn);
    expect(chosen.sessionTimeoutMs).toBe(wanted);
    expect(warnings).toEqual([]);
    const tooShort = bounds.minSessionTimeoutMs - 1;
    const group = uniqueTopic('timeouts-short');
    const clamped = await applyGroupSession(admin, group, tooShort, warn);
    expect(clamped.sessionTimeoutMs).toBe(bounds.minSessionTimeoutMs);
    expect(warnings).toEqual([
      `group '${group}': a session of ${tooShort} ms is outside the brokers' group.consumer.min/max.session.timeout.ms, so it is ${bounds.minSessionTimeoutMs} ms`,
    ]);
  });
});
