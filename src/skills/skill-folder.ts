import { open, readdir, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { ToolInputError } from '../errors.ts';
import { resolveInRoot } from '../tools/builtins/jail.ts';
import type { Skill } from './skill.ts';
import { decodeSkillText } from './skill-text.ts';

/** Most files `load_skill` lists for one skill. */
export const MAX_LISTED_FILES = 200;
/** Bytes `read_skill_file` reads of one file; a longer file is cut, and says so. */
export const MAX_SKILL_FILE_BYTES = 100_000;
const MAX_DEPTH = 4;
const SCRIPT = /(^|\/)scripts\/|\.(sh|bash|zsh|py|js|mjs|cjs|ts|rb|pl|ps1)$/;

/** The folder of a project skill (absolute), or undefined for a catalog or inline skill. */
export function skillFolder(skill: Skill, projectRoot: string | undefined): string | undefined {
  if (skill.source !== 'project' || !skill.path || !projectRoot) return undefined;
  return resolve(projectRoot, dirname(skill.path));
}

export interface SkillFile {
  /** Relative to the skill's folder, with `/`. */
  path: string;
  bytes: number;
  /** Under `scripts/` or with a script's extension. */
  script: boolean;
}

/**
 * The files of a skill's folder (nested folders too, to a depth of four), without hidden files,
 * `node_modules` and nested skills (folders with their own SKILL.md). At most {@link MAX_LISTED_FILES}.
 */
export async function listSkillFiles(folder: string): Promise<{ files: SkillFile[]; more: boolean }> {
  const files: SkillFile[] = [];
  let more = false;
  const walk = async (directory: string, depth: number): Promise<void> => {
    const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
    if (depth > 0 && entries.some((e) => e.name.toLowerCase() === 'skill.md')) return;
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const path = join(directory, entry.name);
      if (entry.isDirectory()) {
        if (depth < MAX_DEPTH) await walk(path, depth + 1);
      } else if (entry.isFile()) {
        if (files.length >= MAX_LISTED_FILES) {
          more = true;
          return;
        }
        const name = relative(folder, path).split('\\').join('/');
        const { size } = await stat(path);
        files.push({ path: name, bytes: size, script: SCRIPT.test(name) });
      }
    }
  };
  await walk(folder, 0);
  return { files, more };
}

/**
 * Reads a file of a skill's folder. `path` is relative to the folder; `..`, absolute paths and
 * symlinks that lead out of it are refused. At most {@link MAX_SKILL_FILE_BYTES} are read; text that
 * is not UTF-8 is read as Windows-1252, and a binary file is described rather than shown.
 */
export async function readInSkillFolder(
  folder: string,
  path: string,
  skillId: string,
): Promise<{ text: string; bytes: number; truncated: boolean }> {
  let real: string;
  try {
    real = await resolveInRoot(folder, path);
  } catch (error) {
    if (!(error instanceof ToolInputError)) throw error;
    throw new ToolInputError(
      `The path ${JSON.stringify(path)} is outside the folder of the skill "${skillId}"; ` +
        'give a path relative to it, as load_skill lists them.',
    );
  }
  const info = await stat(real).catch(() => undefined);
  if (!info?.isFile()) {
    throw new ToolInputError(
      `The skill "${skillId}" has no file ${JSON.stringify(path)}; load_skill lists the files it has.`,
    );
  }
  const handle = await open(real, 'r');
  try {
    const length = Math.min(info.size, MAX_SKILL_FILE_BYTES);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, 0);
    if (buffer.includes(0)) {
      const text = `(${path} is a binary file of ${info.size} bytes; it cannot be shown as text.)`;
      return { text, bytes: info.size, truncated: false };
    }
    const truncated = info.size > length;
    const text = decodeSkillText(truncated ? buffer.subarray(0, wholeCharacters(buffer)) : buffer).text;
    return { text, bytes: info.size, truncated };
  } finally {
    await handle.close();
  }
}

/** Length of `bytes` without a UTF-8 character cut off at the end. */
function wholeCharacters(bytes: Buffer): number {
  for (let back = 1; back <= 4 && back <= bytes.length; back++) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}
