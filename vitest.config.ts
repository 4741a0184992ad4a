import { defineConfig } from 'vitest/config';

// Unit tests: plain Node, real SQLite, real parsers on real fixtures. E2E lives in vitest.e2e.config.ts.
export default defineConfig({
  test: {
    include: ['tests/unit/**/*.test.ts', 'tests/native/**/*.test.ts', 'tests/reliability/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
