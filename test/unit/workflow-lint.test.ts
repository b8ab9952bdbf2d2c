import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: new URL('../..', import.meta.url).pathname });

async function lintAsWorkflow(code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: 'src/workflows/agent-run.ts' });
  return result!.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

// Type-aware lint builds a TypeScript program on first use: seconds on a loaded 2-core machine.
describe('the workflow sandbox lint', { timeout: 60_000 }, () => {
  // First: the probes below lint text under real file names, and the type checker then keeps that
  // text for those files (the real files' exports would look unresolved to their importers).
  it('passes on the workflow files as they are', async () => {
    const results = await eslint.lintFiles(['src/workflows/**/*.ts', 'src/subagents/workflow-*.ts']);
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
});
