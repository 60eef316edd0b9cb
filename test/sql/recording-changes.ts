/**
 * A SQL connector for tests whose sink records every change it gets, accepting the changelog
 * mode its table's `accepts` option names (`upsert`, else `retract`).
 */
import { expect } from 'vitest';
import type { ChangelogMode } from '../../src/core/changelog.js';
import type { RecordBatch } from '../../src/core/record-batch.js';
import type { Sink, SinkWriter } from '../../src/core/sink.js';
import { type Change, DiscardingSink, type Row, type TableEnvironment } from '../../src/index.js';
import type { CatalogTable } from '../../src/sql/catalog/catalog.js';
import { registerSqlConnectors } from '../../src/sql/connectors/registry.js';

class RecordingSink implements Sink<Change<Row>> {
  readonly name = 'recording';
  constructor(
    readonly accepts: ChangelogMode,
    private readonly log: Change<Row>[],
  ) {}
  createWriter(): SinkWriter<Change<Row>> {
    return {
      write: (batch: RecordBatch<Change<Row>>) => {
        for (const c of batch.values) this.log.push(c);
      },
      close() {},
    };
  }
}

/**
 * Registers connector `name`; returns what each of its tables received, by table name (a
 * table's log starts empty each time a job plans it).
 */
export function registerRecordingConnector(name: string): Map<string, Change<Row>[]> {
  const received = new Map<string, Change<Row>[]>();
  registerSqlConnectors([
    {
      name,
      options: [{ key: 'accepts', description: 'upsert or retract' }],
      sink: () => new DiscardingSink<Row>(),
      changelogSink(table: CatalogTable) {
        const log: Change<Row>[] = [];
        received.set(table.name, log);
        const accepts = table.options.get('accepts')?.value === 'upsert' ? 'upsert' : 'retract';
        return new RecordingSink(accepts, log);
      },
    },
  ]);
  return received;
}

/** A sale, the row of the `sales` table these tests aggregate. */
export interface Sale {
  readonly id: number;
  readonly owner: string;
  readonly amount: number;
}

/** Numbers as plain numbers (COUNT is a BIGINT, which rows may hold as a bigint). */
export const plain = (v: unknown) => (typeof v === 'bigint' ? Number(v) : v);

/** Rows as sorted JSON texts, numbers plain. */
export const rowsText = (rows: readonly Row[]) =>
  rows.map((r) => JSON.stringify(r.map(plain))).sort();

/** The table an upsert changelog leaves, applying each change by the key columns. */
export function upsertTable(changes: readonly Change<Row>[], key: readonly number[]): string[] {
  const table = new Map<string, Row>();
  for (const c of changes) {
    const k = JSON.stringify(key.map((i) => plain(c.value[i])));
    if (c.kind === '-D' || c.kind === '-U') table.delete(k);
    else table.set(k, c.value);
  }
  return rowsText([...table.values()]);
}

/** The rows a retract changelog leaves: each -U and -D removes one equal row added before. */
export function retractTable(changes: readonly Change<Row>[]): string[] {
  const bag: string[] = [];
  for (const c of changes) {
    const text = JSON.stringify(c.value.map(plain));
    if (c.kind === '+I' || c.kind === '+U') bag.push(text);
    else {
      const at = bag.indexOf(text);
      expect(at, `${c.kind} of a row not in the table: ${text}`).toBeGreaterThanOrEqual(0);
      bag.splice(at, 1);
    }
  }
  return bag.sort();
}

/** A query run into an upsert and a retract table, `<name>_upsert` and `<name>_retract`. */
export interface RecordedCase {
  readonly name: string;
  /** The PRIMARY KEY of both tables, by column position. */
  readonly key: readonly number[];
  readonly select: string;
}

/**
 * Runs every case into both its tables in one job and expects each table (the upsert one
 * without any `-U`) to end equal to `batch` of the case.
 */
export async function expectBothSinksEqualBatch(
  tEnv: TableEnvironment,
  received: ReadonlyMap<string, Change<Row>[]>,
  cases: readonly RecordedCase[],
  batch: (c: RecordedCase) => Row[],
): Promise<void> {
  const inserts = cases.flatMap((c) => [
    `INSERT INTO ${c.name}_upsert ${c.select};`,
    `INSERT INTO ${c.name}_retract ${c.select};`,
  ]);
  await tEnv.executeSql(`EXECUTE STATEMENT SET BEGIN ${inserts.join(' ')} END;`).job?.result;
  for (const c of cases) {
    const expected = rowsText(batch(c));
    const upserts = received.get(`${c.name}_upsert`) ?? [];
    expect(upserts.some((x) => x.kind === '-U')).toBe(false);
    expect(upsertTable(upserts, c.key), c.name).toEqual(expected);
    expect(retractTable(received.get(`${c.name}_retract`) ?? []), c.name).toEqual(expected);
  }
}
