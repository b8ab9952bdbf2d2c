/**
 * Part of `npm run build`: bundles the compiled workflows once, so a worker started from `dist/`
 * loads `dist/workflow-bundle.cjs` instead of running webpack at start-up.
 */
import { writeFile } from 'node:fs/promises';

// dist/ exists only after tsc has run; this script runs right after it.
const compiled = (await import(new URL('../dist/workflow-bundle.js', import.meta.url).href)) as {
  buildAgentWorkflowBundle: () => Promise<{ code: string }>;
  PREBUILT_BUNDLE_PATH: string;
};
const { code } = await compiled.buildAgentWorkflowBundle();
await writeFile(compiled.PREBUILT_BUNDLE_PATH, code);
console.log(`Wrote ${compiled.PREBUILT_BUNDLE_PATH} (${Math.round(code.length / 1024)} KiB)`);
