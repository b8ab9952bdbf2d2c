import { ConfigurationError } from '../errors.ts';
import type { FileSkillRegistry } from '../skills/registry.ts';
import { selectSkills, type SkillChoice } from '../skills/selection.ts';
import { skillPrompt, type Skill } from '../skills/skill.ts';
import { toolsForSkills } from '../skills/tool-bundles.ts';
import { TriggerMatcher } from '../skills/triggers.ts';
import { activationFor, skillListingFor } from './skill-listing.ts';
import type { RegisteredAgent } from './registered-agent.ts';

export interface ResolvedSkills {
  skills: Skill[];
  choices: SkillChoice[];
  /** The instruction blocks of the selected skills, for the system prompt. */
  prompts: string[];
  /** Attached tools this worker has (given to the model for this run). */
  tools: string[];
  /** Attached tools this worker does not have: reported, never faked. */
  unavailableTools: string[];
  /** The skills the model may load (`skillActivation` `'model'` or `'both'`), for the system prompt; '' when none. */
  listing: string;
  /** `load_skill` and `read_skill_file` when there is a listing; none otherwise. */
  listingTools: string[];
}

/** Compiled catalog triggers, once per registry: a catalog does not change while a worker runs. */
const catalogMatchers = new WeakMap<FileSkillRegistry, Promise<TriggerMatcher>>();

function catalogMatcher(registry: FileSkillRegistry): Promise<TriggerMatcher> {
  let matcher = catalogMatchers.get(registry);
  if (!matcher) {
    matcher = registry
      .list()
      .then(
        (skills) =>
          new TriggerMatcher(skills.map((skill) => ({ skillId: skill.id, phrases: skill.trigger_phrases }))),
      );
    catalogMatchers.set(registry, matcher);
  }
  return matcher;
}

/**
 * The skills of one run (docs/skills.md), read inside an activity because it reads files: the catalog,
 * the project's SKILL.md files (which take part like catalog skills and win an id clash), then
 * `selectSkills`. Unknown ids fail the run with a clear error rather than being dropped.
 */
export async function resolveSkills(
  agent: RegisteredAgent,
  prompt: string,
  runSkills: ReadonlyArray<string | Skill> = [],
  opts: { listing?: boolean } = {},
): Promise<ResolvedSkills> {
  const settings = agent.skills;
  const fixed = [...settings.fixed, ...runSkills];
  const needsCatalog =
    settings.autoUse || settings.defaultSkillIds.length > 0 || fixed.some((s) => typeof s === 'string');
  const { pool, activation, listPackaged } = await activationFor(settings, needsCatalog);
  const { project } = pool;
  const available = pool.byId;
  const autoUse = settings.autoUse && activation !== 'model';

  const matchers: TriggerMatcher[] = [];
  if (autoUse) {
    matchers.push(await catalogMatcher(settings.registry));
    if (project?.skills.length) {
      matchers.push(
        new TriggerMatcher(
          project.skills.map((skill) => ({ skillId: skill.id, phrases: skill.trigger_phrases })),
        ),
      );
    }
  }
  const { skills, choices, unknown } = selectSkills({
    fixed,
    defaultSkillIds: settings.defaultSkillIds,
    available,
    prompt,
    autoUse,
    matchLimit: settings.matchLimit,
    matchers,
  });
  if (unknown.length > 0) {
    throw new ConfigurationError(
      `Unknown skill id(s): ${unknown.join(', ')}. They are neither in the catalog ${settings.registry.path} nor ` +
        'in the project skills; agent.availableSkills() lists the ids you can use.',
    );
  }
  const attached = toolsForSkills(skills);
  const listing =
    activation !== 'triggers' && opts.listing !== false
      ? await skillListingFor(agent, pool, { selected: skills, prompt, listPackaged })
      : { text: '', tools: [] };
  return {
    listing: listing.text,
    listingTools: listing.tools,
    skills,
    choices,
    prompts: skills.map(skillPrompt),
    tools: attached.filter((name) => agent.builtinTools.has(name) || agent.tools.has(name)),
    unavailableTools: attached.filter((name) => !agent.builtinTools.has(name) && !agent.tools.has(name)),
  };
}
