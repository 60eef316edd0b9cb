/**
 * A Kafka broker of a test's own, which the test may stop and start (the
 * shared broker on 9092 serves every other test and must never be stopped).
 * It runs through scripts/kafka.sh on its own ports and state directory.
 */
import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Admin } from '@platformatic/kafka';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPT = join(ROOT, 'scripts', 'kafka.sh');

export class PrivateBroker {
  readonly brokers: string[];
  private readonly env: NodeJS.ProcessEnv;
  private readonly state: string;

  /**
   * `name` names the state directory (`.weir/<name>`); `port` + 1 is the
   * controller's port. `env` adds settings of scripts/kafka.sh (such as
   * `WEIR_KAFKA_SECURE_DIR`, whose listeners take `port` + 2 to + 4).
   */
  constructor(name: string, port: number, env: Readonly<Record<string, string>> = {}) {
    this.state = join(ROOT, '.weir', name);
    this.brokers = [`127.0.0.1:${port}`];
    this.env = {
      ...process.env,
      WEIR_KAFKA_PORT: String(port),
      WEIR_KAFKA_CONTROLLER_PORT: String(port + 1),
      WEIR_KAFKA_STATE: this.state,
      // A busy machine may take a while to start a JVM.
      WEIR_KAFKA_READY_TIMEOUT: '180',
      ...env,
    };
  }

  /** Starts the broker (keeping its data) and resolves once it answers metadata requests. */
  up(): Promise<void> {
    return this.script('up');
  }

  /** Stops the broker (a clean shutdown) and resolves once its process is gone. */
  down(): Promise<void> {
    return this.script('down');
  }

  /** Stops the broker and deletes its state. */
  async destroy(): Promise<void> {
    await this.script('down').catch(() => {});
    await rm(this.state, { recursive: true, force: true });
  }

  async createTopic(
    topic: string,
    partitions: number,
    configs: { name: string; value: string }[] = [],
  ): Promise<void> {
    const admin = new Admin({ clientId: 'weir-test', bootstrapBrokers: this.brokers });
    try {
      await admin.createTopics({ topics: [topic], partitions, replicas: 1, configs });
    } finally {
      await admin.close();
    }
  }

  private script(command: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(SCRIPT, [command], {
        env: this.env,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (d: string) => {
        stderr += d;
      });
      child.on('error', reject);
      child.on('close', (code) => {
        if (code === 0) resolve();
        else reject(new Error(`scripts/kafka.sh ${command} exited with ${code}:\n${stderr}`));
      });
    });
  }
}
