import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The real servers of the connector tests, each through its idempotent script:
 * a Kafka broker on 127.0.0.1:9092, PostgreSQL 15 with wal_level=logical on
 * 127.0.0.1:54329, a schema registry (Apicurio, Confluent-compatible API) on
 * 127.0.0.1:58081 and an S3-compatible server (gofakes3) on 127.0.0.1:58333
 * (or WEIR_S3_PORT) with bucket weir-test.
 */
const SCRIPTS = ['kafka.sh', 'postgres.sh', 'registry.sh', 's3.sh'] as const;
type ServiceScript = (typeof SCRIPTS)[number];

const path = (script: ServiceScript) =>
  fileURLToPath(new URL(`../../scripts/${script}`, import.meta.url));

interface Outcome {
  /** The exit code, or how the script failed to run or was stopped. */
  readonly code: number | string;
  /** What the script wrote to stderr (also passed on to ours). */
  readonly log: string;
}

/** Runs `script command`. */
function run(
  script: ServiceScript,
  command: 'status' | 'up' | 'down',
  timeoutMs: number,
): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = spawn('bash', [path(script), command], {
      stdio: ['ignore', command === 'status' ? 'ignore' : 'inherit', 'pipe'],
      timeout: timeoutMs,
    });
    let log = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      log += d;
      if (command !== 'status') process.stderr.write(d);
    });
    child.on('error', (e) => resolve({ code: e.message, log }));
    child.on('close', (code, signal) => resolve({ code: code ?? `killed by ${signal}`, log }));
  });
}

/** Brings one service up; resolves to whether this call started it. */
async function up(script: ServiceScript): Promise<boolean> {
  if ((await run(script, 'status', 60_000)).code === 0) return false;
  const { code, log } = await run(script, 'up', 600_000);
  if (code !== 0) throw new Error(`scripts/${script} up failed (exit ${code})`);
  // On a loaded machine a status check can time out although the server
  // runs; `up` then finds it running, and this run must not stop it.
  return !/: already running/.test(log);
}

async function down(scripts: readonly ServiceScript[]): Promise<void> {
  await Promise.all(
    scripts.map(async (script) => {
      // A server that will not stop is reported, not turned into a failed test run.
      const { code } = await run(script, 'down', 180_000);
      if (code !== 0) console.warn(`${script} down failed (exit ${code})`);
    }),
  );
}

/**
 * Vitest global setup: brings up the services that are not running, all at
 * once (each start mostly waits for a JVM or a server to get ready), and
 * returns the teardown that stops again only those this run started, so a
 * server a developer (or another run) already had up is left alone and a CI
 * machine is left as it was found, whether the tests passed or failed. Set
 * WEIR_KEEP_SERVICES=1 to keep what this run started (later runs then reuse
 * it), WEIR_SKIP_SERVICES=1 to run only tests that need none.
 */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.WEIR_SKIP_SERVICES === '1') return undefined;
  const results = await Promise.allSettled(SCRIPTS.map(up));
  const started = SCRIPTS.filter((_, i) => {
    const result = results[i]!;
    return result.status === 'fulfilled' && result.value;
  });
  const failed = results.filter((r) => r.status === 'rejected');
  const keep = process.env.WEIR_KEEP_SERVICES === '1';
  if (failed.length > 0) {
    // No teardown runs after a failed setup: stop here what this run started.
    if (!keep) await down(started);
    throw new AggregateError(
      failed.map((r) => r.reason),
      failed.map((r) => String(r.reason)).join('; '),
    );
  }
  if (keep || started.length === 0) return undefined;
  return () => down(started);
}
