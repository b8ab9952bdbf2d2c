import { z } from 'zod';
import { ConfigurationError } from '../errors.ts';

const text = z.string();
const list = z.array(z.string());

/** A skill (docs/skills.md): a reusable instruction block plus the metadata used to find and select it. */
export const SkillSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  display_name: text.optional(),
  description: z.string().min(1),
  detailed_description: text.optional(),
  long_description: text.optional(),
  category: text.optional(),
  tags: list.default([]),
  features: list.default([]),
  use_cases: list.default([]),
  how_to_use: text.optional(),
  trigger_phrases: list.default([]),
  prompt_template: text.optional(),
  tools: list.default([]),
  requirements: list.default([]),
  mcps: list.default([]),
  /** Where the skill came from: `catalog`, `project` (a SKILL.md) or `inline`. */
  source: z.enum(['catalog', 'project', 'inline']).optional(),
  /** For project skills: the SKILL.md file. */
  path: text.optional(),
});

export type Skill = z.infer<typeof SkillSchema>;

/** The fields `createSkill` takes: `name` and `description` are required. */
export interface SkillFields {
  name: string;
  description: string;
  category?: string;
  tags?: string[];
  use_cases?: string[];
  how_to_use?: string;
  trigger_phrases?: string[];
  prompt_template?: string;
}

/** `'Brand Voice Guide'` → `'brand-voice-guide'`: lower case, words joined by single hyphens. */
export function skillIdFromName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
}

/** Makes a skill from its fields, with the id derived from the name. Throws when a field is wrong. */
export function createSkill(fields: SkillFields): Skill {
  if (!fields?.name?.trim())
    throw new ConfigurationError(
      "createSkill needs a non-empty `name`, e.g. createSkill({ name: 'Brand voice', description: '...' }).",
    );
  if (!fields.description?.trim())
    throw new ConfigurationError(`Skill "${fields.name}" needs a non-empty \`description\`.`);
  const id = skillIdFromName(fields.name);
  if (!id)
    throw new ConfigurationError(
      `The name ${JSON.stringify(fields.name)} has no letters or digits to make an id from.`,
    );
  return SkillSchema.parse({ ...fields, id, display_name: fields.name, source: 'inline' });
}

/**
 * The instruction block a selected skill adds to the run: its `prompt_template`, or, when it has
 * none, a prompt written from its metadata (what it is for, how to work, the cases it covers).
 */
export function skillPrompt(skill: Skill): string {
  const title = skill.display_name ?? skill.name;
  if (skill.prompt_template?.trim()) return `## Skill: ${title}\n\n${skill.prompt_template.trim()}`;
  const parts = [`## Skill: ${title}`, '', `Apply this skill: ${skill.description.trim()}`];
  const detail = skill.long_description ?? skill.detailed_description;
  if (detail?.trim()) parts.push('', detail.trim());
  if (skill.how_to_use?.trim()) parts.push('', `How to work: ${skill.how_to_use.trim()}`);
  if (skill.use_cases.length) parts.push('', 'It is meant for:', ...skill.use_cases.map((u) => `- ${u}`));
  if (skill.features.length) parts.push('', 'Make use of:', ...skill.features.map((f) => `- ${f}`));
  return parts.join('\n');
}
