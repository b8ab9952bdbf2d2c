import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { workflowFiles } from '../../scripts/workflow-files.ts';

const root = new URL('../..', import.meta.url).pathname;
const eslint = new ESLint({ cwd: root });

async function lintAsWorkflow(code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: 'src/workflows/agent-run.ts' });
  return result!.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

// Type-aware lint builds a TypeScript program on first use: seconds on a loaded 2-core machine.
describe('the workflow sandbox lint', { timeout: 60_000 }, () => {
  // First: the probes below lint text under real file names, and the type checker then keeps that
  // text for those files (the real files' exports would look unresolved to their importers).
  it('passes on the workflow files as they are', async () => {
    const results = await eslint.lintFiles(workflowFiles(root));
    expect(results.length).toBeGreaterThan(0);
    expect(results.flatMap((r) => r.messages)).toEqual([]);
  });

  it('refuses Node built-ins, I/O packages and activity code in workflow files', async () => {
    const messages = await lintAsWorkflow(
      [
        "import { readFileSync } from 'node:fs';",
        "import { request } from 'undici';",
        "import { randomUUID } from 'crypto';",
        "import { invokeTool } from '../activities/invoke-tool.ts';",
        'export const used = [readFileSync, request, randomUUID, invokeTool];',
      ].join('\n'),
    );
    expect(messages.filter((m) => m.includes('no-restricted-imports'))).toHaveLength(4);
  });

  it('allows type-only imports of activity types and the workflow API', async () => {
    const messages = await lintAsWorkflow(
      [
        "import { proxyActivities } from '@temporalio/workflow';",
        "import type { AgentActivities } from '../activities/index.ts';",
        "export const a = proxyActivities<AgentActivities>({ startToCloseTimeout: '1 minute' });",
      ].join('\n'),
    );
    expect(messages.filter((m) => m.includes('no-restricted'))).toEqual([]);
  });

  it("covers the sub-agents' workflow code too", async () => {
    const [result] = await eslint.lintText(
      "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n",
      {
        filePath: 'src/subagents/workflow-child.ts',
      },
    );
    expect(result!.messages.map((m) => m.ruleId)).toContain('@typescript-eslint/no-restricted-imports');
  });

  it('covers every file the workflows reach by imports, whatever its name', async () => {
    const files = workflowFiles(root);
    for (const reached of [
      'src/usage/run-line.ts',
      'src/output/structured-answer.ts',
      'src/fast-tools/workflow-fast-call.ts',
    ])
      expect(files).toContain(reached);
    // Reached only through `import type`: erased from the bundle, so outside the sandbox.
    expect(files).not.toContain('src/activities/index.ts');
    const [result] = await eslint.lintText(
      "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n",
      { filePath: 'src/usage/run-line.ts' },
    );
    expect(result!.messages.map((m) => m.ruleId)).toContain('@typescript-eslint/no-restricted-imports');
  });
});
