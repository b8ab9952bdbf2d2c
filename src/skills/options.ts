import type { FileSkillRegistry } from './registry.ts';
import type { Skill } from './skill.ts';

/** The skill parameters of spec 4.8, shared by `Agent`, `DeepAgent` and worker agent definitions. */
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
  /** Read project skills (`.toolkit/skills`, `.agents/skills`, `.claude/skills`, `.codex/skills`). Default true. */
  autoProjectSkills?: boolean;
  /** The project whose skill folders are read. Default: the current directory of the process that runs the agent. */
  projectRoot?: string;
}
