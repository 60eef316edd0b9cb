import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Real servers for the connector tests, started (idempotently) by their scripts.
    globalSetup: ['test/setup/kafka.ts', 'test/setup/postgres.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
