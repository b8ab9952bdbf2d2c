import MiniSearch from 'minisearch';
import type { Skill } from './skill.ts';

/** Distinct words of a prompt (the first ones, common words left out) used to rank skills. */
const MAX_RANK_TERMS = 24;
const STOP_WORDS = new Set(
  (
    'the and for with that this from are was were have has had not but you your our can will would ' +
    'should could into about what which when where who how why all any some then than them they ' +
    "its it's his her their there here also just only use using make please want need help"
  ).split(' '),
);

/**
 * Fuzzy discovery over skills (name, tags, description, use cases), typo-tolerant and ranked, with
 * MiniSearch (SKILLS.md: it ranked best and answered in ~10 ms on 10,000 skills). Results are for
 * people and models to browse: they are never injected into a run.
 */
export class SkillSearchIndex {
  readonly #index: MiniSearch<{
    id: string;
    name: string;
    tags: string;
    description: string;
    use_cases: string;
  }>;
  readonly #byId: Map<string, Skill>;

  constructor(skills: Skill[]) {
    this.#byId = new Map(skills.map((skill) => [skill.id, skill]));
    this.#index = new MiniSearch({
      fields: ['name', 'tags', 'description', 'use_cases'],
      searchOptions: {
        boost: { name: 3, tags: 2, description: 1.5 },
        fuzzy: 0.2,
        prefix: true,
        combineWith: 'OR',
      },
    });
    this.#index.addAll(
      [...this.#byId.values()].map((skill) => ({
        id: skill.id,
        name: `${skill.display_name ?? skill.name} ${skill.id.replace(/-/g, ' ')}`,
        tags: skill.tags.join(' '),
        description: skill.description,
        use_cases: skill.use_cases.join(' '),
      })),
    );
  }

  /**
   * Ids of the skills most relevant to a longer text (a run's prompt), best first: its first 24
   * distinct words (common words left out), whole words only, so it stays fast on 10,000 skills.
   * For ordering, not for choosing.
   */
  rank(text: string, limit = 200): string[] {
    const terms = new Set<string>();
    for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
      if (word.length < 3 || STOP_WORDS.has(word)) continue;
      terms.add(word);
      if (terms.size >= MAX_RANK_TERMS) break;
    }
    if (terms.size === 0) return [];
    return this.#index
      .search([...terms].join(' '), { fuzzy: false, prefix: false })
      .slice(0, limit)
      .map((hit) => String(hit.id));
  }

  search(query: string, limit = 10): Skill[] {
    if (!query.trim()) return [];
    return this.#index
      .search(query)
      .slice(0, limit)
      .map((hit) => this.#byId.get(String(hit.id))!)
      .filter(Boolean);
  }
}
