/**
 * A query's result as the SQL client shows it: a table kept up to date by applying each
 * change (`+I` and `+U` add a row, `-U` and `-D` take one away, like Flink's table mode; in
 * an upsert changelog, which has no `-U`, a change replaces or deletes the row of its key),
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
  /** The upsert key of each row (at the same position), for an upsert changelog. */
  private readonly keys: (string | undefined)[] = [];
  changes = 0;

  /**
   * Applies one change (a plain row is an insert). With `key` (the row's upsert key, for an
   * upsert changelog), `+I`/`+U` replace the row of that key in place and `-U`/`-D` delete
   * it (an upsert delete may hold only the key's values); without, a retraction removes an
   * equal row.
   */
  apply(change: Change<string[]>, key?: string): void {
    this.changes++;
    const adds = change.kind === '+I' || change.kind === '+U';
    if (key !== undefined) {
      const at = this.keys.indexOf(key);
      if (adds && at >= 0) this.rows[at] = change.value;
      else if (adds) {
        this.rows.push(change.value);
        this.keys.push(key);
      } else if (at >= 0) {
        this.rows.splice(at, 1);
        this.keys.splice(at, 1);
      }
      return;
    }
    if (adds) {
      this.rows.push(change.value);
      this.keys.push(undefined);
      return;
    }
    const text = JSON.stringify(change.value);
    const at = this.rows.findIndex((r) => JSON.stringify(r) === text);
    if (at >= 0) {
      this.rows.splice(at, 1);
      this.keys.splice(at, 1);
    }
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
