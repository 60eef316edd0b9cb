import { startService } from './start-service.js';

/** Vitest global setup: a real PostgreSQL 15 with wal_level=logical on 127.0.0.1:54329 (scripts/postgres.sh). */
export default function setup(): (() => void) | undefined {
  return startService('postgres.sh');
}
