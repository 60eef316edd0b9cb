import { type Admin, ConfigResourceTypes } from '@platformatic/kafka';
import { brokerConfig } from '../client.js';

/**
 * Failure detection a process group asks for: a dead member is noticed within about 6 s.
 * Under the consumer protocol a member learns of each step of a rebalance in a heartbeat's
 * answer, so the heartbeat, not the session, sets how soon a survivor hears that it was given
 * a dead member's tasks and how long a member waits for a burst of changes to end: a
 * heartbeat every 250 ms costs the broker a few requests a second per member and takes about
 * 1.5 s off a keyed failover against one a second (docs/benchmarks.md).
 */
export const FAST_FAILOVER = { sessionTimeoutMs: 6_000, heartbeatIntervalMs: 250 } as const;

/** The most a process group's heartbeat interval is asked to be (see {@link FAST_FAILOVER}). */
const MAX_HEARTBEAT_MS = 250;

/**
 * The timeouts a process group asks for with a session of `sessionTimeoutMs`
 * (`--session-timeout`; {@link FAST_FAILOVER} without it): a heartbeat every
 * fifth of the session, at most every 250 ms, so a member can miss at least
 * four before it is declared dead.
 */
export function groupTimeoutsFor(sessionTimeoutMs: number | undefined): GroupTimeouts {
  if (sessionTimeoutMs === undefined) return FAST_FAILOVER;
  return {
    sessionTimeoutMs,
    heartbeatIntervalMs: Math.max(50, Math.min(MAX_HEARTBEAT_MS, Math.floor(sessionTimeoutMs / 5))),
  };
}

export interface GroupTimeouts {
  readonly sessionTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
}

/** What the brokers allow a consumer-protocol group to set (`group.consumer.*` broker settings). */
export interface GroupTimeoutBounds {
  readonly minSessionTimeoutMs: number;
  readonly maxSessionTimeoutMs: number;
  readonly minHeartbeatIntervalMs: number;
  readonly maxHeartbeatIntervalMs: number;
}

/** Kafka's defaults for these bounds, used where a broker does not say. */
export const KAFKA_DEFAULT_BOUNDS: GroupTimeoutBounds = {
  minSessionTimeoutMs: 45_000,
  maxSessionTimeoutMs: 60_000,
  minHeartbeatIntervalMs: 5_000,
  maxHeartbeatIntervalMs: 15_000,
};

const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));

/**
 * The timeouts closest to `wanted` that the brokers accept: each within its
 * bounds, and the heartbeat shorter than the session (the broker refuses
 * otherwise), at most a third of it where the bounds allow, so two
 * heartbeats may be missed before a member is declared dead.
 */
export function chooseGroupTimeouts(
  wanted: GroupTimeouts,
  bounds: GroupTimeoutBounds,
): GroupTimeouts {
  const session = clamp(
    wanted.sessionTimeoutMs,
    bounds.minSessionTimeoutMs,
    bounds.maxSessionTimeoutMs,
  );
  const heartbeat = clamp(
    Math.min(wanted.heartbeatIntervalMs, Math.floor(session / 3)),
    bounds.minHeartbeatIntervalMs,
    Math.min(bounds.maxHeartbeatIntervalMs, session - 1),
  );
  return { sessionTimeoutMs: session, heartbeatIntervalMs: heartbeat };
}

/** The brokers' bounds for consumer-protocol groups (Kafka's defaults where unset). */
export async function groupTimeoutBounds(admin: Admin): Promise<GroupTimeoutBounds> {
  const read = async (name: string, fallback: number): Promise<number> => {
    const value = Number(await brokerConfig(admin, name));
    return Number.isFinite(value) && value > 0 ? value : fallback;
  };
  const d = KAFKA_DEFAULT_BOUNDS;
  return {
    minSessionTimeoutMs: await read('group.consumer.min.session.timeout.ms', d.minSessionTimeoutMs),
    maxSessionTimeoutMs: await read('group.consumer.max.session.timeout.ms', d.maxSessionTimeoutMs),
    minHeartbeatIntervalMs: await read(
      'group.consumer.min.heartbeat.interval.ms',
      d.minHeartbeatIntervalMs,
    ),
    maxHeartbeatIntervalMs: await read(
      'group.consumer.max.heartbeat.interval.ms',
      d.maxHeartbeatIntervalMs,
    ),
  };
}

/**
 * Sets the session timeout and heartbeat interval of consumer-protocol
 * group `groupId` (group configs through IncrementalAlterConfigs, Kafka
 * 3.8+), as close to `wanted` as the brokers allow. Under the consumer
 * protocol (KIP-848) these are the broker's to enforce, so this is how a
 * process group detects a killed member sooner than the broker's default
 * of 45 s, where the broker's minimums allow it. Resolves with what was set.
 */
export async function applyGroupTimeouts(
  admin: Admin,
  groupId: string,
  wanted: GroupTimeouts = FAST_FAILOVER,
): Promise<GroupTimeouts> {
  const chosen = chooseGroupTimeouts(wanted, await groupTimeoutBounds(admin));
  await admin.incrementalAlterConfigs({
    resources: [
      {
        resourceType: ConfigResourceTypes.GROUP,
        resourceName: groupId,
        configs: [
          // The heartbeat first: it must stay below the session timeout at every step.
          {
            name: 'consumer.heartbeat.interval.ms',
            value: String(chosen.heartbeatIntervalMs),
            configOperation: 0,
          },
          {
            name: 'consumer.session.timeout.ms',
            value: String(chosen.sessionTimeoutMs),
            configOperation: 0,
          },
        ],
      },
    ],
  });
  return chosen;
}

/**
 * {@link applyGroupTimeouts} for a process group asking for a session of
 * `sessionTimeoutMs` (`--session-timeout`, else 6 s): a session the brokers
 * do not allow is moved within their bounds, and an explicit one that was
 * moved is said through `warn`.
 */
export async function applyGroupSession(
  admin: Admin,
  groupId: string,
  sessionTimeoutMs: number | undefined,
  warn: (line: string) => void,
): Promise<GroupTimeouts> {
  const chosen = await applyGroupTimeouts(admin, groupId, groupTimeoutsFor(sessionTimeoutMs));
  if (sessionTimeoutMs !== undefined && chosen.sessionTimeoutMs !== sessionTimeoutMs)
    warn(
      `group '${groupId}': a session of ${sessionTimeoutMs} ms is outside the brokers' group.consumer.min/max.session.timeout.ms, so it is ${chosen.sessionTimeoutMs} ms`,
    );
  return chosen;
}
