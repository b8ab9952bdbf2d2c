import { existsSync } from 'node:fs';
import { readdir, readFile, realpath } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { isDirectory } from '../fs/probe.ts';
import { parseSkillMd, type SkillDiagnostic } from './skill-md.ts';
import type { Skill } from './skill.ts';
import { decodeSkillText } from './skill-text.ts';

/** Where project skills live, in priority order (SKILLS.md): the earliest root wins an id. */
export const PROJECT_SKILL_ROOTS = [
  '.toolkit/skills',
  '.agents/skills',
  '.claude/skills',
  '.codex/skills',
  '.github/skills',
] as const;

const MAX_DEPTH = 4;
const MAX_DIRECTORIES = 2_000;

export interface ProjectSkills {
  skills: Skill[];
  /** Skills hidden by a skill of the same id in an earlier root (or earlier in the same root). */
  shadowed: Array<{ id: string; path: string; shadowedBy: string }>;
  diagnostics: SkillDiagnostic[];
}

/** A shared budget of folders for one discovery, so a huge tree cannot stall a run. */
export interface WalkBudget {
  folders: number;
  seen: Set<string>;
}

export function walkBudget(): WalkBudget {
  return { folders: MAX_DIRECTORIES, seen: new Set() };
}

/**
 * The SKILL.md files below `root` (the folder itself and nested folders, to a depth of four), in
 * name order. `SKILL.md` is the spelling of the format; `skill.md`, `SKILL.MD` and other spellings are
 * read too, with a warning. Never descends into `node_modules` or hidden folders, follows each
 * symlinked folder once (by real path), and stops when the budget of folders is spent.
 */
export async function findSkillFiles(
  root: string,
  budget: WalkBudget,
  diagnostics: SkillDiagnostic[],
): Promise<string[]> {
  const files: string[] = [];
  const walk = async (directory: string, depth: number): Promise<void> => {
    if (depth > MAX_DEPTH || budget.folders <= 0) return;
    let real: string;
    try {
      real = await realpath(directory);
    } catch {
      return;
    }
    if (budget.seen.has(real)) return;
    budget.seen.add(real);
    budget.folders -= 1;
    let entries;
    try {
      entries = await readdir(directory, { withFileTypes: true });
    } catch (error) {
      diagnostics.push({
        path: directory,
        level: 'warning',
        message: `Cannot list: ${(error as Error).message}`,
      });
      return;
    }
    const candidates = entries.filter((e) => !e.isDirectory() && e.name.toLowerCase() === 'skill.md');
    const chosen = candidates.find((e) => e.name === 'SKILL.md') ?? candidates[0];
    if (chosen) {
      files.push(join(directory, chosen.name));
      if (chosen.name !== 'SKILL.md')
        diagnostics.push({
          path: join(directory, chosen.name),
          level: 'warning',
          code: 'file-name',
          line: 1,
          message: `Named ${chosen.name}; the Agent Skills format spells it SKILL.md. Rename the file.`,
        });
      for (const other of candidates.filter((e) => e !== chosen))
        diagnostics.push({
          path: join(directory, other.name),
          level: 'warning',
          code: 'file-name',
          line: 1,
          message: `Ignored: ${chosen.name} in the same folder is read instead.`,
        });
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const path = join(directory, entry.name);
      if (entry.isDirectory() || (entry.isSymbolicLink() && (await isDirectory(path))))
        await walk(path, depth + 1);
    }
  };
  await walk(root, 0);
  if (budget.folders <= 0) {
    diagnostics.push({
      path: root,
      level: 'warning',
      message: `Stopped after ${MAX_DIRECTORIES} folders; skills beyond were not read.`,
    });
  }
  return files;
}

/**
 * Reads one SKILL.md file: UTF-8, or Windows-1252 (with a warning) when it is not valid UTF-8.
 * `shownAs` is the path diagnostics and the skill carry.
 */
export async function readSkillFile(
  file: string,
  shownAs: string,
): Promise<{ text?: string; diagnostics: SkillDiagnostic[] }> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    return {
      diagnostics: [{ path: shownAs, level: 'error', message: `Cannot read: ${(error as Error).message}` }],
    };
  }
  const { text, decodedAs } = decodeSkillText(bytes);
  return {
    text,
    diagnostics:
      decodedAs === 'utf-8'
        ? []
        : [
            {
              path: shownAs,
              level: 'warning',
              code: 'encoding',
              line: 1,
              message: 'Not valid UTF-8; read as Windows-1252. Save the file as UTF-8.',
            },
          ],
  };
}

/**
 * Finds `<id>/SKILL.md` files under the five roots below `projectRoot` (nested folders too, to a
 * depth of four), parses each, and resolves id clashes by root priority. Never throws for a bad
 * file: a file that cannot be read is skipped with a diagnostic.
 */
export async function discoverProjectSkills(projectRoot: string): Promise<ProjectSkills> {
  const result: ProjectSkills = { skills: [], shadowed: [], diagnostics: [] };
  const byId = new Map<string, Skill>();
  const budget = walkBudget();
  // Most projects have none of the roots, and this runs in every run's opening step: five synchronous
  // checks in a row cost microseconds, where a trip through the thread pool for each (and an error
  // object for each missing root) made the step wait a tenth of a millisecond or more.
  for (const root of PROJECT_SKILL_ROOTS.filter((root) => existsSync(join(projectRoot, root)))) {
    const found: SkillDiagnostic[] = [];
    const files = await findSkillFiles(join(projectRoot, root), budget, found);
    result.diagnostics.push(...found.map((d) => ({ ...d, path: shown(projectRoot, d.path) })));
    for (const file of files) {
      const path = relative(projectRoot, file);
      const { text, diagnostics } = await readSkillFile(file, path);
      result.diagnostics.push(...diagnostics);
      if (text === undefined) continue;
      const parsed = parseSkillMd(text, path, basename(dirname(file)));
      result.diagnostics.push(...parsed.diagnostics);
      const { skill } = parsed;
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

function shown(projectRoot: string, path: string): string {
  const inside = relative(projectRoot, path);
  return inside.startsWith('..') ? path : inside;
}
