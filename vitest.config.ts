import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    setupFiles: ['test/support/env.ts'],
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: a single one on CI's 2 cores. The files mostly
    // wait (on queues, timers, HTTP and Chromium), so two at once finish the suite much sooner there.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'service', include: ['test/**/*.test.ts'], exclude: ['test/bench/**', 'test/browser/**', 'node_modules/**'] } },
      // The console in Chromium: one build and one browser per run (globalSetup), shared by the files.
      { extends: true, test: { name: 'browser', include: ['test/browser/**/*.test.ts'], globalSetup: ['test/browser/global-setup.ts'], testTimeout: 120_000 } },
    ],
  },
});
