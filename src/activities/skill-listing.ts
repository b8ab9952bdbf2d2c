import { LOAD_SKILL_TOOL, READ_SKILL_FILE_TOOL, skillListing } from '../skills/listing.ts';
import type { SkillActivation } from '../skills/options.ts';
import { isPackagedCatalog, rankPool, skillPool, type SkillPool } from '../skills/pool.ts';
import type { Skill } from '../skills/skill.ts';
import type { AgentSkillSettings, RegisteredAgent } from './registered-agent.ts';

/**
 * The skills a run can draw on and how they become active. With `skillActivation` unset, an agent
 * with skills of its own (a catalog it was given, or project SKILL.md files) gets `'both'` and lists
 * those; the packaged catalog is a library to pick from by id, listed only when `skillActivation` is
 * set explicitly.
 */
export async function activationFor(
  settings: AgentSkillSettings,
  needsCatalog: boolean,
): Promise<{ pool: SkillPool; activation: SkillActivation; listPackaged: boolean }> {
  const packaged = isPackagedCatalog(settings.registry);
  if (settings.activation !== undefined) {
    const catalog = needsCatalog || settings.activation !== 'triggers';
    return {
      pool: await skillPool(settings, { catalog }),
      activation: settings.activation,
      listPackaged: true,
    };
  }
  const pool = await skillPool(settings, { catalog: needsCatalog || !packaged });
  const own = (pool.project?.skills.length ?? 0) > 0 || (!packaged && pool.byId.size > 0);
  return { pool, activation: own ? 'both' : 'triggers', listPackaged: false };
}

/**
 * The listing for the system prompt: the pool's skills not already active, within the agent's
 * `skillListingChars`, the most relevant to the prompt first when they do not all fit. Comes with the
 * two tools that load skills, when the agent has them.
 */
export async function skillListingFor(
  agent: RegisteredAgent,
  pool: SkillPool,
  opts: { selected: readonly Skill[]; prompt: string; listPackaged: boolean },
): Promise<{ text: string; tools: string[] }> {
  if (!agent.tools.has(LOAD_SKILL_TOOL)) return { text: '', tools: [] };
  const active = new Set(opts.selected.map((skill) => skill.id));
  const projectOnly = !opts.listPackaged && isPackagedCatalog(agent.skills.registry);
  const listable = (skill: Skill | undefined): skill is Skill =>
    skill !== undefined && !active.has(skill.id) && (!projectOnly || skill.source === 'project');
  const candidates = [...pool.byId.values()].filter(listable);
  const listing = await skillListing(candidates, agent.skills.listingChars, async () => {
    const ids = new Set(await rankPool(agent.skills, pool, opts.prompt));
    return [...ids].map((id) => pool.byId.get(id)).filter(listable);
  });
  return listing.text
    ? { text: listing.text, tools: [LOAD_SKILL_TOOL, READ_SKILL_FILE_TOOL] }
    : { text: '', tools: [] };
}
