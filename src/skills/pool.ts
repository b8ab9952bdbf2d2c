import { discoverProjectSkills, type ProjectSkills } from './project.ts';
import { DEFAULT_SKILLS_PATH, type FileSkillRegistry } from './registry.ts';
import { SkillSearchIndex } from './search.ts';
import type { Skill } from './skill.ts';

/** Where an agent's skills come from: its catalog and, when discovery is on, its project. */
export interface SkillSources {
  registry: FileSkillRegistry;
  /** Undefined when project discovery is off. */
  projectRoot: string | undefined;
}

/** The skills an agent can use in a run: project skills (which win an id clash), then the catalog. */
export interface SkillPool {
  byId: ReadonlyMap<string, Skill>;
  project: ProjectSkills | undefined;
  /** Whether the catalog was read (it is not when nothing needs it). */
  catalogRead: boolean;
}

const catalogMaps = new WeakMap<FileSkillRegistry, Promise<Map<string, Skill>>>();

/** The catalog by id, built once per registry: a catalog does not change while a worker runs. */
function catalogById(registry: FileSkillRegistry): Promise<Map<string, Skill>> {
  let map = catalogMaps.get(registry);
  if (!map) {
    map = registry.list().then((skills) => new Map(skills.map((skill) => [skill.id, skill])));
    catalogMaps.set(registry, map);
    map.catch(() => catalogMaps.delete(registry));
  }
  return map;
}

/** Whether the catalog is the packaged one (a library to pick from, not skills the agent was given). */
export function isPackagedCatalog(registry: FileSkillRegistry): boolean {
  return registry.path === DEFAULT_SKILLS_PATH;
}

/**
 * Reads the pool: the project's SKILL.md files (discovered on each call, so a new file counts from
 * the next run) and, when `catalog` is true, the catalog (read once per registry).
 */
export async function skillPool(sources: SkillSources, opts: { catalog: boolean }): Promise<SkillPool> {
  const [catalog, project] = await Promise.all([
    opts.catalog ? catalogById(sources.registry) : undefined,
    sources.projectRoot ? discoverProjectSkills(sources.projectRoot) : undefined,
  ]);
  let byId: ReadonlyMap<string, Skill>;
  if (!project?.skills.length) byId = catalog ?? new Map();
  else {
    const merged = new Map(project.skills.map((skill) => [skill.id, skill]));
    for (const [id, skill] of catalog ?? []) if (!merged.has(id)) merged.set(id, skill);
    byId = merged;
  }
  return { byId, project, catalogRead: catalog !== undefined };
}

/**
 * Ids most relevant to `text` in the pool, best first: the project's skills, then the catalog's,
 * each ranked by the search index (the catalog's is built once per registry).
 */
export async function rankPool(sources: SkillSources, pool: SkillPool, text: string): Promise<string[]> {
  const projectIds = pool.project?.skills.length ? new SkillSearchIndex(pool.project.skills).rank(text) : [];
  const catalogIds = pool.catalogRead ? await sources.registry.rank(text) : [];
  return [...projectIds, ...catalogIds];
}
