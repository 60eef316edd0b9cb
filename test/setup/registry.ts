import { startService } from './start-service.js';

/**
 * Vitest global setup: a real schema registry (Apicurio Registry, Confluent-compatible
 * API) on 127.0.0.1:58081 (scripts/registry.sh).
 */
export default function setup(): (() => void) | undefined {
  return startService('registry.sh');
}
