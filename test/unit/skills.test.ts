import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/errors.ts';
import { SkillCatalog } from '../../src/skills/catalog.ts';
import { FileSkillRegistry } from '../../src/skills/registry.ts';
import { createSkill, skillIdFromName, skillPrompt } from '../../src/skills/skill.ts';
import {
  BUILTIN_TOOL_NAMES,
  TOOL_BUNDLES,
  toolsForSkills,
  validateToolBundles,
} from '../../src/skills/tool-bundles.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skills-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('skillIdFromName and createSkill', () => {
  it.each([
    ['Brand Voice Guide', 'brand-voice-guide'],
    ['  SQL  Query   Optimizer ', 'sql-query-optimizer'],
    ['Café Résumé Writer', 'cafe-resume-writer'],
    ['C++ / Rust Porting', 'c-rust-porting'],
    ['incident_summary writer', 'incident-summary-writer'],
  ])('%j → %j', (name, id) => {
    expect(skillIdFromName(name)).toBe(id);
  });

  it('needs a name and a description, and fills the rest with defaults', () => {
    const skill = createSkill({ name: 'Brand Voice Guide', description: 'Write in our voice' });
    expect(skill).toMatchObject({
      id: 'brand-voice-guide',
      name: 'Brand Voice Guide',
      tags: [],
      trigger_phrases: [],
    });
    expect(() => createSkill({ name: '', description: 'x' })).toThrow(/non-empty `name`/);
    expect(() => createSkill({ name: '', description: 'x' })).toThrow(ConfigurationError);
    expect(() => createSkill({ name: 'X', description: ' ' })).toThrow(/non-empty `description`/);
  });

  it('uses the prompt template, or writes a prompt from the metadata', () => {
    const templated = createSkill({ name: 'A', description: 'd', prompt_template: 'Do exactly this.' });
    expect(skillPrompt(templated)).toBe('## Skill: A\n\nDo exactly this.');
    const derived = createSkill({
      name: 'Release Notes Writer',
      description: 'Turns merged changes into release notes.',
      how_to_use: 'Give it the list of merged pull requests.',
      use_cases: ['weekly releases', 'hotfix notes'],
    });
    expect(skillPrompt(derived)).toBe(
      [
        '## Skill: Release Notes Writer',
        '',
        'Apply this skill: Turns merged changes into release notes.',
        '',
        'How to work: Give it the list of merged pull requests.',
        '',
        'It is meant for:',
        '- weekly releases',
        '- hotfix notes',
      ].join('\n'),
    );
  });
});

describe('SkillCatalog', () => {
  it('creates, adds and lists skills in a JSON file, atomically', async () => {
    const catalog = new SkillCatalog(join(dir, 'nested', 'skills.json'));
    expect(await catalog.list()).toEqual([]);
    await catalog.create({
      name: 'Brand Voice Guide',
      description: 'Our voice',
      trigger_phrases: ['brand voice'],
    });
    await catalog.add(
      createSkill({ name: 'Incident Summary Writer', description: 'Summaries of incidents' }),
    );
    expect((await catalog.list()).map((s) => s.id)).toEqual(['brand-voice-guide', 'incident-summary-writer']);
    const file = JSON.parse(await readFile(catalog.path, 'utf8')) as { version: number; skills: unknown[] };
    expect(file.version).toBe(1);
    expect(file.skills).toHaveLength(2);
    expect(await readdir(join(dir, 'nested'))).toEqual(['skills.json']);
  });

  it('refuses an id it already has unless replacing is asked for', async () => {
    const catalog = new SkillCatalog(join(dir, 'skills.json'));
    await catalog.create({ name: 'Guide', description: 'first' });
    await expect(catalog.create({ name: 'Guide', description: 'second' })).rejects.toThrow(
      ConfigurationError,
    );
    await expect(catalog.create({ name: 'Guide', description: 'second' })).rejects.toThrow(/replace: true/);
    await catalog.create({ name: 'Guide', description: 'second' }, { replace: true });
    expect((await catalog.list()).map((s) => s.description)).toEqual(['second']);
  });

  it('loses nothing when many adds run at once', async () => {
    const catalog = new SkillCatalog(join(dir, 'skills.json'));
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        catalog.create({ name: `Skill ${i}`, description: `number ${i}` }),
      ),
    );
    expect(await catalog.list()).toHaveLength(20);
  });
});

describe('FileSkillRegistry', () => {
  it('lists a catalog and searches it with typos, ranked', async () => {
    const catalog = new SkillCatalog(join(dir, 'skills.json'));
    await catalog.create({
      name: 'Database Architect',
      description: 'Designs schemas and indexes',
      tags: ['sql', 'postgres'],
    });
    await catalog.create({
      name: 'Brand Voice Guide',
      description: 'Keeps copy in the brand voice',
      tags: ['writing'],
    });
    await catalog.create({
      name: 'Incident Summary Writer',
      description: 'Writes postmortems',
      use_cases: ['outage report'],
    });
    const registry = new FileSkillRegistry(catalog.path);
    expect(await registry.list()).toHaveLength(3);
    expect((await registry.search('databse archtect'))[0]?.id).toBe('database-architect');
    expect((await registry.search('postgres'))[0]?.id).toBe('database-architect');
    expect((await registry.search('outage'))[0]?.id).toBe('incident-summary-writer');
    expect(await registry.search('')).toEqual([]);
  });

  it('says which skill of a catalog is invalid', async () => {
    await writeFile(
      join(dir, 'bad.json'),
      JSON.stringify({
        skills: [
          { id: 'ok', name: 'Ok', description: 'fine' },
          { id: 'broken', name: 'Broken' },
        ],
      }),
    );
    await expect(new FileSkillRegistry(join(dir, 'bad.json')).list()).rejects.toThrow(
      /Skill 2 \("broken"\).*invalid[\s\S]*description/,
    );
  });
});

describe('tool bundles', () => {
  it('name only the 13 built-in tools, with the sizes the spec gives', () => {
    expect(validateToolBundles(new Set(BUILTIN_TOOL_NAMES))).toEqual([]);
    expect(TOOL_BUNDLES['full-stack-developer']).toHaveLength(13);
    expect(TOOL_BUNDLES['devops-automation']).toHaveLength(12);
    expect(TOOL_BUNDLES['devops-automation']).not.toContain('playwright_browse');
    expect(TOOL_BUNDLES['portfolio-website-builder']).toEqual([
      'write_file',
      'edit_file',
      'workspace_files',
      'bash',
      'run_code',
    ]);
  });

  it('report one error per unknown tool', () => {
    const known = new Set(
      BUILTIN_TOOL_NAMES.filter((name) => name !== 'verify_output' && name !== 'plan_task'),
    );
    const errors = validateToolBundles(known);
    expect(errors).toContain(
      'Skill "security-engineer" attaches the tool "verify_output", which is not a known tool.',
    );
    expect(errors.filter((e) => e.includes('"plan_task"'))).toHaveLength(2); // full-stack-developer, devops-automation
    expect(errors).toHaveLength(5);
  });

  it('combine the tools of several skills without repeats', () => {
    expect(
      toolsForSkills([
        { id: 'security-engineer' },
        { id: 'portfolio-website-builder' },
        { id: 'custom', tools: ['bash', 'my_tool'] },
      ]),
    ).toEqual([
      'bash',
      'web_search',
      'grep_files',
      'read_file',
      'run_code',
      'verify_output',
      'write_file',
      'edit_file',
      'workspace_files',
      'my_tool',
    ]);
  });
});
