import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/setup/slow-first-sequencer.js';

/**
 * The folders whose tests run in the test process (a few also talk to the
 * test servers): each worker keeps the modules it has loaded from one of
 * their files to the next. Loading Weir's sources again for each file cost
 * more CPU than their tests (on the first eight folders, 104 CPU-s against
 * 45 kept). None of their files mocks modules or globals, fakes timers, or
 * leaves the environment changed. The folders of tests that start jobs as
 * processes keep a fresh module graph per file.
 */
const SHARED_MODULES = [
  'api',
  'async',
  'cep',
  'changelog',
  'connectors',
  'core',
  'docs',
  'errors',
  'fuzz',
  'joins',
  'lookup',
  'metrics',
  'plan',
  'properties',
  'replay',
  'runtime',
  'sql',
  'state',
  'testing',
  'time',
  'windows',
].map((folder) => `test/${folder}/**/*.test.ts`);

export default defineConfig({
  test: {
    // Generous: a test that starts worker threads or processes took 30 s at a load average of
    // 10 on CI's two cores (two files at a time, each with processes of its own). A test that
    // hangs still fails, only later.
    testTimeout: 90_000,
    hookTimeout: 120_000,
    // `expect.poll` waits for an event (a checkpoint completed, a row committed); vitest's
    // default of 1 s failed such waits on a loaded machine. A poll that never passes still fails.
    expect: { poll: { timeout: 60_000 } },
    // Two test files at a time, even on two cores (vitest's default would be
    // one): the long files mostly wait (a broker or a database kept down, a
    // throttled sink), and every test is written to hold on a busy machine.
    // Three were tried: the run took longer (25 min against 20), each file
    // slowed by the others' CPU.
    maxWorkers: 2,
    // The known-slow files start first, so that none of them is left to run alone at the end.
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: 'default',
          include: ['test/**/*.test.ts'],
          exclude: SHARED_MODULES,
          // Real servers for the connector tests, started (idempotently and at once) by their scripts.
          globalSetup: ['test/setup/services.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'in-process',
          include: SHARED_MODULES,
          isolate: false,
          // Project by project: the second finds the servers up and leaves them to the first.
          globalSetup: ['test/setup/services.ts'],
        },
      },
      {
        // With the disk backend, windows keep their contents in it: the window
        // conformance and oracle tests run there too (see test/helpers/state-backend.ts).
        extends: true,
        test: {
          name: 'disk-state',
          include: ['test/windows/*.test.ts', 'test/properties/oracle.test.ts'],
          exclude: ['test/windows/disk-backend.test.ts'],
          env: { WEIR_TEST_STATE_BACKEND: 'disk' },
        },
      },
    ],
  },
});
