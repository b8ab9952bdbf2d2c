import { fileURLToPath } from 'node:url';
import { readCatalogFile } from './catalog-file.ts';
import { SkillSearchIndex } from './search.ts';
import type { Skill } from './skill.ts';

/** The packaged catalog: `skills/skills.json` inside the package. */
export const DEFAULT_SKILLS_PATH = fileURLToPath(new URL('../../skills/skills.json', import.meta.url));

/**
 * A read-only view of a JSON skill catalog (docs/skills.md): `list()` and fuzzy `search(query)`.
 * The file is read once and cached.
 */
export class FileSkillRegistry {
  readonly path: string;
  #loaded: Promise<{ skills: Skill[]; index: SkillSearchIndex }> | undefined;

  constructor(path: string = DEFAULT_SKILLS_PATH) {
    this.path = path;
  }

  async list(): Promise<Skill[]> {
    return (await this.#load()).skills;
  }

  async get(id: string): Promise<Skill | undefined> {
    return (await this.#load()).skills.find((skill) => skill.id === id);
  }

  /** Typo-tolerant ranked search over name, tags, description and use cases. */
  async search(query: string, opts: { limit?: number } = {}): Promise<Skill[]> {
    return (await this.#load()).index.search(query, opts.limit);
  }

  /** Ids of the skills most relevant to a longer text (a prompt), best first: see `SkillSearchIndex.rank`. */
  async rank(text: string, opts: { limit?: number } = {}): Promise<string[]> {
    return (await this.#load()).index.rank(text, opts.limit);
  }

  #load(): Promise<{ skills: Skill[]; index: SkillSearchIndex }> {
    this.#loaded ??= readCatalogFile(this.path).then((skills) => ({
      skills,
      index: new SkillSearchIndex(skills),
    }));
    this.#loaded.catch(() => {
      this.#loaded = undefined;
    });
    return this.#loaded;
  }
}
