/**
 * What the interactive-query tests share: the four ways a job runs (heap or
 * disk state, this thread or two workers), and a web UI with a state
 * directory per case, set up around the describe block that calls
 * {@link queriedJobs}.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type StateBackendOptions, startJobModule } from '../../src/index.js';
import { startWebUi, type WebUi } from '../../src/ui/server.js';
import { send } from './http.js';

export interface QueryCase {
  readonly name: string;
  readonly backend: StateBackendOptions;
  readonly workers?: number;
}

export const QUERY_CASES: readonly QueryCase[] = [
  { name: 'heap, this thread', backend: { kind: 'heap' } },
  { name: 'disk, this thread', backend: { kind: 'disk' } },
  { name: 'heap, 2 workers', backend: { kind: 'heap' }, workers: 2 },
  { name: 'disk, 2 workers', backend: { kind: 'disk' }, workers: 2 },
];

/**
 * Starts job module `fixture` with `args` at parallelism 2 as `c` says,
 * shown by a web UI; `get(uid, key, query)` asks its state. The UI and the
 * state directory go when the describe block ends.
 */
export function queriedJobs(c: QueryCase) {
  let ui: WebUi;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'weir-iq-'));
    ui = await startWebUi({ port: 0 });
  });
  afterAll(async () => {
    await ui.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    url: () => ui.url,
    async start(fixture: string, args: readonly string[]) {
      const { client } = await startJobModule(fixture, {
        args: [...args],
        parallelism: 2,
        stateBackend:
          c.backend.kind === 'disk' ? { kind: 'disk', workingDirectory: dir } : c.backend,
        ...(c.workers === undefined ? {} : { workers: c.workers }),
      });
      ui.addJob(client);
      const get = (uid: string, key: string, query = '') =>
        send(ui.url, {
          path: `/jobs/${client.jobId}/state/${uid}/${encodeURIComponent(key)}${query}`,
        });
      return { client, get };
    },
  };
}
