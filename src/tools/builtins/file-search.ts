import { glob, readdir, readFile, stat } from 'node:fs/promises';
import { join, matchesGlob, relative } from 'node:path';
import { z } from 'zod';
import { ToolInputError } from '../../errors.ts';
import type { ToolContext, ToolOutput } from '../connector-base.ts';
import { BuiltinTool } from './builtin-tool.ts';

const SKIPPED = new Set(['.git', 'node_modules']);
const MAX_RESULTS = 200;
const MAX_GREP_FILE_BYTES = 1024 * 1024;

/** Every file under `dir`, skipping `.git` and `node_modules`, not following symlinks (they could lead out). */
async function* walk(dir: string): AsyncGenerator<string> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (SKIPPED.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.isFile()) yield path;
  }
}

const globFilesParameters = z.object({ pattern: z.string().min(1) });

/** `glob_files`: paths matching a glob pattern, newest first. */
export class GlobFilesTool extends BuiltinTool<typeof globFilesParameters> {
  /** Only touches the jailed project folder (or the plan): runs as a local activity. */
  override readonly fast = true;
  readonly name = 'glob_files';
  readonly description = 'Find project files by glob pattern (e.g. src/**/*.ts), newest first.';
  readonly parameters = globFilesParameters;

  async run(_context: ToolContext, args: z.infer<typeof globFilesParameters>): Promise<ToolOutput> {
    const { pattern } = args;
    if (pattern.startsWith('/') || pattern.split('/').includes('..')) {
      throw new ToolInputError('The pattern must stay inside the project: no leading / and no .. segments.');
    }
    const root = await this.root();
    const found: Array<{ path: string; mtime: number }> = [];
    for await (const path of glob(pattern, { cwd: root, exclude: (name) => SKIPPED.has(String(name)) })) {
      const info = await stat(join(root, path)).catch(() => undefined);
      if (info?.isFile()) found.push({ path, mtime: info.mtimeMs });
    }
    found.sort((a, b) => b.mtime - a.mtime || a.path.localeCompare(b.path));
    const shownPaths = found.slice(0, MAX_RESULTS).map((f) => f.path);
    const more = found.length > MAX_RESULTS ? `\n[${found.length - MAX_RESULTS} more not shown]` : '';
    return {
      text: shownPaths.length ? shownPaths.join('\n') + more : `No file matches ${pattern}.`,
      metadata: { count: found.length },
    };
  }
}

const grepFilesParameters = z.object({
  pattern: z.string().min(1).describe('JavaScript regular expression'),
  path: z.string().optional().describe('Folder or file to search (default: the whole project)'),
  glob: z.string().optional().describe('Only files matching this glob, e.g. **/*.py'),
  ignore_case: z.boolean().optional(),
});

/** `grep_files`: lines matching a regular expression, as `file:line: text`. */
export class GrepFilesTool extends BuiltinTool<typeof grepFilesParameters> {
  /** Only touches the jailed project folder (or the plan): runs as a local activity. */
  override readonly fast = true;
  readonly name = 'grep_files';
  readonly description =
    'Search project files for a regular expression; answers file:line: text. Optional folder, glob and case-insensitivity.';
  readonly parameters = grepFilesParameters;

  async run(_context: ToolContext, args: z.infer<typeof grepFilesParameters>): Promise<ToolOutput> {
    const { pattern, path = '.', glob: only, ignore_case: ignoreCase } = args;
    let regex: RegExp;
    try {
      regex = new RegExp(pattern, ignoreCase ? 'i' : '');
    } catch (error) {
      throw new ToolInputError(`Invalid regular expression: ${(error as Error).message}`);
    }
    const root = await this.root();
    const start = await this.inside(path);
    const info = await stat(start).catch(() => undefined);
    if (!info) throw new ToolInputError(`${path} does not exist in the project.`);
    const files = info.isFile() ? [start] : walk(start);
    const hits: string[] = [];
    let total = 0;
    for await (const file of files) {
      const name = relative(root, file);
      if (only && !matchesGlob(name, only)) continue;
      const size = (await stat(file)).size;
      if (size > MAX_GREP_FILE_BYTES) continue;
      const bytes = await readFile(file);
      if (bytes.subarray(0, 8000).includes(0)) continue;
      bytes
        .toString('utf8')
        .split('\n')
        .forEach((line, i) => {
          if (!regex.test(line)) return;
          total += 1;
          if (hits.length < MAX_RESULTS) hits.push(`${name}:${i + 1}: ${line.slice(0, 300)}`);
        });
    }
    const more = total > hits.length ? `\n[${total - hits.length} more matches not shown]` : '';
    return {
      text: hits.length ? hits.join('\n') + more : `No match for /${pattern}/.`,
      metadata: { matches: total },
    };
  }
}

const workspaceFilesParameters = z.object({
  depth: z.number().int().min(1).max(6).optional().describe('Default 3'),
});

/** `workspace_files`: a depth-limited tree of the project with file sizes. */
export class WorkspaceFilesTool extends BuiltinTool<typeof workspaceFilesParameters> {
  /** Only touches the jailed project folder (or the plan): runs as a local activity. */
  override readonly fast = true;
  readonly name = 'workspace_files';
  readonly description = 'Show the project tree (folders and files with sizes), to a depth.';
  readonly parameters = workspaceFilesParameters;

  async run(_context: ToolContext, args: z.infer<typeof workspaceFilesParameters>): Promise<ToolOutput> {
    const { depth = 3 } = args;
    const root = await this.root();
    const lines: string[] = [];
    const visit = async (dir: string, level: number): Promise<void> => {
      const entries = (await readdir(dir, { withFileTypes: true }).catch(() => [])).sort((a, b) =>
        a.name.localeCompare(b.name),
      );
      for (const entry of entries) {
        if (SKIPPED.has(entry.name) || lines.length >= MAX_RESULTS * 2) continue;
        const path = join(dir, entry.name);
        const indent = '  '.repeat(level);
        if (entry.isDirectory()) {
          lines.push(`${indent}${entry.name}/`);
          if (level + 1 < depth) await visit(path, level + 1);
        } else if (entry.isFile()) {
          lines.push(`${indent}${entry.name} (${(await stat(path)).size} B)`);
        }
      }
    };
    await visit(root, 0);
    return { text: lines.length ? lines.join('\n') : '(empty project)', metadata: { entries: lines.length } };
  }
}
