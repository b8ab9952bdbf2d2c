import type { ResolvedRun, ToolOutcome } from '../common/run.ts';

/**
 * The skills of a run as it goes: those `resolveRun` chose, plus those the model loads with
 * `load_skill`. A loaded skill counts in `used_skills` at once; its tools become callable (and are
 * given to the model) from the next step.
 */
export class RunSkills {
  readonly #used: string[];
  readonly #tools: string[];
  readonly #unavailable: string[];

  constructor(plan: ResolvedRun) {
    this.#used = [...plan.used_skills];
    this.#tools = [...plan.used_skill_tools];
    this.#unavailable = [...plan.unavailable_skill_tools];
  }

  /** Takes in a tool's outcome; answers the tools to give the model from the next step. */
  absorb(outcome: ToolOutcome): string[] {
    const loaded = outcome.loadedSkill;
    if (!loaded) return [];
    if (!this.#used.includes(loaded.id)) this.#used.push(loaded.id);
    for (const name of loaded.unavailableTools)
      if (!this.#unavailable.includes(name)) this.#unavailable.push(name);
    const added = loaded.tools.filter((name) => !this.#tools.includes(name));
    this.#tools.push(...added);
    return added;
  }

  /** `metadata.used_skills`, `used_skill_tools` and `unavailable_skill_tools` of the run so far. */
  get metadata(): { used_skills: string[]; used_skill_tools: string[]; unavailable_skill_tools: string[] } {
    return {
      used_skills: [...this.#used],
      used_skill_tools: [...this.#tools],
      unavailable_skill_tools: [...this.#unavailable],
    };
  }

  /** Built-in tools the skills attached, callable in this run. */
  get tools(): string[] {
    return this.#tools;
  }
}
