import { readdir, readFile, realpath } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { isDirectory } from '../fs/probe.ts';
import { parseSkillMd, type SkillDiagnostic } from './skill-md.ts';
import type { Skill } from './skill.ts';

/** Where project skills live, in priority order (SKILLS.md): the earliest root wins an id. */
export const PROJECT_SKILL_ROOTS = [
  '.toolkit/skills',
  '.agents/skills',
  '.claude/skills',
  '.codex/skills',
] as const;

const MAX_DEPTH = 4;
const MAX_DIRECTORIES = 2_000;

export interface ProjectSkills {
  skills: Skill[];
  /** Skills hidden by a skill of the same id in an earlier root (or earlier in the same root). */
  shadowed: Array<{ id: string; path: string; shadowedBy: string }>;
  diagnostics: SkillDiagnostic[];
}

/**
 * Finds `<id>/SKILL.md` files under the four roots below `projectRoot` (nested folders too, to a
 * depth of four), parses each, and resolves id clashes by root priority. Never descends into
 * `node_modules`, follows each symlinked folder once (by real path), and never throws for a bad file:
 * a file that cannot be read is skipped with a diagnostic.
 */
export async function discoverProjectSkills(projectRoot: string): Promise<ProjectSkills> {
  const result: ProjectSkills = { skills: [], shadowed: [], diagnostics: [] };
  const byId = new Map<string, Skill>();
  const seen = new Set<string>();
  let budget = MAX_DIRECTORIES;
  for (const root of PROJECT_SKILL_ROOTS) {
    const files: string[] = [];
    const walk = async (directory: string, depth: number): Promise<void> => {
      if (depth > MAX_DEPTH || budget <= 0) return;
      let real: string;
      try {
        real = await realpath(directory);
      } catch {
        return;
      }
      if (seen.has(real)) return;
      seen.add(real);
      budget -= 1;
      let entries;
      try {
        entries = await readdir(directory, { withFileTypes: true });
      } catch (error) {
        result.diagnostics.push({
          path: directory,
          level: 'warning',
          message: `Cannot list: ${(error as Error).message}`,
        });
        return;
      }
      if (entries.some((entry) => entry.name === 'SKILL.md' && !entry.isDirectory()))
        files.push(join(directory, 'SKILL.md'));
      for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
        const path = join(directory, entry.name);
        if (entry.isDirectory() || (entry.isSymbolicLink() && (await isDirectory(path))))
          await walk(path, depth + 1);
      }
    };
    await walk(join(projectRoot, root), 0);
    if (budget <= 0) {
      result.diagnostics.push({
        path: join(projectRoot, root),
        level: 'warning',
        message: `Stopped after ${MAX_DIRECTORIES} folders; skills beyond were not read.`,
      });
    }
    for (const file of files) {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (error) {
        result.diagnostics.push({
          path: file,
          level: 'error',
          message: `Cannot read: ${(error as Error).message}`,
        });
        continue;
      }
      const { skill, diagnostics } = parseSkillMd(text, relative(projectRoot, file), basename(dirname(file)));
      result.diagnostics.push(...diagnostics);
      if (!skill) continue;
      const winner = byId.get(skill.id);
      if (winner) {
        result.shadowed.push({ id: skill.id, path: skill.path!, shadowedBy: winner.path! });
        continue;
      }
      byId.set(skill.id, skill);
      result.skills.push(skill);
    }
  }
  return result;
}
