/**
 * Part of `npm run build`: bundles the compiled workflows once, so a worker started from `dist/`
 * loads `dist/workflow-bundle.cjs` (or `workflow-bundle-untraced.cjs`, telemetry off, and either
 * with `-encoded`, encryption on) instead of running webpack at start-up.
 */
import { writeFile } from 'node:fs/promises';

// dist/ exists only after tsc has run; this script runs right after it.
type Options = { tracing: boolean; encodeFailures: boolean };
const compiled = (await import(new URL('../dist/workflow-bundle.js', import.meta.url).href)) as {
  buildAgentWorkflowBundle: (options?: Options) => Promise<{ code: string }>;
  prebuiltBundlePath: (options: Options) => string;
  PREBUILT_BUNDLE_OPTIONS: Options[];
};
for (const options of compiled.PREBUILT_BUNDLE_OPTIONS) {
  const { code } = await compiled.buildAgentWorkflowBundle(options);
  const path = compiled.prebuiltBundlePath(options);
  await writeFile(path, code);
  console.log(`Wrote ${path} (${Math.round(code.length / 1024)} KiB)`);
}
