import { startService } from './start-service.js';

/**
 * Vitest global setup: a real S3-compatible server (gofakes3) on
 * 127.0.0.1:58333, or WEIR_S3_PORT (scripts/s3.sh), with bucket weir-test.
 */
export default function setup(): (() => void) | undefined {
  return startService('s3.sh');
}
