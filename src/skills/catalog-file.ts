import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { ConfigurationError } from '../errors.ts';
import { SkillSchema, type Skill } from './skill.ts';

/** Reads a JSON skill catalog: `{ "version": 1, "skills": [...] }`, or a bare array of skills. */
export async function readCatalogFile(path: string, opts: { missingOk?: boolean } = {}): Promise<Skill[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && opts.missingOk) return [];
    throw new ConfigurationError(`Cannot read the skill catalog ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigurationError(`The skill catalog ${path} is not valid JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const entries = Array.isArray(parsed) ? parsed : (parsed as { skills?: unknown })?.skills;
  if (!Array.isArray(entries)) {
    throw new ConfigurationError(
      `The skill catalog ${path} must hold { "skills": [...] } or an array of skills.`,
    );
  }
  return entries.map((entry, index) => {
    const result = SkillSchema.safeParse(entry);
    if (!result.success) {
      const id = (entry as { id?: unknown })?.id;
      throw new ConfigurationError(
        `Skill ${index + 1}${typeof id === 'string' ? ` ("${id}")` : ''} in ${path} is invalid:\n${z.prettifyError(result.error)}`,
      );
    }
    return { ...result.data, source: 'catalog' as const };
  });
}
