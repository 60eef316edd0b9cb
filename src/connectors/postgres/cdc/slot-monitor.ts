/**
 * Watches the replication slot from a separate session: how much WAL it
 * retains (gauges, and a warning above a threshold), and optionally writes a
 * heartbeat into the WAL so an idle slot's position keeps moving.
 */
import type pg from 'pg';
import type { MetricGroup } from '../../../metrics/registry.js';
import { connect, type PostgresConnection, sessionFailure } from '../connection.js';
import { isConnectionLost } from '../reconnect.js';

/** Gauge: bytes of WAL between the server's current position and the slot's restart position (WAL kept on disk for it). */
export const SLOT_RETAINED_METRIC = 'weir_postgres_slot_retained_wal_bytes';
/** Gauge: bytes of WAL between the server's current position and the slot's confirmed position (not yet confirmed by checkpoints). */
export const SLOT_LAG_METRIC = 'weir_postgres_slot_lag_bytes';

/** One measurement of a slot. */
export interface SlotLag {
  /** WAL kept for the slot: current WAL position minus the slot's `restart_lsn`. */
  readonly retainedBytes: number;
  /** Not yet confirmed: current WAL position minus the slot's `confirmed_flush_lsn`. */
  readonly lagBytes: number;
  readonly active: boolean;
}

const LAG_QUERY = `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::int8::text AS retained,
  pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::int8::text AS lag, active
  FROM pg_replication_slots WHERE slot_name = $1`;

/** Measures a slot's lag once; undefined if the slot does not exist. */
export async function measureSlotLag(
  client: pg.Client,
  slotName: string,
): Promise<SlotLag | undefined> {
  const r = await client.query<{ retained: string | null; lag: string | null; active: boolean }>(
    LAG_QUERY,
    [slotName],
  );
  const row = r.rows[0];
  if (row === undefined) return undefined;
  return {
    retainedBytes: Number(row.retained ?? 0),
    lagBytes: Number(row.lag ?? 0),
    active: row.active,
  };
}

export interface SlotMonitorOptions {
  readonly connection: PostgresConnection;
  readonly slotName: string;
  readonly lagIntervalMs: number;
  readonly warningBytes: number;
  readonly heartbeatIntervalMs: number;
  readonly heartbeatQuery: string;
  readonly onWarning: (message: string) => void;
}

export class SlotMonitor {
  private client: pg.Client | undefined;
  private lag: SlotLag | undefined;
  private warned = false;
  private timers: NodeJS.Timeout[] = [];
  private busy = false;
  private closed = false;
  private lastError: string | undefined;

  constructor(
    private readonly options: SlotMonitorOptions,
    private readonly metrics: MetricGroup,
  ) {}

  /** The latest measurement. */
  get latest(): SlotLag | undefined {
    return this.lag;
  }

  async start(): Promise<void> {
    const o = this.options;
    if (o.lagIntervalMs <= 0 && o.heartbeatIntervalMs <= 0) return;
    await this.session();
    if (o.lagIntervalMs > 0) {
      // The gauges appear with their first measurement.
      await this.measure();
      this.metrics.gauge(
        SLOT_RETAINED_METRIC,
        'WAL bytes the replication slot retains',
        () => this.lag?.retainedBytes ?? 0,
      );
      this.metrics.gauge(
        SLOT_LAG_METRIC,
        'WAL bytes not yet confirmed by a completed checkpoint',
        () => this.lag?.lagBytes ?? 0,
      );
      this.every(o.lagIntervalMs, () => this.measure());
    }
    if (o.heartbeatIntervalMs > 0) this.every(o.heartbeatIntervalMs, () => this.heartbeat());
  }

  private every(ms: number, task: () => Promise<void>): void {
    const t = setInterval(() => {
      if (this.busy || this.closed) return;
      this.busy = true;
      task().finally(() => {
        this.busy = false;
      });
    }, ms);
    t.unref();
    this.timers.push(t);
  }

  /** The monitor's session, opened again after it was lost (a database restart). */
  private async session(): Promise<pg.Client> {
    this.client ??= await connect(this.options.connection, {
      applicationName: `weir-cdc-monitor-${this.options.slotName}`,
    });
    return this.client;
  }

  private async measure(): Promise<void> {
    try {
      const lag = await measureSlotLag(await this.session(), this.options.slotName);
      this.lastError = undefined;
      this.lag = lag;
      if (lag === undefined) return;
      if (lag.retainedBytes > this.options.warningBytes) {
        if (!this.warned) {
          this.warned = true;
          this.options.onWarning(
            `replication slot '${this.options.slotName}' retains ${lag.retainedBytes} bytes of WAL (warning threshold ${this.options.warningBytes}); ` +
              'the source is behind or stopped: WAL keeps growing until it catches up, or until the slot is dropped',
          );
        }
      } else {
        this.warned = false;
      }
    } catch (cause) {
      this.report(cause);
    }
  }

  private async heartbeat(): Promise<void> {
    try {
      await (await this.session()).query(this.options.heartbeatQuery);
      this.lastError = undefined;
    } catch (cause) {
      this.report(cause);
    }
  }

  private report(error: unknown): void {
    const cause = this.client === undefined ? error : sessionFailure(this.client, error);
    if (isConnectionLost(cause)) {
      const lost = this.client;
      this.client = undefined;
      void lost?.end().catch(() => {});
    }
    if (this.closed) return;
    const reason = cause instanceof Error ? cause.message : String(cause);
    if (reason === this.lastError) return;
    this.lastError = reason;
    this.options.onWarning(
      `monitoring replication slot '${this.options.slotName}' failed: ${reason}`,
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    await this.client?.end().catch(() => {});
  }
}
