import type { FileSkillRegistry } from './registry.ts';
import type { Skill } from './skill.ts';

/** How skills become active: by trigger phrase, by the model's choice, or both. */
export type SkillActivation = 'triggers' | 'model' | 'both';

/** The default budget of the skill listing, in characters (as Codex). */
export const DEFAULT_SKILL_LISTING_CHARS = 8_000;

/** The skill parameters (docs/skills.md), shared by `Agent`, `DeepAgent` and worker agent definitions. */
export interface SkillOptions {
  /** An already constructed skill catalog. */
  skillRegistry?: FileSkillRegistry;
  /** Path of a JSON skill catalog (used when no `skillRegistry` is given). Default: the packaged catalog. */
  skillSource?: string;
  /** Skills active in every run, by id or as Skill objects. */
  skills?: Array<string | Skill>;
  /** Catalog ids attached to every run. */
  defaultSkillIds?: string[];
  /** Add skills whose trigger phrases occur in the prompt (at token boundaries). Default false. */
  autoUseSkills?: boolean;
  /** Most trigger-matched skills added to one run. Default 3. */
  skillMatchLimit?: number;
  /**
   * How skills become active beyond `skills` and `defaultSkillIds`: `'triggers'` (trigger phrases,
   * with `autoUseSkills`), `'model'` (the model sees a listing of the available skills and loads
   * them with `load_skill`), or `'both'`. Default: `'both'` when the agent has skills of its own
   * available (a catalog you named, or project SKILL.md files), else `'triggers'`.
   */
  skillActivation?: SkillActivation;
  /** Characters the skill listing may take in the system prompt. Default 8,000. */
  skillListingChars?: number;
  /** Read project skills (`.toolkit/skills`, `.agents/skills`, `.claude/skills`, `.codex/skills`, `.github/skills`). Default true. */
  autoProjectSkills?: boolean;
  /** The project whose skill folders are read. Default: the current directory of the process that runs the agent. */
  projectRoot?: string;
}
