import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { EmbeddedTemporalServer } from '../../src/embedded/dev-server.ts';
import { buildAgentWorkflowBundle } from '../../src/workflow-bundle.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    workflowBundlePath: string;
  }
}

/** Starts the one dev server of the test run and bundles the workflows once for every test file. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), 'toolkit-agent-test-'));
  const [server, bundle] = await Promise.all([
    EmbeddedTemporalServer.start({
      log: (line) => console.log(line),
      // Low limits so tests reach them in seconds rather than megabytes.
      dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': 200 },
    }),
    buildAgentWorkflowBundle(),
  ]);
  const workflowBundlePath = join(dir, 'workflow-bundle.cjs');
  await writeFile(workflowBundlePath, bundle.code);
  project.provide('temporalAddress', server.address);
  project.provide('workflowBundlePath', workflowBundlePath);
  return async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  };
}
