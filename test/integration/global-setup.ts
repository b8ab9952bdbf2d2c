import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { EmbeddedTemporalServer } from '../../src/embedded/dev-server.ts';
import { startPostgres } from '../support/postgres-server.ts';
import { cleanUpAfter, stopTmuxServers, tmuxSocketPrefix } from '../support/orphan-watchdog.ts';
import { buildAgentWorkflowBundle } from '../../src/workflow-bundle.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    workflowBundlePath: string;
    /** A PostgreSQL URL, or '' when no server could start (see postgresSkipped). */
    postgresUrl: string;
    postgresSkipped: string;
  }
}

/**
 * Starts the one dev server of the test run and bundles the workflows once for every test file.
 * What outlives a killed run (PostgreSQL and tmux run as daemons) is stopped by a watchdog once this
 * process ends, however it ends; the teardown below stops it all on a normal end.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The tmux terminals of the test files name their sockets after this run (test/support/tmux.ts).
  process.env.TOOLKIT_AGENT_TEST_RUN ??= randomUUID().slice(0, 8);
  const dir = await mkdtemp(join(tmpdir(), 'toolkit-agent-test-'));
  const [server, bundle, postgres] = await Promise.all([
    EmbeddedTemporalServer.start({
      log: (line) => console.log(line),
      // Low limits so tests reach them in seconds rather than megabytes.
      dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': 200 },
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
  project.provide('postgresUrl', 'url' in postgres ? postgres.url : '');
  project.provide('postgresSkipped', 'skipped' in postgres ? postgres.skipped : '');
  return async () => {
    if ('stop' in postgres) await postgres.stop();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  };
}
