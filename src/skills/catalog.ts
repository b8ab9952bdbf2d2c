import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConfigurationError } from '../errors.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import { readCatalogFile } from './catalog-file.ts';
import { createSkill, SkillSchema, type Skill, type SkillFields } from './skill.ts';

/**
 * A skill catalog in a JSON file you own (docs/skills.md): `add` and `create` save at once, with
 * atomic writes. Point an agent at it with `skillSource`.
 *
 * @example
 * const catalog = new SkillCatalog('./skills.json');
 * await catalog.create({ name: 'Brand Voice Guide', description: 'Write in our brand voice', trigger_phrases: ['brand voice'] });
 */
export class SkillCatalog {
  readonly path: string;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(path: string) {
    this.path = path;
  }

  /** Every skill in the file (none when the file does not exist yet). */
  list(): Promise<Skill[]> {
    return readCatalogFile(this.path, { missingOk: true });
  }

  /** Saves a skill. An id already in the catalog is an error unless `replace` is set. */
  add(skill: Skill, opts: { replace?: boolean } = {}): Promise<Skill> {
    const checked = SkillSchema.parse(skill);
    return this.#serialize(async () => {
      const skills = await this.list();
      const index = skills.findIndex((existing) => existing.id === checked.id);
      if (index >= 0 && !opts.replace) {
        throw new ConfigurationError(
          `The catalog ${this.path} already has a skill "${checked.id}". Pass { replace: true } to overwrite it.`,
        );
      }
      if (index >= 0) skills[index] = checked;
      else skills.push(checked);
      await mkdir(dirname(this.path), { recursive: true });
      // Where a skill came from is known when it is read; the file keeps only the skill.
      const body = skills.map(({ source: _source, path: _path, ...rest }) => rest);
      await writeFileAtomic(this.path, `${JSON.stringify({ version: 1, skills: body }, null, 2)}\n`);
      return checked;
    });
  }

  /** Creates a skill from its fields (as `createSkill`) and saves it. */
  create(fields: SkillFields, opts: { replace?: boolean } = {}): Promise<Skill> {
    return this.add(createSkill(fields), opts);
  }

  /** One change at a time within this process, so concurrent adds never overwrite each other. */
  #serialize<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(work, work);
    this.#queue = next.catch(() => undefined);
    return next;
  }
}
