import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { validateToolBundles } from '../../src/skills/tool-bundles.ts';
import { builtinTools } from '../../src/tools/builtins/index.ts';
import { collect, startTestWorker, type TestWorker } from './helpers.ts';

describe('built-in tools attached by a skill in a real run', () => {
  let root: string;
  let env: TestWorker;
  const llm = new ScriptedModel([
    { toolCalls: [{ name: 'read_file', args: { path: 'notes.txt' }, id: 'read_1' }] },
    { text: 'The notes say hello.' },
  ]);
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'builtin-run-'));
    await writeFile(join(root, 'notes.txt'), 'hello from the project\n');
    env = await startTestWorker({
      scraper: { llm, builtinTools: builtinTools({ projectRoot: root }), autoProjectSkills: false },
    });
  });
  afterAll(async () => {
    await env?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('gives the model the bundle tools, runs read_file, and reports none unavailable', async () => {
    const handle = await env.agents.start('scraper', 'Read my notes', { skills: ['web-scraper-pro'] });
    const events = await collect(handle.events());
    const result = await handle.result();
    const available = [
      'web_search',
      'open_url',
      'playwright_browse',
      'bash',
      'read_file',
      'edit_file',
      'write_file',
      'glob_files',
      'grep_files',
    ];
    expect(llm.calls[0]!.tools.map((t) => t.function.name)).toEqual(available);
    expect(events.find((e) => e.type === 'tool_completed')?.payload.output).toBe(
      '1| hello from the project\n2| ',
    );
    expect(result.metadata.used_skill_tools).toEqual(available);
    expect(result.metadata.unavailable_skill_tools).toEqual([]);
    expect(result.metadata.used_skills).toEqual(['web-scraper-pro']);
  });

  it('lets verify_output ask the run model for a judgement', async () => {
    const judge = new ScriptedModel([
      {
        toolCalls: [
          {
            name: 'verify_output',
            args: { text: 'All 12 tests passed', criteria: 'Every test passed' },
            id: 'v1',
          },
        ],
      },
      { text: 'PASS' },
      { text: 'Verified.' },
    ]);
    const judged = await startTestWorker({
      judge: { llm: judge, builtinTools: builtinTools({ projectRoot: root }), autoProjectSkills: false },
    });
    try {
      const handle = await judged.agents.start('judge', 'Check the test report', {
        skills: ['security-engineer'],
      });
      const events = await collect(handle.events());
      expect(events.find((e) => e.type === 'tool_completed')?.payload.output).toBe(
        'PASS\nmodel judgement: PASS',
      );
      expect(judge.calls[1]!.tools).toEqual([]);
      expect(judge.calls[1]!.messages[0]!.content).toMatch(
        /Task:\nEvery test passed\n\nAnswer:\nAll 12 tests passed/,
      );
      expect((await handle.result()).output).toBe('Verified.');
    } finally {
      await judged.stop();
    }
  });

  it('completes every skill bundle: validateToolBundles finds nothing missing', () => {
    const names = builtinTools().map((tool) => tool.name);
    expect(names).toHaveLength(13);
    expect(validateToolBundles(new Set(names))).toEqual([]);
  });
});
