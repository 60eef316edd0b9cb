/**
 * The session time zone (`SET 'table.local-time-zone'`) of the statement being planned.
 * Expressions read it when they compile, so a query keeps the zone that was set before it even
 * when a later SET changes it; outside planning (and by default) it is UTC, as in Flink's tests.
 */
import { type SourcePosition, sqlError } from '../sql-error.js';
import { TimeZone } from '../types/time-zone.js';

/** The option naming the session time zone, as in Flink. */
export const LOCAL_TIME_ZONE_OPTION = 'table.local-time-zone';

let active: ReadonlyMap<string, string> | undefined;

/** Runs `body` (planning a statement) with the session options `config`. */
export function withSessionConfig<T>(config: ReadonlyMap<string, string>, body: () => T): T {
  const outer = active;
  active = config;
  try {
    return body();
  } finally {
    active = outer;
  }
}

/** The zone named by `id`, or an error naming the value and the forms Flink accepts. */
export function timeZoneOf(id: string, at?: SourcePosition): TimeZone {
  const zone = TimeZone.of(id);
  if (zone === undefined)
    return sqlError(
      `'${id}' is not a time zone: use a region id such as 'Europe/Berlin' or an offset such as '+08:00' or 'GMT-08:00'`,
      at,
    );
  return zone;
}

/** The session time zone of the statement being planned (UTC when none is set). */
export function sessionTimeZone(): TimeZone {
  const id = active?.get(LOCAL_TIME_ZONE_OPTION);
  return id === undefined ? TimeZone.UTC : timeZoneOf(id);
}

/** The session map's entry of the current database (USE), for CURRENT_DATABASE(). */
export const CURRENT_DATABASE_KEY = '$current-database';

/** The current database of the statement being planned (`default_database` outside one). */
export function currentDatabase(): string {
  return active?.get(CURRENT_DATABASE_KEY) ?? 'default_database';
}
