import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/setup/slow-first-sequencer.js';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
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
          // Real servers for the connector tests, started (idempotently and at once) by their scripts.
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
