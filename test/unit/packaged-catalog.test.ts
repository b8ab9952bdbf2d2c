import { describe, expect, it } from 'vitest';
import { DEFAULT_SKILLS_PATH, FileSkillRegistry } from '../../src/skills/registry.ts';
import { skillIdFromName, skillPrompt } from '../../src/skills/skill.ts';
import { BUILTIN_TOOL_NAMES, TOOL_BUNDLES } from '../../src/skills/tool-bundles.ts';
import { tokenize, TriggerMatcher } from '../../src/skills/triggers.ts';

const registry = new FileSkillRegistry(DEFAULT_SKILLS_PATH);
const NAMED_IN_SPEC = [
  'database-architect',
  'code-workflow-assistant',
  'web-scraper-pro',
  'full-stack-developer',
  'portfolio-website-builder',
  'security-engineer',
  'devops-automation',
  'brand-voice-guide',
  'incident-summary-writer',
];

describe('the packaged catalog', () => {
  it('holds the nine skills the spec names and at least 30 more, each valid', async () => {
    const skills = await registry.list();
    expect(skills.length).toBeGreaterThanOrEqual(39);
    const ids = skills.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(NAMED_IN_SPEC));
    for (const skill of skills) {
      expect(skill.id).toBe(skillIdFromName(skill.name));
      expect(skill.prompt_template?.split('\n').filter((l) => l.trim()).length).toBeGreaterThanOrEqual(10);
      expect(skill.trigger_phrases.length).toBeGreaterThan(0);
      expect(skillPrompt(skill)).toContain(skill.prompt_template!.trim());
    }
  });

  it('attaches exactly the bundle tools, all of them built-in', async () => {
    for (const skill of await registry.list()) {
      expect(skill.tools).toEqual([...(TOOL_BUNDLES[skill.id] ?? [])]);
      for (const tool of skill.tools) expect(BUILTIN_TOOL_NAMES).toContain(tool);
    }
  });

  it('has triggers that compile, belong to one skill each, and avoid words too common to mean anything', async () => {
    const skills = await registry.list();
    const matcher = new TriggerMatcher(skills.map((s) => ({ skillId: s.id, phrases: s.trigger_phrases })));
    expect(matcher.refused).toEqual([]);
    const owners = new Map<string, string>();
    for (const skill of skills) {
      for (const phrase of skill.trigger_phrases) {
        const key = tokenize(phrase).join(' ');
        expect(
          owners.get(key),
          `"${phrase}" is a trigger of ${owners.get(key)} and ${skill.id}`,
        ).toBeUndefined();
        owners.set(key, skill.id);
      }
    }
    const everyday =
      'Can you help me write some code to fix this issue and test the app before we deploy the build?';
    expect(matcher.match(everyday)).toEqual([]);
  });

  it('finds skills by what people type, typos included', async () => {
    expect((await registry.search('databse schema'))[0]?.id).toBe('database-architect');
    expect((await registry.search('incident summary'))[0]?.id).toBe('incident-summary-writer');
    expect((await registry.search('brand voice'))[0]?.id).toBe('brand-voice-guide');
  });
});
