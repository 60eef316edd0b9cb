/**
 * Structured logs for machines (`--log-format json`): one JSON object per
 * line, with `time` (ISO 8601), `level`, `event` (a stable name to filter
 * on), `msg` (for people) and the event's fields. A dozen lines instead of a
 * logging library: the CLI writes a handful of events, synchronously, to
 * one stream.
 */
export type LogLevel = 'info' | 'warn' | 'error';

const RANK: Readonly<Record<LogLevel, number>> = { info: 0, warn: 1, error: 2 };

/** Whether a record at `level` passes `--log-level least`. */
export function shownAt(level: LogLevel, least: LogLevel): boolean {
  return RANK[level] >= RANK[least];
}

export class JsonLog {
  private least: LogLevel = 'info';

  constructor(
    private readonly out: NodeJS.WritableStream,
    /** Fields on every record (the job's name and id). */
    private readonly base: Record<string, unknown> = {},
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** This logger writing only records at `least` and above (`--log-level`). */
  atLeast(least: LogLevel): JsonLog {
    const log = new JsonLog(this.out, this.base, this.now);
    log.least = least;
    return log;
  }

  write(level: LogLevel, event: string, msg: string, fields: Record<string, unknown> = {}): void {
    if (!shownAt(level, this.least)) return;
    const record = { time: this.now().toISOString(), level, event, msg, ...this.base, ...fields };
    this.out.write(`${JSON.stringify(record)}\n`);
  }

  /** A logger adding `fields` to every record. */
  with(fields: Record<string, unknown>): JsonLog {
    return new JsonLog(this.out, { ...this.base, ...fields }, this.now).atLeast(this.least);
  }
}
