import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { VISIBILITY_INTERCEPTOR_MODULES, WORKFLOWS_PATH } from '../../src/workflow-bundle.ts';

const CHANGE = fileURLToPath(new URL('../fixtures/deploy/timer-before-activities.ts', import.meta.url));

/**
 * The agent workflows with a change that histories of the unchanged bundle do not replay on (a timer
 * before every activity): the "next build" of the versioning and replay tests. Untraced, so it runs
 * without span sinks.
 */
export async function buildChangedWorkflowBundle(): Promise<{ code: string }> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: [...VISIBILITY_INTERCEPTOR_MODULES, CHANGE],
    logger: new DefaultLogger('WARN'),
  });
  return { code };
}
