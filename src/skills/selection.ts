import type { Skill } from './skill.ts';
import type { TriggerMatcher } from './triggers.ts';

/** How many trigger-matched skills a run adds when `skillMatchLimit` is not set. */
export const DEFAULT_SKILL_MATCH_LIMIT = 3;

export interface SkillChoice {
  id: string;
  reason: 'fixed' | 'default' | 'trigger';
  /** For `trigger`: the phrase that fired. */
  phrase?: string;
}

export interface SkillSelectionInput {
  /** Skills active in every run, by id or as Skill objects. */
  fixed: ReadonlyArray<string | Skill>;
  /** Ids attached from the active catalog. */
  defaultSkillIds: readonly string[];
  /** The skills ids resolve against: the catalog and the project's SKILL.md files. */
  available: ReadonlyMap<string, Skill>;
  prompt: string;
  autoUse: boolean;
  matchLimit: number;
  /** Compiled triggers of `available`; used only when `autoUse` is true. */
  matchers: readonly TriggerMatcher[];
}

/**
 * The skills of one run (docs/skills.md): fixed ones, then default ids, then, when `autoUse` is on, the
 * most specific trigger matches up to `matchLimit`. A pure function: same input, same answer.
 * Ids that resolve to nothing are returned in `unknown` for the caller to report.
 */
export function selectSkills(input: SkillSelectionInput): {
  skills: Skill[];
  choices: SkillChoice[];
  unknown: string[];
} {
  const skills: Skill[] = [];
  const choices: SkillChoice[] = [];
  const unknown: string[] = [];
  const chosen = new Set<string>();
  const choose = (skill: Skill, choice: SkillChoice) => {
    if (chosen.has(skill.id)) return;
    chosen.add(skill.id);
    skills.push(skill);
    choices.push(choice);
  };
  for (const entry of input.fixed) {
    const skill = typeof entry === 'string' ? input.available.get(entry) : entry;
    if (skill) choose(skill, { id: skill.id, reason: 'fixed' });
    else unknown.push(entry as string);
  }
  for (const id of input.defaultSkillIds) {
    const skill = input.available.get(id);
    if (skill) choose(skill, { id, reason: 'default' });
    else unknown.push(id);
  }
  if (input.autoUse && input.matchLimit > 0) {
    const matches = input.matchers
      .flatMap((matcher) => matcher.match(input.prompt))
      .sort((a, b) => b.tokens - a.tokens || b.phrase.length - a.phrase.length || a.position - b.position);
    let added = 0;
    for (const match of matches) {
      const skill = input.available.get(match.skillId);
      if (!skill || chosen.has(skill.id)) continue;
      choose(skill, { id: skill.id, reason: 'trigger', phrase: match.phrase });
      if (++added >= input.matchLimit) break;
    }
  }
  return { skills, choices, unknown };
}
