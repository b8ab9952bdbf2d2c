import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { SkillCatalog } from '../../src/skills/catalog.ts';
import { FileSkillRegistry } from '../../src/skills/registry.ts';
import { BaseConnectorTool, type ToolOutput } from '../../src/tools/connector-base.ts';
import { AddTool } from './tools.ts';
import { collect, startTestWorker, type TestWorker } from './helpers.ts';

/** Stands in for a built-in tool (the real ones arrive with the built-in tools work). */
class FakeBuiltin extends BaseConnectorTool {
  readonly parameters = z.object({ input: z.string() });
  readonly name: string;
  readonly description: string;
  constructor(name: string) {
    super();
    this.name = name;
    this.description = `The ${name} built-in`;
  }
  async run(_context: unknown, args: Record<string, unknown>): Promise<ToolOutput> {
    return { text: `${this.name} ran with ${String(args.input)}`, metadata: {} };
  }
}

const looping = (steps: number) =>
  new ScriptedModel(
    Array.from({ length: steps }, (_, i) => ({
      text: `step ${i + 1}`,
      toolCalls: [{ name: 'add', args: { a: i, b: 1 } }],
    })),
  );

describe('skills in runs on the real server', () => {
  let dir: string;
  let env: TestWorker;
  const models: Record<string, ScriptedModel> = {};

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skills-run-'));
    const catalog = new SkillCatalog(join(dir, 'skills.json'));
    await catalog.create({
      name: 'SQL Helper',
      description: 'Tunes SQL',
      trigger_phrases: ['slow query', 'query plan'],
      prompt_template: 'SQL-HELPER-PROMPT',
    });
    await catalog.create({
      name: 'Release Writer',
      description: 'Writes release notes',
      trigger_phrases: ['release notes'],
      prompt_template: 'RELEASE-WRITER-PROMPT',
    });
    await catalog.create({
      name: 'Security Engineer',
      description: 'Finds vulnerabilities',
      trigger_phrases: ['threat model'],
    });
    await catalog.create({ name: 'Cache Expert', description: 'Caching', trigger_phrases: ['cache'] });
    await mkdir(join(dir, 'project/.agents/skills/house-style'), { recursive: true });
    await writeFile(
      join(dir, 'project/.agents/skills/house-style/SKILL.md'),
      '---\nname: house-style\ndescription: Our house style\ntriggers: [house style]\n---\nPROJECT-HOUSE-STYLE-PROMPT\n',
    );
    const skillRegistry = new FileSkillRegistry(catalog.path);
    // These agents test trigger selection; model-driven activation has its own test file.
    const common = {
      skillRegistry,
      tools: [new AddTool()],
      autoProjectSkills: false,
      skillActivation: 'triggers' as const,
    };
    const agent = (name: string, llm: ScriptedModel, extra: Record<string, unknown> = {}) => {
      models[name] = llm;
      return { ...common, llm, ...extra };
    };
    env = await startTestWorker({
      auto: agent('auto', new ScriptedModel([{ text: 'done' }]), {
        autoUseSkills: true,
        systemPrompt: 'BASE-PROMPT',
      }),
      manual: agent('manual', new ScriptedModel([{ text: 'done' }])),
      limited: agent('limited', new ScriptedModel([{ text: 'done' }, { text: 'done' }]), {
        autoUseSkills: true,
        skillMatchLimit: 1,
      }),
      boosted: agent('boosted', looping(8), { defaultSkillIds: ['release-writer'] }),
      explicit: agent('explicit', looping(4), { defaultSkillIds: ['release-writer'], maxIterations: 4 }),
      plain: agent('plain', looping(4)),
      tooling: agent(
        'tooling',
        new ScriptedModel([
          { toolCalls: [{ name: 'grep_files', args: { input: 'TODO' }, id: 'g1' }] },
          { text: 'found' },
        ]),
        { builtinTools: ['bash', 'grep_files', 'read_file'].map((n) => new FakeBuiltin(n)) },
      ),
      project: agent('project', new ScriptedModel([{ text: 'done' }, { text: 'done' }]), {
        autoUseSkills: true,
        autoProjectSkills: true,
        projectRoot: join(dir, 'project'),
      }),
      noProject: agent('noProject', new ScriptedModel([{ text: 'done' }]), {
        autoUseSkills: true,
        projectRoot: join(dir, 'project'),
      }),
    });
  });
  afterAll(async () => {
    await env?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('uses fixed skills and trigger-matched ones, and puts their prompts in the system prompt', async () => {
    const result = await env.agents.run('auto', 'Why is this slow query slow? Then draft release notes.', {
      skills: ['cache-expert'],
    });
    // Fixed first; then matches by specificity: two-word phrases, the longer one first.
    expect(result.metadata.used_skills).toEqual(['cache-expert', 'release-writer', 'sql-helper']);
    const system = models.auto!.calls[0]!.messages[0]!;
    expect(system.role).toBe('system');
    expect(system.content).toMatch(
      /^BASE-PROMPT\n\n## Skill: Cache Expert[\s\S]*RELEASE-WRITER-PROMPT[\s\S]*SQL-HELPER-PROMPT$/,
    );
  });

  it('matches nothing when autoUseSkills is off', async () => {
    const result = await env.agents.run('manual', 'Why is this slow query slow?');
    expect(result.metadata.used_skills).toEqual([]);
    expect(models.manual!.calls[0]!.messages[0]).toEqual({
      role: 'user',
      content: 'Why is this slow query slow?',
    });
  });

  it('adds at most skillMatchLimit matched skills, the most specific first', async () => {
    const result = await env.agents.run(
      'limited',
      'the cache makes a slow query, and we need a threat model',
    );
    expect(result.metadata.used_skills).toEqual(['security-engineer']);
  });

  it('raises the default limit to 8 when a skill is active, and keeps an explicit one', async () => {
    const boosted = await env.agents.run('boosted', 'loop');
    expect(boosted.metadata).toMatchObject({
      iterations: 8,
      stop_reason: 'max_iterations',
      used_skills: ['release-writer'],
    });
    const explicit = await env.agents.run('explicit', 'loop');
    expect(explicit.metadata).toMatchObject({
      iterations: 4,
      stop_reason: 'max_iterations',
      used_skills: ['release-writer'],
    });
    const plain = await env.agents.run('plain', 'loop');
    expect(plain.metadata).toMatchObject({ iterations: 4, used_skills: [] });
  });

  it('attaches the built-in tools of a selected skill for that run only, and reports the missing ones', async () => {
    const withSkill = await env.agents.run('tooling', 'scan for TODOs', { skills: ['security-engineer'] });
    expect(withSkill.metadata.used_skill_tools).toEqual(['bash', 'grep_files', 'read_file']);
    expect(withSkill.metadata.unavailable_skill_tools).toEqual(['web_search', 'run_code', 'verify_output']);
    expect(models.tooling!.calls[0]!.tools.map((t) => t.function.name)).toEqual([
      'add',
      'bash',
      'grep_files',
      'read_file',
    ]);
    expect(models.tooling!.calls[1]!.messages.at(-1)).toMatchObject({
      toolCallId: 'g1',
      content: 'grep_files ran with TODO',
    });
  });

  it('does not offer or run built-in tools in a run whose skills did not attach them', async () => {
    const llm = new ScriptedModel([
      { toolCalls: [{ name: 'bash', args: { input: 'rm -rf /' }, id: 'b1' }] },
      { text: 'refused' },
    ]);
    const isolated = await startTestWorker({
      agent: {
        llm,
        tools: [new AddTool()],
        builtinTools: [new FakeBuiltin('bash')],
        autoProjectSkills: false,
      },
    });
    try {
      const events = await collect((await isolated.agents.start('agent', 'run bash')).events());
      expect(llm.calls[0]!.tools.map((t) => t.function.name)).toEqual(['add']);
      expect(events.find((e) => e.type === 'tool_failed')?.payload.error).toMatch(
        /There is no tool named "bash"/,
      );
    } finally {
      await isolated.stop();
    }
  });

  it('lets project skills take part in matching, unless autoProjectSkills is off', async () => {
    const on = await env.agents.run('project', 'Apply our house style to this page');
    expect(on.metadata.used_skills).toEqual(['house-style']);
    expect(models.project!.calls[0]!.messages[0]!.content).toContain('PROJECT-HOUSE-STYLE-PROMPT');
    const off = await env.agents.run('noProject', 'Apply our house style to this page');
    expect(off.metadata.used_skills).toEqual([]);
  });

  it('fails a run that names an unknown skill, saying how to find the right id', async () => {
    await expect(env.agents.run('manual', 'hi', { skills: ['no-such-skill'] })).rejects.toThrow(
      /Unknown skill id\(s\): no-such-skill.*availableSkills/,
    );
  });

  it('behaves the same when streamed', async () => {
    const handle = await env.agents.start('limited', 'a slow query');
    const events = await collect(handle.events());
    expect(events.at(-1)).toMatchObject({ type: 'run_completed', payload: { used_skills: ['sql-helper'] } });
    expect((await handle.result()).metadata.used_skills).toEqual(['sql-helper']);
  });
});
