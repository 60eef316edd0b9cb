import { describeRecord, invalidArgument } from '../../core/errors.js';

/** Where the Kafka cluster is. */
export interface KafkaConnectionOptions {
  /** Bootstrap brokers, `host:port`. */
  readonly brokers: readonly string[];
  /** Client id shown in broker logs and quotas. Default `weir`. */
  readonly clientId?: string;
  /** Timeout of one request to a broker. Default 30 s. */
  readonly requestTimeoutMs?: number;
}

/** @internal Validated connection settings. */
export interface KafkaConnection {
  readonly brokers: string[];
  readonly clientId: string;
  readonly requestTimeoutMs: number;
}

const HOST_PORT = /^[^\s:]+:\d{1,5}$|^\[[0-9a-fA-F:]+\]:\d{1,5}$/;

/** @internal */
export function connectionOf(options: KafkaConnectionOptions, what: string): KafkaConnection {
  const brokers = options.brokers as unknown;
  if (!Array.isArray(brokers) || brokers.length === 0) {
    throw invalidArgument(`${what}: brokers must be a non-empty list of 'host:port'`);
  }
  for (const b of brokers) {
    if (typeof b !== 'string' || !HOST_PORT.test(b)) {
      throw invalidArgument(`${what}: broker ${describeRecord(b)} is not 'host:port'`);
    }
  }
  const clientId = options.clientId ?? 'weir';
  if (typeof clientId !== 'string' || clientId.length === 0) {
    throw invalidArgument(`${what}: clientId must be a non-empty string`);
  }
  return {
    brokers: [...(brokers as string[])],
    clientId,
    requestTimeoutMs: positiveMs(what, 'requestTimeoutMs', options.requestTimeoutMs, 30_000),
  };
}

/** @internal A positive number of milliseconds, or the default. */
export function positiveMs(
  what: string,
  name: string,
  value: number | undefined,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw invalidArgument(
      `${what}: ${name} must be a positive number of milliseconds, got ${describeRecord(value)}`,
    );
  }
  return value;
}

/** @internal A non-negative number of milliseconds (0 meaning "off"), or the default. */
export function nonNegativeMs(
  what: string,
  name: string,
  value: number | undefined,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw invalidArgument(
      `${what}: ${name} must be a number of milliseconds >= 0, got ${describeRecord(value)}`,
    );
  }
  return value;
}

/** @internal A positive whole number, or the default. */
export function positiveInt(
  what: string,
  name: string,
  value: number | undefined,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw invalidArgument(
      `${what}: ${name} must be a positive whole number, got ${describeRecord(value)}`,
    );
  }
  return value;
}

/** Kafka's rule for topic names. */
const TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;

/** @internal */
export function checkTopic(what: string, topic: unknown): string {
  if (typeof topic !== 'string' || !TOPIC_NAME.test(topic) || topic === '.' || topic === '..') {
    throw invalidArgument(
      `${what}: ${describeRecord(topic)} is not a valid topic name (letters, digits, '.', '_', '-'; at most 249)`,
    );
  }
  return topic;
}

/** @internal Message of anything thrown. */
export function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    const inner = error.errors.map((e) => reasonOf(e)).join('; ');
    return `${error.message}: ${inner}`;
  }
  return error instanceof Error ? error.message : String(error);
}
