import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/longest-first-sequencer.ts';

// The hundreds of Node processes the tests start (workers, the CLI, examples) share V8's compiled
// code: each then starts with about 40% less CPU, which two cores feel.
process.env.NODE_COMPILE_CACHE ??= new URL('node_modules/.cache/node-compile', import.meta.url).pathname;
// The offline model on one thread: three test files at a time keep every core busy, and llama.cpp's
// threads spin waiting for one another whenever one is descheduled. On two loaded cores a first run
// took 38 s of CPU (89 s) on two threads, 22 s (47 s) on one.
process.env.TOOLKIT_AGENT_LOCAL_THREADS ??= '1';

export default defineConfig({
  test: {
    reporters: ['default', './test/summary-reporter.ts'],
    // Three test files at a time, whatever the cores: most integration tests wait on Temporal (timers,
    // heartbeats, a worker's death), so the others use the time one spends waiting. On two cores the
    // suite took 1,046 s with three (202 files) against 1,166 s with two (197 files).
    maxWorkers: 3,
    // The longest files first, so that none of minutes starts last (test/longest-first-sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // Some unit tests start the CLI, tsc or a linter as a process: tens of seconds on a loaded machine.
          testTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          // One real Temporal dev server and one workflow bundle for the whole run.
          globalSetup: ['test/integration/global-setup.ts'],
          setupFiles: ['test/integration/quiet-runtime.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
