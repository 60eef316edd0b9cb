import { startService } from './start-service.js';

/** Vitest global setup: a real Kafka broker on 127.0.0.1:9092 (scripts/kafka.sh). */
export default function setup(): (() => void) | undefined {
  return startService('kafka.sh');
}
