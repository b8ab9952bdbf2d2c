/**
 * Part of `npm run build`: bundles the compiled workflows once, so a worker started from `dist/`
 * loads `dist/workflow-bundle.cjs` (or `workflow-bundle-untraced.cjs`, telemetry off) instead of
 * running webpack at start-up.
 */
import { writeFile } from 'node:fs/promises';

// dist/ exists only after tsc has run; this script runs right after it.
const compiled = (await import(new URL('../dist/workflow-bundle.js', import.meta.url).href)) as {
  buildAgentWorkflowBundle: (options?: { tracing?: boolean }) => Promise<{ code: string }>;
  PREBUILT_BUNDLE_PATH: string;
  PREBUILT_UNTRACED_BUNDLE_PATH: string;
};
// With tracing, and without it (for workers with telemetry off).
for (const [tracing, path] of [
  [true, compiled.PREBUILT_BUNDLE_PATH],
  [false, compiled.PREBUILT_UNTRACED_BUNDLE_PATH],
] as const) {
  const { code } = await compiled.buildAgentWorkflowBundle({ tracing });
  await writeFile(path, code);
  console.log(`Wrote ${path} (${Math.round(code.length / 1024)} KiB)`);
}
