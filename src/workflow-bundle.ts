import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  DefaultLogger,
  bundleWorkflowCode,
  type BundleOptions,
  type WorkflowBundleOption,
} from '@temporalio/worker';
import { ENCODED_FAILURES_MARK } from './codec/failure-converter.ts';

/** The workflows module next to this file: `.ts` when running from source, `.js` from `dist/`. */
export const WORKFLOWS_PATH = fileURLToPath(
  new URL(`./workflows/index${extname(fileURLToPath(import.meta.url))}`, import.meta.url),
);
/** The module exporting the failure converter of encrypted workers (message and stack encoded). */
export const FAILURE_CONVERTER_PATH = fileURLToPath(
  new URL(`./codec/failure-converter${extname(fileURLToPath(import.meta.url))}`, import.meta.url),
);
/** Written by `npm run build`, so a worker started from `dist/` skips webpack. */
export const PREBUILT_BUNDLE_PATH = fileURLToPath(new URL('./workflow-bundle.cjs', import.meta.url));
/** The same workflows without the tracing interceptors, for workers with telemetry off (`npm run build`). */
export const PREBUILT_UNTRACED_BUNDLE_PATH = fileURLToPath(
  new URL('./workflow-bundle-untraced.cjs', import.meta.url),
);

/** Where `npm run build` writes the bundle of these options (the four of `prebuiltBundleOptions`). */
export function prebuiltBundlePath(options: Required<AgentWorkflowBundleOptions>): string {
  const base = options.tracing ? PREBUILT_BUNDLE_PATH : PREBUILT_UNTRACED_BUNDLE_PATH;
  return options.encodeFailures ? base.replace(/\.cjs$/, '-encoded.cjs') : base;
}

/** Every combination of options `npm run build` prebuilds a bundle for. */
export const PREBUILT_BUNDLE_OPTIONS: ReadonlyArray<Required<AgentWorkflowBundleOptions>> = [
  true,
  false,
].flatMap((tracing) => [false, true].map((encodeFailures) => ({ tracing, encodeFailures })));

/** What a bundle holds besides the workflows. */
export interface AgentWorkflowBundleOptions {
  /**
   * Trace runs inside the workflows (Temporal's OpenTelemetry workflow interceptors and the
   * `invoke_agent` spans). Default true. Without, a workflow task costs less CPU (a quarter of the
   * sandbox's time in `npm run bench`): what `createAgentWorker` runs when telemetry is off. Either
   * bundle replays the other's histories (tracing adds headers and spans, no commands).
   */
  tracing?: boolean;
  /**
   * Encode a failure's message and stack trace into a payload (Temporal's `encodeCommonAttributes`), so
   * the payload codec encrypts them. Default false: the bundle of workers without encryption, whose
   * failed runs say why to `temporal workflow describe` and the UI. `createAgentWorker` picks it by its
   * `encryption`, and refuses a prebuilt bundle without it when encryption is configured.
   */
  encodeFailures?: boolean;
}

const bundling = new Map<string, Promise<WorkflowBundleOption>>();

/**
 * The agent workflows as a bundle for `Worker.create`: the prebuilt one when present, else bundled
 * once per process (webpack takes a few seconds; every worker of the process shares the result).
 */
export function agentWorkflowBundle(options: AgentWorkflowBundleOptions = {}): Promise<WorkflowBundleOption> {
  const resolved = { tracing: options.tracing ?? true, encodeFailures: options.encodeFailures ?? false };
  const prebuilt = prebuiltBundlePath(resolved);
  if (existsSync(prebuilt)) return Promise.resolve({ codePath: prebuilt });
  const key = JSON.stringify(resolved);
  let building = bundling.get(key);
  if (!building) {
    building = buildAgentWorkflowBundle(resolved).catch((error: unknown) => {
      bundling.delete(key);
      throw error;
    });
    bundling.set(key, building);
  }
  return building;
}

/**
 * Whether a bundle encodes failure text (built with `encodeFailures`): the mark of the encoding
 * failure converter is in its code.
 */
export async function bundleEncodesFailures(bundle: WorkflowBundleOption): Promise<boolean> {
  const code = 'code' in bundle ? bundle.code : await readFile(bundle.codePath, 'utf8');
  return code.includes(ENCODED_FAILURES_MARK);
}

/** Temporal's OpenTelemetry interceptors (outermost) and our `invoke_agent` spans. */
const TRACING_INTERCEPTOR_MODULES = [
  createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
  fileURLToPath(
    new URL(`./telemetry/workflow-interceptors${extname(fileURLToPath(import.meta.url))}`, import.meta.url),
  ),
];

/** Activity summaries for the Temporal UI. */
export const VISIBILITY_INTERCEPTOR_MODULES = [
  fileURLToPath(
    new URL(`./visibility/workflow-interceptors${extname(fileURLToPath(import.meta.url))}`, import.meta.url),
  ),
];

/**
 * Workflow interceptors bundled with the workflows: Temporal's OpenTelemetry interceptors (outermost),
 * our `invoke_agent` spans, and activity summaries for the Temporal UI.
 */
export const WORKFLOW_INTERCEPTOR_MODULES = [
  ...TRACING_INTERCEPTOR_MODULES,
  ...VISIBILITY_INTERCEPTOR_MODULES,
];

/**
 * Evaluated once per worker thread and shared by every workflow it runs (Temporal's `preloadModules`),
 * rather than evaluated anew for each workflow: about 1 ms less of each run's first workflow task in
 * `npm run bench`. Safe because these modules keep no state of their own at module level (checked by
 * test/integration/workflow-bundle.test.ts); Temporal freezes their exports. Temporal's tracing
 * interceptors are not ours to vouch for, and stay per workflow.
 */
const SHARED_MODULES = [WORKFLOWS_PATH, ...VISIBILITY_INTERCEPTOR_MODULES];

/**
 * Bundles the agent workflows with webpack (Temporal's `bundleWorkflowCode`), for a worker's
 * `workflowBundle`: traced by default, failure text encoded when `encodeFailures` (for encrypted workers).
 */
export async function buildAgentWorkflowBundle(
  options: AgentWorkflowBundleOptions = {},
): Promise<{ code: string }> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules:
      (options.tracing ?? true) ? WORKFLOW_INTERCEPTOR_MODULES : VISIBILITY_INTERCEPTOR_MODULES,
    ...(options.encodeFailures ? { failureConverterPath: FAILURE_CONVERTER_PATH } : {}),
    preloadModules: SHARED_MODULES,
    logger: new DefaultLogger('WARN'),
    webpackConfigHook: compileTypeScriptFor(SOURCE_TARGET),
  });
  return { code };
}

type WebpackConfig = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];

/**
 * What workflows bundled from TypeScript sources (run from src/, as the tests and the bench are, or
 * with a TypeScript loader) are compiled for: what Node 22 runs natively, as `npm run build` compiles
 * dist/ (ES2023). Temporal's bundler compiles for ES2017, which turns each class private field into a
 * WeakMap look-up and each object spread into a helper call: about 1 ms more of the workflow thread
 * per run in `npm run bench`. (Compiled `.js`, what a worker from dist/ bundles, is not recompiled.)
 */
const SOURCE_TARGET = 'es2022';

/** Sets the `jsc.target` of the bundler's swc-loader (its rule for `.ts` files). */
function compileTypeScriptFor(target: string): (config: WebpackConfig) => WebpackConfig {
  return (config) => {
    for (const rule of config.module?.rules ?? []) {
      if (!rule || typeof rule !== 'object' || !rule.use || typeof rule.use !== 'object') continue;
      if (Array.isArray(rule.use) || typeof rule.use.loader !== 'string') continue;
      const options = rule.use.options;
      if (!rule.use.loader.includes('swc-loader') || typeof options !== 'object' || !options) continue;
      const jsc = (options as { jsc?: Record<string, unknown> }).jsc;
      if (jsc) jsc.target = target;
    }
    return config;
  };
}
