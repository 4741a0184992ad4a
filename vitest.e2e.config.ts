import { defineConfig } from 'vitest/config';

// End-to-end: Debian's Chromium (playwright-core) against a real `serve` process.
export default defineConfig({
  test: {
    include: ['tests/e2e/**/*.e2e.test.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
