import { readFile } from 'node:fs/promises';
import { describe, expect, inject, it } from 'vitest';

/**
 * The workflows bundled from TypeScript sources (what the tests run, built by the global setup with
 * `buildAgentWorkflowBundle`) keep the syntax Node runs natively, as dist/ does: no WeakMap helper
 * per class private field, no helper call per object spread (Temporal's bundler compiles for ES2017).
 */
describe('the workflow bundle built from sources', () => {
  it('keeps private fields and object spread native', async () => {
    const code = await readFile(inject('workflowBundlePath'), 'utf8');
    expect(code).toContain('this.#finished');
    expect(code).not.toMatch(/function _class_private_field_get\b/);
    expect(code).not.toMatch(/function _object_spread\b/);
  });
});
