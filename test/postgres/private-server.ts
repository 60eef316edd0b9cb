/**
 * A PostgreSQL server of one test file alone (scripts/postgres.sh on its own
 * port and state directory), which the tests may stop, crash and start
 * again while jobs run; the shared server on 54329 is never touched.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('../../scripts/postgres.sh', import.meta.url));

export class PrivatePostgres {
  readonly url: string;

  constructor(
    readonly port: number,
    /**
     * Its state directory. By default the script's for that port: `.weir/postgres-port-<port>`,
     * or under /var/tmp when the server's user cannot reach the repository (a clone in a
     * private temporary directory, run as root).
     */
    readonly state?: string,
    /** More settings of scripts/postgres.sh, such as `WEIR_PG_TLS_DIR`. */
    private readonly env: Readonly<Record<string, string>> = {},
  ) {
    this.url = `postgres://weir:weir@127.0.0.1:${port}/weir`;
  }

  private async script(command: string): Promise<void> {
    await run('bash', [SCRIPT, command], {
      env: {
        ...process.env,
        WEIR_PG_PORT: String(this.port),
        ...(this.state === undefined ? {} : { WEIR_PG_STATE: this.state }),
        ...this.env,
      },
      timeout: 120_000,
    });
  }

  /** Starts the server (initdb the first time) and waits until it accepts connections. */
  up(): Promise<void> {
    return this.script('up');
  }

  /** Stops it as an operator would (fast shutdown: sessions are terminated, a checkpoint is written). */
  down(): Promise<void> {
    return this.script('down');
  }

  /** Stops it at once, as a crash would (immediate shutdown: crash recovery on the next start). */
  crash(): Promise<void> {
    return this.script('crash');
  }

  /** Stops it and deletes its state. */
  reset(): Promise<void> {
    return this.script('reset');
  }
}
