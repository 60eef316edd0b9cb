/**
 * Time zones as Flink's `table.local-time-zone` names them: IANA region ids ('Europe/Berlin')
 * through Node's ICU, and fixed offsets ('UTC', '+08:00', 'GMT-8'). A TIMESTAMP_LTZ is an
 * instant (epoch ms); shown or cast to a TIMESTAMP it becomes the wall clock of the zone, and
 * a wall clock becomes an instant again as java.time does it: a time in a DST gap moves forward
 * by the gap, a time in an overlap takes the earlier offset.
 */

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Offsets are constant over each aligned quarter hour in practice: the cache's unit. */
const BUCKET_MS = 15 * MINUTE_MS;

export class TimeZone {
  /** The last quarter hour whose offset was computed, and that offset. */
  private bucket = Number.NaN;
  private bucketOffset = 0;

  private constructor(
    /** The id as the user wrote it (or its canonical form for an offset). */
    readonly id: string,
    /** The offset of a fixed-offset zone, in ms; undefined for a region with rules. */
    private readonly fixedOffset: number | undefined,
    private readonly format: Intl.DateTimeFormat | undefined,
  ) {}

  static readonly UTC = new TimeZone('UTC', 0, undefined);

  private static readonly cache = new Map<string, TimeZone>();

  /** The zone of `id`, or undefined when neither Java nor ICU knows it. One instance per id. */
  static of(id: string): TimeZone | undefined {
    const known = TimeZone.cache.get(id);
    if (known !== undefined) return known;
    const zone = TimeZone.create(id);
    if (zone !== undefined) TimeZone.cache.set(id, zone);
    return zone;
  }

  private static create(id: string): TimeZone | undefined {
    if (id === 'UTC' || id === 'Z' || id === 'GMT' || id === 'UT') return TimeZone.UTC;
    const offset = parseOffset(id);
    if (offset !== undefined) return new TimeZone(id, offset, undefined);
    if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(id) || !id.includes('/')) return undefined;
    try {
      const format = new Intl.DateTimeFormat('en-US', {
        timeZone: id,
        hourCycle: 'h23',
        era: 'short',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
      const resolved = format.resolvedOptions().timeZone;
      // ICU ignores letter case, java.time does not: 'europe/berlin' is no zone there.
      if (resolved !== id && resolved.toLowerCase() === id.toLowerCase()) return undefined;
      return new TimeZone(id, undefined, format);
    } catch {
      return undefined;
    }
  }

  /** Whether the zone's offset never changes (UTC and '+hh:mm' zones). */
  get isFixed(): boolean {
    return this.fixedOffset !== undefined;
  }

  /** Whether the zone is UTC (or an offset of zero): its wall clock is the instant. */
  get isUtc(): boolean {
    return this.fixedOffset === 0;
  }

  /** The zone's offset from UTC at the instant `utcMs`, in ms. */
  offsetAt(utcMs: number): number {
    if (this.fixedOffset !== undefined) return this.fixedOffset;
    const bucket = Math.floor(utcMs / BUCKET_MS);
    if (bucket === this.bucket) return this.bucketOffset;
    const offset = this.computeOffset(utcMs);
    // Cache the quarter hour only when its two ends agree, so a transition inside is never hidden.
    if (this.computeOffset(bucket * BUCKET_MS) === offset) {
      const end = this.computeOffset(bucket * BUCKET_MS + BUCKET_MS - 1);
      if (end === offset) {
        this.bucket = bucket;
        this.bucketOffset = offset;
      }
    }
    return offset;
  }

  /** The wall clock of the zone at the instant `utcMs`, as epoch ms of the same fields in UTC. */
  toLocal(utcMs: number): number {
    return utcMs + this.offsetAt(utcMs);
  }

  /**
   * The instant whose wall clock in the zone is `localMs` (fields as epoch ms in UTC). In a gap
   * (spring forward) the time moves later by the gap. In an overlap java.time takes the earlier
   * offset (the default); java.util's calendar, behind Flink's string functions, the later one.
   */
  toUtc(localMs: number, overlap: 'earlier' | 'later' = 'earlier'): number {
    if (this.fixedOffset !== undefined) return localMs - this.fixedOffset;
    const before = this.offsetAt(localMs - DAY_MS);
    const after = this.offsetAt(localMs + DAY_MS);
    const first = localMs - before;
    if (before === after) return first;
    const second = localMs - after;
    const firstValid = this.offsetAt(first) === before;
    const secondValid = this.offsetAt(second) === after;
    if (firstValid && secondValid) return overlap === 'earlier' ? first : second;
    if (secondValid) return second;
    return first; // valid, or a gap: the offset before the transition carries the time past it
  }

  private computeOffset(utcMs: number): number {
    const whole = Math.floor(utcMs / 1000) * 1000;
    const parts = (this.format as Intl.DateTimeFormat).formatToParts(new Date(whole));
    let year = 0;
    let month = 1;
    let day = 1;
    let hour = 0;
    let minute = 0;
    let second = 0;
    let bc = false;
    for (const p of parts) {
      switch (p.type) {
        case 'year':
          year = Number(p.value);
          break;
        case 'month':
          month = Number(p.value);
          break;
        case 'day':
          day = Number(p.value);
          break;
        case 'hour':
          hour = Number(p.value);
          break;
        case 'minute':
          minute = Number(p.value);
          break;
        case 'second':
          second = Number(p.value);
          break;
        case 'era':
          bc = p.value === 'BC' || p.value === 'B';
          break;
        default:
          break;
      }
    }
    const date = new Date(0);
    date.setUTCFullYear(bc ? 1 - year : year, month - 1, day);
    date.setUTCHours(hour, minute, second, 0);
    return date.getTime() - whole;
  }
}

/**
 * A fixed offset as java.time's ZoneId.of reads it: '+8', '+08', '+0800', '+08:00',
 * '+08:00:00', each optionally after 'UTC', 'GMT' or 'UT'; at most 18 hours.
 */
function parseOffset(id: string): number | undefined {
  const m = /^(?:UTC|GMT|UT)?([+-])(\d{1,2})(?::?(\d{2}))?(?::?(\d{2}))?$/.exec(id);
  if (m === null) return undefined;
  const [, sign, h = '0', mi = '0', s = '0'] = m;
  const hours = Number(h);
  const minutes = Number(mi);
  const seconds = Number(s);
  if (hours > 18 || minutes > 59 || seconds > 59) return undefined;
  const ms = hours * HOUR_MS + minutes * MINUTE_MS + seconds * 1000;
  if (ms > 18 * HOUR_MS) return undefined;
  return sign === '-' ? -ms : ms;
}
