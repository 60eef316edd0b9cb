import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Brings a test service up with its idempotent script (a no-op when it is
 * already running). Set WEIR_SKIP_SERVICES=1 to run only tests that need none.
 */
export function startService(script: 'kafka.sh' | 'postgres.sh' | 'registry.sh' | 's3.sh'): void {
  if (process.env.WEIR_SKIP_SERVICES === '1') return;
  const path = fileURLToPath(new URL(`../../scripts/${script}`, import.meta.url));
  execFileSync('bash', [path, 'up'], { stdio: ['ignore', 'inherit', 'inherit'], timeout: 600_000 });
}
