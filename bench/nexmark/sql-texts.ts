/** The Nexmark SQL texts of the Flink peer (its source.sql and queries/*.sql), for Weir SQL. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NexmarkConfig } from '../../src/connectors/nexmark/index.js';
import { flinkPeerDir } from './flink-peer.js';

/** Where the harness splices in the generator options. */
const OPTIONS_MARK = ['$', '{OPTIONS}'].join('');

const resources = () => join(flinkPeerDir(), 'src', 'main', 'resources', 'weir-nexmark');

/** The peer's source.sql with the generator options appended to its WITH clause, as its harness does. */
export function nexmarkSourceSql(config: Partial<NexmarkConfig>): string {
  let options = '';
  for (const [key, value] of Object.entries(config)) {
    if (value === undefined) continue;
    options += `,\n  '${key === 'maxEvents' ? 'events' : key}' = '${value}'`;
  }
  return readFileSync(join(resources(), 'source.sql'), 'utf8').replace(OPTIONS_MARK, options);
}

export function nexmarkQuerySql(name: string): string {
  return readFileSync(join(resources(), 'queries', `${name}.sql`), 'utf8');
}
