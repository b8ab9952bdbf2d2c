import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DefaultLogger, bundleWorkflowCode, type WorkflowBundleOption } from '@temporalio/worker';

/** The workflows module next to this file: `.ts` when running from source, `.js` from `dist/`. */
export const WORKFLOWS_PATH = fileURLToPath(
  new URL(`./workflows/index${extname(fileURLToPath(import.meta.url))}`, import.meta.url),
);
/** The module exporting the failure converter (message and stack encoded), for workflows and activities. */
export const FAILURE_CONVERTER_PATH = fileURLToPath(
  new URL(`./codec/failure-converter${extname(fileURLToPath(import.meta.url))}`, import.meta.url),
);
/** Written by `npm run build`, so a worker started from `dist/` skips webpack. */
export const PREBUILT_BUNDLE_PATH = fileURLToPath(new URL('./workflow-bundle.cjs', import.meta.url));

let bundling: Promise<WorkflowBundleOption> | undefined;

/**
 * The agent workflows as a bundle for `Worker.create`: the prebuilt one when present, else bundled
 * once per process (webpack takes a few seconds; every worker of the process shares the result).
 */
export function agentWorkflowBundle(): Promise<WorkflowBundleOption> {
  if (existsSync(PREBUILT_BUNDLE_PATH)) return Promise.resolve({ codePath: PREBUILT_BUNDLE_PATH });
  bundling ??= buildAgentWorkflowBundle().catch((error: unknown) => {
    bundling = undefined;
    throw error;
  });
  return bundling;
}

/**
 * Workflow interceptors bundled with the workflows: Temporal's OpenTelemetry interceptors (outermost),
 * our `invoke_agent` spans, and activity summaries for the Temporal UI.
 */
export const WORKFLOW_INTERCEPTOR_MODULES = [
  createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
  fileURLToPath(
    new URL(`./telemetry/workflow-interceptors${extname(fileURLToPath(import.meta.url))}`, import.meta.url),
  ),
  fileURLToPath(
    new URL(`./visibility/workflow-interceptors${extname(fileURLToPath(import.meta.url))}`, import.meta.url),
  ),
];

export async function buildAgentWorkflowBundle(): Promise<{ code: string }> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
    failureConverterPath: FAILURE_CONVERTER_PATH,
    logger: new DefaultLogger('WARN'),
  });
  return { code };
}
