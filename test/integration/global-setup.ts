import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { EmbeddedTemporalServer } from '../../src/embedded/dev-server.ts';
import { freePort } from '../../src/embedded/free-port.ts';
import { startPostgres } from '../support/postgres-server.ts';
import { cleanUpAfter, stopTmuxServers, tmuxSocketPrefix } from '../support/orphan-watchdog.ts';
import { buildAgentWorkflowBundle } from '../../src/workflow-bundle.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    workflowBundlePath: string;
    /** A folder of this test run's own, for what test files build once and share (removed at the end). */
    testRunDir: string;
    /** The dev server's Prometheus endpoint (its `action` counter, by namespace). */
    temporalMetricsUrl: string;
    /** A namespace no other test uses, for the tests that count the server's actions. */
    costNamespace: string;
    /** A PostgreSQL URL, or '' when no server could start (see postgresSkipped). */
    postgresUrl: string;
    postgresSkipped: string;
  }
}

const COST_NAMESPACE = 'costs';

/**
 * Starts the one dev server of the test run and bundles the workflows once for every test file.
 * What outlives a killed run (PostgreSQL and tmux run as daemons) is stopped by a watchdog once this
 * process ends, however it ends; the teardown below stops it all on a normal end.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The tmux terminals of the test files name their sockets after this run (test/support/tmux.ts).
  process.env.TOOLKIT_AGENT_TEST_RUN ??= randomUUID().slice(0, 8);
  const dir = await mkdtemp(join(tmpdir(), 'toolkit-agent-test-'));
  const metricsPort = await freePort();
  const [server, bundle, postgres] = await Promise.all([
    EmbeddedTemporalServer.start({
      log: (line) => console.log(line),
      // Low limits so tests reach them in seconds rather than megabytes.
      dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': 200 },
      // Created besides `default`, which every other test uses: its actions are a test's own.
      namespace: COST_NAMESPACE,
      metricsPort,
    }),
    buildAgentWorkflowBundle(),
    startPostgres(),
  ]);
  cleanUpAfter(
    process.pid,
    [
      'stop' in postgres ? postgres.orphanCleanup : 'true',
      stopTmuxServers(tmuxSocketPrefix(process.env.TOOLKIT_AGENT_TEST_RUN)),
      `rm -rf '${dir}'`,
    ].join('; '),
  );
  const workflowBundlePath = join(dir, 'workflow-bundle.cjs');
  await writeFile(workflowBundlePath, bundle.code);
  project.provide('temporalAddress', server.address);
  project.provide('workflowBundlePath', workflowBundlePath);
  project.provide('testRunDir', dir);
  project.provide('temporalMetricsUrl', `http://127.0.0.1:${metricsPort}/metrics`);
  project.provide('costNamespace', COST_NAMESPACE);
  project.provide('postgresUrl', 'url' in postgres ? postgres.url : '');
  project.provide('postgresSkipped', 'skipped' in postgres ? postgres.skipped : '');
  return async () => {
    if ('stop' in postgres) await postgres.stop();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  };
}
