import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

type ServiceScript = 'kafka.sh' | 'postgres.sh' | 'registry.sh' | 's3.sh';

/**
 * Brings a test service up with its idempotent script and returns the
 * global setup's teardown: it stops the service again only if this run
 * started it, so a server a developer (or another run) already had up is
 * left alone, and a CI machine is left as it was found, whether the tests
 * passed or failed. Set WEIR_KEEP_SERVICES=1 to keep what this run started
 * (later runs then reuse it), WEIR_SKIP_SERVICES=1 to run only tests that
 * need none.
 */
export function startService(script: ServiceScript): (() => void) | undefined {
  if (process.env.WEIR_SKIP_SERVICES === '1') return undefined;
  const path = fileURLToPath(new URL(`../../scripts/${script}`, import.meta.url));
  const wasUp =
    spawnSync('bash', [path, 'status'], { stdio: 'ignore', timeout: 60_000 }).status === 0;
  execFileSync('bash', [path, 'up'], { stdio: ['ignore', 'inherit', 'inherit'], timeout: 600_000 });
  if (wasUp || process.env.WEIR_KEEP_SERVICES === '1') return undefined;
  return () => {
    // A server that will not stop is reported, not turned into a failed test run.
    const down = spawnSync('bash', [path, 'down'], {
      stdio: ['ignore', 'inherit', 'inherit'],
      timeout: 180_000,
    });
    if (down.status !== 0)
      console.warn(`${script} down failed (${down.error?.message ?? `exit ${down.status}`})`);
  };
}
