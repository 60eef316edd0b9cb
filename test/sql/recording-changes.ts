/**
 * A SQL connector for tests whose sink records every change it gets, accepting the changelog
 * mode its table's `accepts` option names (`upsert`, else `retract`).
 */
import type { ChangelogMode } from '../../src/core/changelog.js';
import type { RecordBatch } from '../../src/core/record-batch.js';
import type { Sink, SinkWriter } from '../../src/core/sink.js';
import { type Change, DiscardingSink, type Row } from '../../src/index.js';
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
