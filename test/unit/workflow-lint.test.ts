import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { workflowFiles } from '../../scripts/workflow-files.ts';

const root = new URL('../..', import.meta.url).pathname;
// The project's config without its type-aware part: the sandbox rules below read imports and
// globals, not types, and a TypeScript program costs seconds. That the workflow files as they are
// pass the whole config is `npm run lint`'s to prove; what only this file proves is that the lint
// refuses what the sandbox must not contain, in every file the workflows reach.
const eslint = new ESLint({ cwd: root, overrideConfig: tseslint.configs.disableTypeChecked });

async function lintAs(filePath: string, lines: string[]): Promise<string[]> {
  const [result] = await eslint.lintText(lines.join('\n') + '\n', { filePath });
  return result!.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

const READS_A_FILE = ["import { readFileSync } from 'node:fs';", 'export const r = readFileSync;'];

describe('the workflow sandbox lint', () => {
  it('refuses Node built-ins, I/O packages and activity code in workflow files', async () => {
    const messages = await lintAs('src/workflows/agent-run.ts', [
      "import { readFileSync } from 'node:fs';",
      "import { request } from 'undici';",
      "import { randomUUID } from 'crypto';",
      "import { invokeTool } from '../activities/invoke-tool.ts';",
      'export const used = [readFileSync, request, randomUUID, invokeTool];',
    ]);
    expect(messages.filter((m) => m.includes('no-restricted-imports'))).toHaveLength(4);
  });

  it('refuses process, fetch and require in workflow files', async () => {
    const messages = await lintAs('src/workflows/agent-run.ts', [
      'export const used = [process.env, fetch, require];',
    ]);
    expect(messages.filter((m) => m.startsWith('no-restricted-globals'))).toEqual([
      "no-restricted-globals: Unexpected use of 'process'. No process access in workflows.",
      "no-restricted-globals: Unexpected use of 'fetch'. No network in workflows: call an activity.",
      "no-restricted-globals: Unexpected use of 'require'. No dynamic loading in workflows.",
    ]);
  });

  it('allows type-only imports of activity types and the workflow API', async () => {
    const messages = await lintAs('src/workflows/agent-run.ts', [
      "import { proxyActivities } from '@temporalio/workflow';",
      "import type { AgentActivities } from '../activities/index.ts';",
      "export const a = proxyActivities<AgentActivities>({ startToCloseTimeout: '1 minute' });",
    ]);
    expect(messages.filter((m) => m.includes('no-restricted'))).toEqual([]);
  });

  it('leaves files outside the sandbox free to do I/O', async () => {
    expect(workflowFiles(root)).not.toContain('src/activities/invoke-tool.ts');
    const messages = await lintAs('src/activities/invoke-tool.ts', READS_A_FILE);
    expect(messages.filter((m) => m.includes('no-restricted'))).toEqual([]);
  });

  it('covers every file the workflows reach by imports, whatever its name', async () => {
    const files = workflowFiles(root);
    for (const reached of [
      'src/subagents/workflow-child.ts',
      'src/usage/run-line.ts',
      'src/output/structured-answer.ts',
      'src/fast-tools/workflow-fast-call.ts',
    ])
      expect(files).toContain(reached);
    // Reached only through `import type`: erased from the bundle, so outside the sandbox.
    expect(files).not.toContain('src/activities/index.ts');
    const refused: string[] = [];
    for (const file of files) {
      const messages = await lintAs(file, READS_A_FILE);
      if (messages.some((m) => m.startsWith('@typescript-eslint/no-restricted-imports'))) refused.push(file);
    }
    expect(refused).toEqual(files);
  });
});
