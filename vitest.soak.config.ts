import { defineConfig } from 'vitest/config';

// `npm run test:soak`: the long fault/fuzz runs of issue 19, short by default;
// SOAK_KILLS=100 SOAK_REAL_KILLS=12 SOAK_FUZZ=100000 SOAK_WS_FUZZ=100000 for the full figures (docs/reliability.md).
export default defineConfig({
  test: {
    include: ['tests/soak/**/*.test.ts'],
    environment: 'node',
    testTimeout: 600_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
