/**
 * The CLI's side of observability: starts the web UI and the Prometheus
 * endpoint a command asked for, before its job starts (so a taken port fails
 * fast), and shows them the job once it runs.
 *
 * On the loopback interface (the default) the metrics port is served by the
 * web UI's server, which answers `/metrics` and also the REST API, so that
 * `weir jobs` and `weir savepoint` reach a job started with only
 * `--metrics-port`. Bound to another interface (`--metrics-host`), it serves
 * `/metrics` alone: the API can write savepoints and must not be reachable
 * from the network.
 */
import type { JobClient } from '../index.js';
import {
  DEFAULT_METRICS_HOST,
  type HttpEndpoint,
  startMetricsServer,
} from '../metrics/metrics-server.js';
import type { MetricRegistry } from '../metrics/registry.js';
import { startWebUi, type WebUi } from '../ui/server.js';
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
  const metricsHost = options.metricsHost ?? DEFAULT_METRICS_HOST;
  const metricsPort = options.metricsPort;
  // With the REST API on loopback; /metrics alone elsewhere.
  const metricsApi = metricsPort !== undefined && isLoopback(metricsHost);
  const metrics: HttpEndpoint | WebUi | undefined =
    metricsPort === undefined
      ? undefined
      : await (metricsApi
          ? startWebUi({ port: metricsPort, host: metricsHost })
          : startMetricsServer({ port: metricsPort, host: metricsHost }, () => registries)
        ).catch(async (error: unknown) => {
          await ui?.close();
          throw portError('metrics', metricsPort, '--metrics-port', error);
        });
  return {
    uiUrl: ui === undefined ? undefined : `${ui.url}/`,
    metricsUrl: metrics === undefined ? undefined : `${metrics.url}/metrics`,
    attach(client: JobClient): void {
      ui?.addJob(client);
      if (metrics !== undefined && isWebUi(metrics)) metrics.addJob(client);
      registries.push(client.metrics);
    },
    async close(): Promise<void> {
      await Promise.all([ui?.close(), metrics?.close()]);
    },
  };
}

function isWebUi(endpoint: HttpEndpoint | WebUi): endpoint is WebUi {
  return 'addJob' in endpoint;
}

/** Whether `host` names the loopback interface (as the web UI's own check has it). */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
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
