import { z } from 'zod';
import { ToolInputError } from '../errors.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../tools/connector-base.ts';
import { LOAD_SKILL_TOOL, READ_SKILL_FILE_TOOL } from './listing.ts';
import { rankPool, skillPool, type SkillSources } from './pool.ts';
import { listSkillFiles, readInSkillFolder, skillFolder, type SkillFile } from './skill-folder.ts';
import { skillPrompt, type Skill } from './skill.ts';
import { toolsForSkills } from './tool-bundles.ts';

/** What the skill tools need from the agent they serve. */
export interface SkillToolHost extends SkillSources {
  /** Whether the agent can give the model this tool (its own tools and the built-ins skills may attach). */
  hasTool(name: string): boolean;
  /** Whether the model can call this tool without a skill attaching it. */
  isAlwaysCallable(name: string): boolean;
}

const RUNNERS = ['bash', 'run_code'];

const loadParameters = z.object({
  id: z
    .string()
    .min(1)
    .describe('The skill id from the list (or words describing the task, to be shown the closest skills)'),
});
const readParameters = z.object({
  skill: z.string().min(1).describe('The skill id'),
  path: z.string().min(1).describe('The file, relative to the skill folder, e.g. references/guide.md'),
});

async function findSkill(host: SkillToolHost, id: string): Promise<Skill | undefined> {
  return (await skillPool(host, { catalog: true })).byId.get(id.trim());
}

/** A tool of model-driven skill activation, serving one agent. */
abstract class SkillTool<P extends z.ZodType> extends BaseConnectorTool<P> {
  protected readonly host: SkillToolHost;

  constructor(host: SkillToolHost) {
    super();
    this.host = host;
  }
}

/**
 * `load_skill`: the model loads a skill from the listing in its system prompt. Returns the skill's
 * instructions and the files of its folder; the skill then counts in `metadata.used_skills` and its
 * tools are given to the model from the next step. An id that is not a skill is answered with the
 * closest skills, so words describing the task work too.
 */
export class LoadSkillTool extends SkillTool<typeof loadParameters> {
  readonly name = LOAD_SKILL_TOOL;
  readonly description =
    'Load a skill from the "Skills you can load" list by its id: returns its instructions and the list of ' +
    'its files (read them with read_skill_file). Call it before working on a task a skill covers.';
  readonly parameters = loadParameters;

  async run(_context: ToolContext, args: z.infer<typeof loadParameters>): Promise<ToolOutput> {
    const { id } = args;
    const pool = await skillPool(this.host, { catalog: true });
    const skill = pool.byId.get(id.trim());
    if (!skill) {
      const closest = (await rankPool(this.host, pool, id)).slice(0, 5);
      const lines = closest.map((match) => `- ${match}: ${pool.byId.get(match)?.description ?? ''}`);
      return {
        text: closest.length
          ? `There is no skill "${id}". The closest skills:\n${lines.join('\n')}\nCall ${LOAD_SKILL_TOOL} with one of these ids.`
          : `There is no skill "${id}", and none matches those words.`,
        metadata: { matches: closest },
      };
    }
    const attached = toolsForSkills([skill]);
    const tools = attached.filter((name) => this.host.hasTool(name));
    const unavailableTools = attached.filter((name) => !this.host.hasTool(name));
    const folder = skillFolder(skill, this.host.projectRoot);
    const listing = folder ? await listSkillFiles(folder) : { files: [], more: false };
    const canRun = RUNNERS.some((name) => tools.includes(name) || this.host.isAlwaysCallable(name));
    const parts = [skillPrompt(skill), '', ...filesSection(skill, folder, listing, canRun)];
    if (tools.length) parts.push('', `Tools this skill gives you from your next step: ${tools.join(', ')}.`);
    if (unavailableTools.length)
      parts.push(
        '',
        `Tools this skill asks for that this agent does not have: ${unavailableTools.join(', ')}.`,
      );
    return {
      text: parts.join('\n'),
      metadata: { skill: skill.id, files: listing.files.length, tools },
      loadedSkill: { id: skill.id, tools, unavailableTools },
    };
  }
}

function filesSection(
  skill: Skill,
  folder: string | undefined,
  listing: { files: SkillFile[]; more: boolean },
  canRun: boolean,
): string[] {
  if (!folder || listing.files.length === 0)
    return [`Files: none (the skill "${skill.id}" is its instructions only).`];
  const lines = [`Files of the skill "${skill.id}" (read one with ${READ_SKILL_FILE_TOOL}):`];
  for (const file of listing.files)
    lines.push(`- ${file.path} (${file.bytes} bytes${file.script ? ', script' : ''})`);
  if (listing.more) lines.push('- … more files not listed');
  if (listing.files.some((file) => file.script)) {
    lines.push(
      '',
      canRun
        ? `Scripts run only through the bash or run_code tool; the skill's folder is ${folder}.`
        : 'This run has no bash or run_code tool, so the scripts cannot run here; read them if they help.',
    );
  }
  return lines;
}

/** `read_skill_file`: reads a file of a skill's folder, confined to that folder and capped in size. */
export class ReadSkillFileTool extends SkillTool<typeof readParameters> {
  readonly name = READ_SKILL_FILE_TOOL;
  readonly description =
    "Read a file of a skill's folder (a reference, a template, a script), by the skill's id and the path " +
    'load_skill listed. Paths outside the skill folder are refused.';
  readonly parameters = readParameters;

  async run(_context: ToolContext, args: z.infer<typeof readParameters>): Promise<ToolOutput> {
    const { skill: id, path } = args;
    const skill = await findSkill(this.host, id);
    if (!skill) throw new ToolInputError(`There is no skill "${id}"; use an id from the skills list.`);
    const folder = skillFolder(skill, this.host.projectRoot);
    if (!folder)
      throw new ToolInputError(`The skill "${skill.id}" has no folder of files (it comes from the catalog).`);
    const file = await readInSkillFolder(folder, path, skill.id);
    const note = file.truncated ? `\n\n(Cut at ${file.text.length} characters of ${file.bytes} bytes.)` : '';
    return {
      text: file.text + note,
      metadata: { skill: skill.id, path, bytes: file.bytes, truncated: file.truncated },
    };
  }
}

/** The two tools of model-driven skill activation, for one agent. */
export function skillActivationTools(host: SkillToolHost): BaseConnectorTool[] {
  return [new LoadSkillTool(host), new ReadSkillFileTool(host)];
}
