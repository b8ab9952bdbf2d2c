import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../../src/common/messages.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { SkillCatalog } from '../../src/skills/catalog.ts';
import { FileSkillRegistry } from '../../src/skills/registry.ts';
import { builtinTools } from '../../src/tools/builtins/index.ts';
import { AddTool } from './tools.ts';
import { collect, startTestWorker, type TestWorker } from './helpers.ts';

const toolNames = (llm: ScriptedModel, step: number) => llm.calls[step]!.tools.map((t) => t.function.name);
const lastMessage = (llm: ScriptedModel, step: number): Message => llm.calls[step]!.messages.at(-1)!;

describe('skills the model loads (load_skill, read_skill_file) on the real server', () => {
  let dir: string;
  let project: string;
  let registry: FileSkillRegistry;

  const write = async (path: string, text: string) => {
    await mkdir(dirname(join(project, path)), { recursive: true });
    await writeFile(join(project, path), text);
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skill-activation-'));
    project = join(dir, 'project');
    await write(
      '.claude/skills/pdf-forms/SKILL.md',
      '---\nname: pdf-forms\ndescription: Fills in PDF forms from structured data.\nallowed-tools: Read Bash(python3:*)\n' +
        'triggers: [fill the form]\n---\n# PDF forms\n\nPDF-FORMS-BODY: read references/fields.md first.\n',
    );
    await write('.claude/skills/pdf-forms/references/fields.md', 'FIELDS-REFERENCE-CONTENT\n');
    await write('.claude/skills/pdf-forms/scripts/fill.py', 'print("filled")\n');
    await write(
      '.claude/skills/secret-notes/SKILL.md',
      '---\nname: secret-notes\ndescription: Not for pdf-forms to read.\n---\nSECRET-NOTES\n',
    );
    await write(
      '.github/skills/release-notes/SKILL.md',
      '---\nname: release-notes\ndescription: Drafts release notes.\n---\nRELEASE\n',
    );
    const catalog = new SkillCatalog(join(dir, 'skills.json'));
    await catalog.create({
      name: 'Catalog Only',
      description: 'A skill from the JSON catalog',
      prompt_template: 'CATALOG-ONLY-PROMPT',
    });
    registry = new FileSkillRegistry(catalog.path);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function withAgent(
    llm: ScriptedModel,
    extra: Record<string, unknown>,
    work: (w: TestWorker) => Promise<void>,
  ) {
    const worker = await startTestWorker({
      agent: {
        llm,
        tools: [new AddTool()],
        skillRegistry: registry,
        projectRoot: project,
        builtinTools: builtinTools({ projectRoot: project }),
        ...extra,
      },
    });
    try {
      await work(worker);
    } finally {
      await worker.stop();
    }
  }

  it('lists the skills, and a loaded skill brings its body, its files and its tools; paths out of its folder are refused', async () => {
    const llm = new ScriptedModel([
      { toolCalls: [{ name: 'load_skill', args: { id: 'pdf-forms' }, id: 'load' }] },
      {
        toolCalls: [
          { name: 'read_skill_file', args: { skill: 'pdf-forms', path: 'references/fields.md' }, id: 'read' },
        ],
      },
      {
        toolCalls: [
          {
            name: 'read_skill_file',
            args: { skill: 'pdf-forms', path: '../secret-notes/SKILL.md' },
            id: 'up',
          },
          {
            name: 'read_skill_file',
            args: { skill: 'pdf-forms', path: join(project, '.claude/skills/secret-notes/SKILL.md') },
            id: 'abs',
          },
        ],
      },
      { text: 'Filled.' },
    ]);
    await withAgent(llm, {}, async (worker) => {
      const handle = await worker.agents.start('agent', 'Please help with a PDF');
      const events = await collect(handle.events());
      const result = await handle.result();

      // Step 1: the listing (all three roots' skills and the catalog's) and the two loading tools.
      const system = llm.calls[0]!.messages[0]!;
      expect(system.role).toBe('system');
      for (const id of ['pdf-forms', 'secret-notes', 'release-notes', 'catalog-only'])
        expect(system.content).toContain(`- ${id}`);
      expect(system.content).not.toContain('PDF-FORMS-BODY');
      expect(toolNames(llm, 0)).toEqual(['add', 'load_skill', 'read_skill_file']);

      // Step 2: the body and the file list reached the model; the skill's tools are given from now on.
      const loaded = lastMessage(llm, 1);
      expect(loaded).toMatchObject({ role: 'tool', toolName: 'load_skill' });
      expect(loaded.content).toContain('PDF-FORMS-BODY');
      expect(loaded.content).toMatch(/- references\/fields\.md \(\d+ bytes\)/);
      expect(loaded.content).toMatch(/- scripts\/fill\.py \(\d+ bytes, script\)/);
      expect(loaded.content).toContain('Scripts run only through the bash or run_code tool');
      expect(toolNames(llm, 1)).toEqual(['add', 'load_skill', 'read_skill_file', 'read_file', 'bash']);

      // Step 3: the file's content reached the model.
      expect(lastMessage(llm, 2)).toMatchObject({ role: 'tool', content: 'FIELDS-REFERENCE-CONTENT\n' });

      // Step 4: both escapes were refused, and nothing of the other skill leaked.
      const refusals = llm.calls[3]!.messages.slice(-2);
      for (const refusal of refusals) {
        expect(refusal).toMatchObject({ role: 'tool', isError: true });
        expect(refusal.content).toMatch(/outside the folder of the skill "pdf-forms"/);
        expect(refusal.content).not.toContain('SECRET-NOTES');
      }
      expect(events.filter((e) => e.type === 'tool_failed')).toHaveLength(2);

      expect(result.output).toBe('Filled.');
      expect(result.metadata.used_skills).toEqual(['pdf-forms']);
      expect(result.metadata.used_skill_tools).toEqual(['read_file', 'bash']);
      expect(events.at(-1)!.payload.used_skills).toEqual(['pdf-forms']);
      llm.assertAllStepsUsed();
    });
  });

  it('answers an unknown id with the closest skills, and loads a catalog skill (no files) by id', async () => {
    const llm = new ScriptedModel([
      { toolCalls: [{ name: 'load_skill', args: { id: 'release' }, id: 'guess' }] },
      { toolCalls: [{ name: 'load_skill', args: { id: 'catalog-only' }, id: 'load' }] },
      { text: 'ok' },
    ]);
    await withAgent(llm, { skillActivation: 'model' }, async (worker) => {
      const result = await worker.agents.run('agent', 'Write something');
      expect(lastMessage(llm, 1).content).toMatch(
        /There is no skill "release". The closest skills:\n- release-notes/,
      );
      expect(lastMessage(llm, 2).content).toContain('CATALOG-ONLY-PROMPT');
      expect(lastMessage(llm, 2).content).toContain('Files: none');
      expect(result.metadata.used_skills).toEqual(['catalog-only']);
    });
  });

  it("with 'model', trigger phrases do not fire; with 'triggers', nothing is listed", async () => {
    const model = new ScriptedModel([{ text: 'ok' }]);
    await withAgent(model, { skillActivation: 'model', autoUseSkills: true }, async (worker) => {
      const result = await worker.agents.run('agent', 'fill the form please');
      expect(result.metadata.used_skills).toEqual([]);
      expect(model.calls[0]!.messages[0]!.content).toContain('- pdf-forms');
    });
    const triggers = new ScriptedModel([{ text: 'ok' }]);
    await withAgent(triggers, { skillActivation: 'triggers', autoUseSkills: true }, async (worker) => {
      const result = await worker.agents.run('agent', 'fill the form please');
      expect(result.metadata.used_skills).toEqual(['pdf-forms']);
      expect(triggers.calls[0]!.messages[0]!.content).not.toContain('Skills you can load');
      expect(toolNames(triggers, 0)).toEqual(['add', 'read_file', 'bash']);
    });
  });

  it('lists nothing for an agent with only the packaged catalog, unless skillActivation is set', async () => {
    const plain = new ScriptedModel([{ text: 'ok' }]);
    await withAgent(plain, { skillRegistry: undefined, autoProjectSkills: false }, async (worker) => {
      await worker.agents.run('agent', 'hello');
      expect(plain.calls[0]!.messages[0]).toEqual({ role: 'user', content: 'hello' });
      expect(toolNames(plain, 0)).toEqual(['add']);
    });
    const chosen = new ScriptedModel([{ text: 'ok' }]);
    await withAgent(
      chosen,
      {
        skillRegistry: undefined,
        autoProjectSkills: false,
        skillActivation: 'both',
        skillListingChars: 1_000,
      },
      async (worker) => {
        await worker.agents.run('agent', 'review my code');
        const system = chosen.calls[0]!.messages[0]!.content;
        expect(system.length).toBeLessThanOrEqual(1_000);
        expect(system).toMatch(/- code-reviewer/);
        expect(system).toMatch(/more skills are not listed/);
      },
    );
  });
});
