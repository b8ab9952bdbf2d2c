import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import type { Compiler } from 'webpack';
import { WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH } from '../../src/workflow-bundle.ts';

const REPLACEMENT = fileURLToPath(new URL('./resolve-run-as-activity.ts', import.meta.url));

/**
 * The agent workflows with `resolveRun` as a plain activity, as before it ran locally: the baseline
 * the benchmark compares the current workflows against.
 */
export async function bundleWithResolveRunAsActivity(): Promise<{ code: string }> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
    logger: new DefaultLogger('WARN'),
    webpackConfigHook: (config) => ({
      ...config,
      plugins: [
        ...(config.plugins ?? []),
        {
          apply(compiler: Compiler) {
            new compiler.webpack.NormalModuleReplacementPlugin(/\/quick-activities\.ts$/, (resource) => {
              if (resource.contextInfo?.issuer !== REPLACEMENT) resource.request = REPLACEMENT;
            }).apply(compiler);
          },
        },
      ],
    }),
  });
  return { code };
}
