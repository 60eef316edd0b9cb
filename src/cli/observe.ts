/**
 * The CLI's side of observability: starts the web UI and the Prometheus
 * endpoint a command asked for, before its job starts (so a taken port fails
 * fast), and shows them the job once it runs.
 */
import type { JobClient } from '../index.js';
import { startMetricsServer } from '../metrics/metrics-server.js';
import type { MetricRegistry } from '../metrics/registry.js';
import { startWebUi } from '../ui/server.js';
import type { ObserveOptions } from './args.js';
import { CliError } from './failure.js';

export interface Observers {
  /** Address of the web UI, e.g. `http://127.0.0.1:8081/`. */
  readonly uiUrl: string | undefined;
  /** Address of the Prometheus endpoint, e.g. `http://127.0.0.1:9249/metrics`. */
  readonly metricsUrl: string | undefined;
  /** Shows the job in the UI and on the metrics endpoint. */
  attach(client: JobClient): void;
  close(): Promise<void>;
}

export async function startObservers(options: ObserveOptions): Promise<Observers> {
  const registries: MetricRegistry[] = [];
  const ui =
    options.uiPort === undefined
      ? undefined
      : await startWebUi({ port: options.uiPort }).catch((error: unknown) => {
          throw portError('the web UI', options.uiPort!, '--ui-port', error);
        });
  const metrics =
    options.metricsPort === undefined
      ? undefined
      : await startMetricsServer(
          {
            port: options.metricsPort,
            ...(options.metricsHost === undefined ? {} : { host: options.metricsHost }),
          },
          () => registries,
        ).catch(async (error: unknown) => {
          await ui?.close();
          throw portError('metrics', options.metricsPort!, '--metrics-port', error);
        });
  return {
    uiUrl: ui === undefined ? undefined : `${ui.url}/`,
    metricsUrl: metrics === undefined ? undefined : `${metrics.url}/metrics`,
    attach(client: JobClient): void {
      ui?.addJob(client);
      registries.push(client.metrics);
    },
    async close(): Promise<void> {
      await Promise.all([ui?.close(), metrics?.close()]);
    },
  };
}

function portError(what: string, port: number, flag: string, error: unknown): CliError {
  const code: unknown = error instanceof Error ? Reflect.get(error, 'code') : undefined;
  const reason =
    code === 'EADDRINUSE'
      ? 'the port is in use'
      : error instanceof Error
        ? error.message
        : String(error);
  return new CliError(
    `cannot serve ${what} on port ${port}: ${reason} (choose another with ${flag})`,
  );
}
