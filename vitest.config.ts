import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    // Property tests and upstream replays are CPU-bound; two workers match the 2-core machines.
    maxWorkers: 2,
    testTimeout: 60_000,
  },
});
