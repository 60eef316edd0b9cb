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
 * from the network. The web UI may be bound beyond loopback (`--ui-host`)
 * only with TLS.
 *
 * Both servers share one REST token, made here and kept in a file readable
 * by the job's user only (`--token-file`, default per port, see
 * rest-token.ts); savepoints need it and go only into `--savepoint-dir`s.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ProcessGroupMembership } from '../core/process-group.js';
import type { JobClient } from '../index.js';
import {
  DEFAULT_METRICS_HOST,
  type HttpEndpoint,
  startMetricsServer,
} from '../metrics/metrics-server.js';
import type { MetricRegistry } from '../metrics/registry.js';
import { resolveLocation } from '../runtime/checkpoint/store/open-store.js';
import { isLoopback } from '../ui/loopback.js';
import {
  defaultTokenFile,
  generateToken,
  removeTokenFile,
  writeTokenFile,
} from '../ui/rest-token.js';
import { startWebUi, type TlsOptions, type WebUi } from '../ui/server.js';
import type { ObserveOptions } from './args.js';
import { CliError } from './failure.js';

export interface Observers {
  /** Address of the web UI, e.g. `http://127.0.0.1:8081/`. */
  readonly uiUrl: string | undefined;
  /** Address of the Prometheus endpoint, e.g. `http://127.0.0.1:9249/metrics`. */
  readonly metricsUrl: string | undefined;
  /** Where the REST API answers (the web UI's server, or the metrics port's on loopback), without a trailing slash. */
  readonly apiUrl: string | undefined;
  /** Where the REST token is kept: one file per port serving the API, or `--token-file`. */
  readonly tokenFiles: readonly string[];
  /** Shows the job (and, for a member of a process group, the group) in the UI and on the metrics endpoint. */
  attach(client: JobClient, group?: ProcessGroupMembership): void;
  /** Stops showing a job that `attach` showed (a process group member's run it has replaced). */
  detach(client: JobClient): void;
  close(): Promise<void>;
}

/** What the command knows beyond its flags. */
export interface ObserveContext {
  /** Relative paths in the flags are resolved against this. */
  readonly cwd: string;
  /** Absolute directories savepoints may go into when no `--savepoint-dir` is given. */
  readonly defaultSavepointDirs: readonly string[];
}

/** Starts the servers `options` ask for; see the module comment. */
export async function startObservers(
  options: ObserveOptions,
  context: ObserveContext,
): Promise<Observers> {
  const registries: MetricRegistry[] = [];
  const token = generateToken();
  const savepointDirs =
    options.savepointDirs?.map((d) => resolveLocation(context.cwd, d)) ??
    context.defaultSavepointDirs;
  const tls = await readTls(options, context.cwd);
  const ui =
    options.uiPort === undefined
      ? undefined
      : await startWebUi({
          port: options.uiPort,
          ...(options.uiHost === undefined ? {} : { host: options.uiHost }),
          token,
          savepointDirs,
          ...(tls === undefined ? {} : { tls }),
        }).catch((error: unknown) => {
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
          ? startWebUi({ port: metricsPort, host: metricsHost, token, savepointDirs })
          : startMetricsServer({ port: metricsPort, host: metricsHost }, () => registries)
        ).catch(async (error: unknown) => {
          await ui?.close();
          throw portError('metrics', metricsPort, '--metrics-port', error);
        });
  const apiPorts = [ui?.port, metrics !== undefined && isWebUi(metrics) ? metrics.port : undefined];
  const servedPorts = apiPorts.filter((port) => port !== undefined);
  // One file per API port by default, so `weir savepoint --url` finds it from the port.
  const tokenFiles =
    servedPorts.length === 0
      ? []
      : options.tokenFile === undefined
        ? servedPorts.map((port) => defaultTokenFile(port))
        : [resolve(context.cwd, options.tokenFile)];
  try {
    for (const file of tokenFiles) await writeTokenFile(file, token);
  } catch (error) {
    await Promise.all([ui?.close(), metrics?.close()]);
    throw new CliError(
      `cannot write the REST token file: ${error instanceof Error ? error.message : String(error)} (choose another with --token-file)`,
    );
  }
  return {
    uiUrl: ui === undefined ? undefined : `${ui.url}/`,
    metricsUrl: metrics === undefined ? undefined : `${metrics.url}/metrics`,
    apiUrl: ui?.url ?? (metrics !== undefined && isWebUi(metrics) ? metrics.url : undefined),
    tokenFiles,
    attach(client: JobClient, group?: ProcessGroupMembership): void {
      ui?.addJob(client, group);
      if (metrics !== undefined && isWebUi(metrics)) metrics.addJob(client, group);
      registries.push(client.metrics);
    },
    detach(client: JobClient): void {
      ui?.removeJob(client);
      if (metrics !== undefined && isWebUi(metrics)) metrics.removeJob(client);
      const i = registries.indexOf(client.metrics);
      if (i >= 0) registries.splice(i, 1);
    },
    async close(): Promise<void> {
      await Promise.all([ui?.close(), metrics?.close(), ...tokenFiles.map(removeTokenFile)]);
    },
  };
}

async function readTls(options: ObserveOptions, cwd: string): Promise<TlsOptions | undefined> {
  if (options.tlsCert === undefined || options.tlsKey === undefined) return undefined;
  const read = (flag: string, path: string): Promise<Buffer> =>
    readFile(resolve(cwd, path)).catch((error: unknown) => {
      throw new CliError(
        `cannot read ${flag} ${path}: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
  return {
    cert: await read('--tls-cert', options.tlsCert),
    key: await read('--tls-key', options.tlsKey),
  };
}

function isWebUi(endpoint: HttpEndpoint | WebUi): endpoint is WebUi {
  return 'addJob' in endpoint;
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
