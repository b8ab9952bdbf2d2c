import { mkdir, readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { ToolInputError } from '../../errors.ts';
import { writeFileAtomic } from '../../fs/atomic-write.ts';
import type { ToolContext, ToolOutput } from '../connector-base.ts';
import { BuiltinTool } from './builtin-tool.ts';
import { shown } from './jail.ts';

const MAX_READ_BYTES = 2 * 1024 * 1024;

const readFileParameters = z.object({
  path: z.string().describe('Path relative to the project root'),
  start: z.number().int().min(1).optional().describe('First line (1-based)'),
  end: z.number().int().min(1).optional().describe('Last line'),
});

/** `read_file`: a text file with numbered lines, optionally a range; binary files are described. */
export class ReadFileTool extends BuiltinTool<typeof readFileParameters> {
  /** Only touches the jailed project folder (or the plan): runs as a local activity. */
  override readonly fast = true;
  readonly name = 'read_file';
  readonly description =
    'Read a text file of the project, with line numbers. Optionally only lines start..end.';
  readonly parameters = readFileParameters;

  async run(_context: ToolContext, args: z.infer<typeof readFileParameters>): Promise<ToolOutput> {
    const { path, start = 1, end } = args;
    const file = await this.inside(path);
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) throw new ToolInputError(`${path} is not a file in the project.`);
    if (info.size > MAX_READ_BYTES)
      throw new ToolInputError(
        `${path} has ${info.size} bytes; read at most ${MAX_READ_BYTES} (use start/end on a smaller file, or grep_files).`,
      );
    const bytes = await readFile(file);
    if (bytes.subarray(0, 8000).includes(0)) {
      return {
        text: `${path} is a binary file (${info.size} bytes); not shown.`,
        metadata: { binary: true, size: info.size },
      };
    }
    const lines = bytes.toString('utf8').split('\n');
    const last = Math.min(end ?? lines.length, lines.length);
    const width = String(last).length;
    const body = lines
      .slice(start - 1, last)
      .map((line, i) => `${String(start + i).padStart(width)}| ${line}`);
    return { text: body.join('\n'), metadata: { path: shown(await this.root(), file), lines: lines.length } };
  }
}

const writeFileParameters = z.object({ path: z.string(), content: z.string() });

/**
 * `write_file`: writes a whole file atomically, creating folders. An existing file keeps its mode
 * (an executable script stays executable); a new file gets 0644.
 */
export class WriteFileTool extends BuiltinTool<typeof writeFileParameters> {
  /** Only touches the jailed project folder (or the plan): runs as a local activity. */
  override readonly fast = true;
  readonly name = 'write_file';
  readonly description =
    'Create or overwrite a file of the project with the given content (folders are created).';
  readonly parameters = writeFileParameters;

  async run(_context: ToolContext, args: z.infer<typeof writeFileParameters>): Promise<ToolOutput> {
    const { path, content } = args;
    const file = await this.inside(path);
    await mkdir(dirname(file), { recursive: true });
    await this.inside(path); // the folders just made must not have led outside either
    await writeFileAtomic(file, content);
    return {
      text: `Wrote ${Buffer.byteLength(content)} bytes to ${shown(await this.root(), file)}.`,
      metadata: { path: shown(await this.root(), file) },
    };
  }
}

const editFileParameters = z.object({
  path: z.string(),
  old_text: z.string().min(1),
  new_text: z.string(),
  replace_all: z.boolean().optional(),
});

/** `edit_file`: replaces exact text, refusing when it is missing or, without `replace_all`, not unique. */
export class EditFileTool extends BuiltinTool<typeof editFileParameters> {
  /** Only touches the jailed project folder (or the plan): runs as a local activity. */
  override readonly fast = true;
  readonly name = 'edit_file';
  readonly description =
    'Replace exact text in a file. old_text must occur exactly once unless replace_all is true.';
  readonly parameters = editFileParameters;

  async run(_context: ToolContext, args: z.infer<typeof editFileParameters>): Promise<ToolOutput> {
    const { path, old_text: oldText, new_text: newText, replace_all: all } = args;
    const file = await this.inside(path);
    const text = await readFile(file, 'utf8').catch(() => {
      throw new ToolInputError(`${path} does not exist; create it with write_file.`);
    });
    const count = text.split(oldText).length - 1;
    if (count === 0)
      throw new ToolInputError(`old_text was not found in ${path}; read the file and copy the text exactly.`);
    if (count > 1 && !all) {
      throw new ToolInputError(
        `old_text occurs ${count} times in ${path}; add surrounding lines to make it unique, or set replace_all.`,
      );
    }
    await writeFileAtomic(file, text.split(oldText).join(newText));
    return {
      text: `Replaced ${count} occurrence(s) in ${shown(await this.root(), file)}.`,
      metadata: { replacements: count },
    };
  }
}
