/**
 * How tests reach what the public interfaces hide: the implementation behind
 * an environment or stream built through the public entry.
 */
import type { ChangelogStreamImpl, TableViewImpl } from '../../src/api/changelog-stream.js';
import { DataStreamImpl } from '../../src/api/data-stream.js';
import { StreamEnvironmentImpl } from '../../src/api/environment.js';
import { implOf } from '../../src/api/impl-of.js';
import type { ChangelogMode } from '../../src/core/changelog.js';
import type { Key } from '../../src/core/key-groups.js';
import type { DataStream, StreamEnvironment, TableView } from '../../src/index.js';

/** The environment class behind `env`: its `plan()` and logical `graph`. */
export function envImpl(env: StreamEnvironment): StreamEnvironmentImpl {
  return implOf(env, StreamEnvironmentImpl, 'test');
}

/** What a stream carries: `insert-only`, or the changelog mode of its parts. */
export function changelogModeOf<T>(stream: DataStream<T>): ChangelogMode {
  return implOf(stream, DataStreamImpl, 'test').changelogMode();
}

/** The changelog a table view was materialized from. */
export function tableViewInput<T, K extends Key>(view: TableView<T, K>): ChangelogStreamImpl<T> {
  return (view as TableViewImpl<T, K>).input;
}
