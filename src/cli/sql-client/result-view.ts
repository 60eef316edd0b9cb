/**
 * A query's result as the SQL client shows it: a table kept up to date by applying each
 * change (`+I` and `+U` add a row, `-U` and `-D` take one away, like Flink's table mode),
 * rendered on refresh; or, for a pipe, each change as a `+I[...]` line.
 */
import { type Change, isChange } from '../../core/changelog.js';

export interface ResultColumn {
  readonly name: string;
  readonly type: string;
}

/** The rows a changelog leaves, in the order they arrived. */
export class MaterializedResult {
  private readonly rows: string[][] = [];
  changes = 0;

  /** Applies one change (a plain row is an insert). */
  apply(change: Change<string[]>): void {
    this.changes++;
    if (change.kind === '+I' || change.kind === '+U') {
      this.rows.push(change.value);
      return;
    }
    const key = JSON.stringify(change.value);
    const at = this.rows.findIndex((r) => JSON.stringify(r) === key);
    if (at >= 0) this.rows.splice(at, 1);
  }

  get size(): number {
    return this.rows.length;
  }

  /** The table as text: a header, a rule, the last `limit` rows. */
  render(columns: readonly ResultColumn[], limit: number): string {
    const shown = this.rows.slice(Math.max(0, this.rows.length - limit));
    const widths = columns.map((c, i) =>
      Math.min(40, Math.max(c.name.length, ...shown.map((r) => (r[i] ?? '').length))),
    );
    const cell = (text: string, i: number) => {
      const w = widths[i] as number;
      return text.length > w ? `${text.slice(0, w - 1)}~` : text.padStart(w);
    };
    const lines = [
      columns.map((c, i) => cell(c.name, i)).join(' | '),
      widths.map((w) => '-'.repeat(w)).join('-+-'),
      ...shown.map((r) => r.map((v, i) => cell(v, i)).join(' | ')),
    ];
    return lines.join('\n');
  }
}

/** A change of a row from a query's stream: plain rows are inserts. */
export function asChange(value: unknown, show: (row: unknown[]) => string[]): Change<string[]> {
  if (isChange(value)) return { kind: value.kind, value: show(value.value as unknown[]) };
  return { kind: '+I', value: show(value as unknown[]) };
}

/** `+I[a, b]`: one change as Flink prints it. */
export function changeLine(change: Change<string[]>): string {
  return `${change.kind}[${change.value.join(', ')}]`;
}
