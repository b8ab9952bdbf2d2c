/**
 * The files of the workflow sandbox: every file of src/ that the workflow entry point reaches
 * through imports that stay in the compiled code. `import type` and `export type` are erased, so
 * they do not count; any other import (even `import { type A }`, which keeps the module loaded)
 * does. eslint.config.js applies the workflow determinism rules to exactly these files, so a file
 * joins the sandbox by being imported, whatever its name.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** What the worker bundles into the workflow sandbox (src/workflow-bundle.ts): the workflows and our interceptors. */
export const WORKFLOW_ENTRY_POINTS = [
  'src/workflows/index.ts',
  'src/telemetry/workflow-interceptors.ts',
  'src/visibility/workflow-interceptors.ts',
];

/** `import … from '…'`, `export … from '…'` and `import '…'`, with whether the statement is type-only. */
const IMPORTS = /^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm;

/** The files reachable from `entryPoints` (paths relative to `root`), sorted. */
export function workflowFiles(
  root: string,
  entryPoints: readonly string[] = WORKFLOW_ENTRY_POINTS,
): string[] {
  const seen = new Set<string>();
  const queue = entryPoints.map((file) => join(root, file));
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const [, , typeOnly, specifier] of readFileSync(file, 'utf8').matchAll(IMPORTS)) {
      if (typeOnly || !specifier?.startsWith('.')) continue;
      const target = join(dirname(file), specifier);
      if (!existsSync(target))
        throw new Error(`${relative(root, file)} imports ${specifier}, which is not there`);
      queue.push(target);
    }
  }
  return [...seen].map((file) => relative(root, file)).sort();
}
