import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { findSkillFiles, readSkillFile, walkBudget } from '../../src/skills/project.ts';
import { parseSkillMd, type SkillDiagnostic } from '../../src/skills/skill-md.ts';

const CORPUS = new URL('../fixtures/skill-md/', import.meta.url).pathname;

/** Reads a case as discovery does: the file found in its folder (any spelling), decoded, parsed. */
async function parseCase(name: string) {
  const found: SkillDiagnostic[] = [];
  const [file] = await findSkillFiles(join(CORPUS, name), walkBudget(), found);
  const shownAs = `${name}/${file!.split('/').at(-1)}`;
  const { text, diagnostics } = await readSkillFile(file!, shownAs);
  const parsed = parseSkillMd(text!, shownAs, name);
  return { ...parsed, diagnostics: [...found, ...diagnostics, ...parsed.diagnostics] };
}

/** `expect.stringMatching`, typed for use inside `objectContaining`. */
const matching = (pattern: RegExp): unknown => expect.stringMatching(pattern) as unknown;

const warnings = (result: Awaited<ReturnType<typeof parseCase>>) =>
  result.diagnostics.filter((d) => d.level === 'warning').map((d) => d.message);

describe('parseSkillMd on a corpus of messy real-world files', () => {
  it('reads an unquoted colon in a description, with a warning', async () => {
    const result = await parseCase('unquoted-colon');
    expect(result.skill?.description).toBe('Reviews pull requests. TRIGGER when: the user asks for a review');
    expect(warnings(result).join()).toMatch(/unquoted ": "/);
  });

  it('reads block scalars, and a block scalar where a list belongs as one item', async () => {
    const { skill } = await parseCase('block-scalars');
    expect(skill?.description).toBe('Folded description over two lines.');
    expect(skill?.tags).toEqual(['not-a-list']);
  });

  it('reads quoted values with escapes and colons', async () => {
    const { skill } = await parseCase('quoted');
    expect(skill).toMatchObject({
      id: 'quoted',
      description: 'A long "quoted" description: with a colon inside',
    });
  });

  it('reads CRLF line endings and a BOM', async () => {
    const { skill, diagnostics } = await parseCase('crlf-bom');
    expect(skill).toMatchObject({
      id: 'crlf-bom',
      trigger_phrases: ['line endings'],
      prompt_template: 'Body line one.',
    });
    expect(diagnostics).toEqual([]);
  });

  it('reads a comment before the keys', async () => {
    expect((await parseCase('comment-first')).skill?.description).toBe('A comment before the keys');
  });

  it('reads tags written as a "[a, b]" string', async () => {
    const result = await parseCase('tags-as-string');
    expect(result.skill?.tags).toEqual(['alpha', 'beta', 'gamma']);
    expect(warnings(result).join()).toMatch(/looks like a list/);
  });

  it('reads tools as a list, a comma-separated string, or allowed-tools separated by spaces', async () => {
    expect((await parseCase('tools-list')).skill).toMatchObject({
      tools: ['read_file', 'bash'],
      mcps: ['github', 'postgres'],
    });
    expect((await parseCase('tools-comma')).skill?.tools).toEqual(['read_file', 'grep_files', 'bash']);
    expect((await parseCase('tools-space')).skill?.tools).toEqual(['read_file', 'grep_files', 'bash']);
  });

  it('reads `trigger` as a scalar', async () => {
    expect((await parseCase('trigger-scalar')).skill?.trigger_phrases).toEqual(['release notes']);
  });

  it('keeps YAML 1.1 lookalikes as the text written: on, yes, dates, 1.0', async () => {
    const { skill } = await parseCase('yaml11');
    expect(skill?.description).toBe('on');
    expect(skill?.tags).toEqual(['yes', 'no', 'on']);
  });

  it('turns a name with underscores into a valid id, with a warning', async () => {
    const result = await parseCase('snake_case_name');
    expect(result.skill?.id).toBe('snake-case-name');
    expect(warnings(result).join()).toMatch(/not a valid skill name/);
  });

  it('keeps a description over 1,024 characters, with a warning', async () => {
    const result = await parseCase('long-description');
    expect(result.skill?.description).toHaveLength(1500);
    expect(warnings(result).join()).toMatch(/1500 characters; the Agent Skills format allows 1024/);
  });

  it('warns about a name that differs from its folder and about unknown keys', async () => {
    const result = await parseCase('folder-name');
    expect(result.skill?.id).toBe('other-name');
    expect(warnings(result).join('\n')).toMatch(/differs from its folder "folder-name"/);
    expect(warnings(result).join('\n')).toMatch(/Unknown key `extra_key` ignored/);
  });

  it('takes the description from the body when the frontmatter has none', async () => {
    const result = await parseCase('body-description');
    expect(result.skill?.description).toBe('The first paragraph describes the skill.');
    expect(warnings(result).join()).toMatch(/first paragraph of the body/);
  });

  it('leaves the prompt empty when the body is, so it is derived from the metadata', async () => {
    const { skill } = await parseCase('empty-body');
    expect(skill).toMatchObject({
      id: 'empty-body',
      display_name: 'Empty Body',
      use_cases: ['first case', 'second case'],
    });
    expect(skill?.prompt_template).toBeUndefined();
  });

  it('reads a file without frontmatter as Claude Code does: the folder names it, the body describes it', async () => {
    const result = await parseCase('no-frontmatter');
    expect(result.skill).toMatchObject({
      id: 'no-frontmatter',
      name: 'no-frontmatter',
      description: 'No frontmatter at all.',
      prompt_template: '# Just markdown\n\nNo frontmatter at all.',
    });
    expect(result.diagnostics.map(({ code, line, level }) => ({ code, line, level }))).toEqual([
      { code: 'no-frontmatter', line: 1, level: 'warning' },
      { code: 'missing-name', line: 1, level: 'warning' },
      { code: 'description-from-body', line: 1, level: 'warning' },
    ]);
  });

  it.each([
    ['broken-yaml', /not valid YAML/],
    ['no-description', /No description/],
  ])('skips %s with an error diagnostic instead of crashing', async (name, message) => {
    const result = await parseCase(name);
    expect(result.skill).toBeUndefined();
    expect(result.diagnostics.at(-1)).toMatchObject({ level: 'error', path: `${name}/SKILL.md` });
    expect(result.diagnostics.at(-1)!.message).toMatch(message);
  });

  it('reads blank lines before the opening ---, with a warning on line 1', async () => {
    const result = await parseCase('blank-before');
    expect(result.skill?.description).toBe('Blank lines before the opening marker');
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ code: 'blank-before-frontmatter', line: 1, level: 'warning' }),
    ]);
  });

  it('takes the last of a key given twice, naming the line of the repeat', async () => {
    const result = await parseCase('duplicate-keys');
    expect(result.skill?.description).toBe('The second description wins');
    expect(result.diagnostics).toEqual([
      expect.objectContaining({
        code: 'duplicate-key',
        line: 5,
        message: matching(/`description` is given twice/),
      }),
    ]);
  });

  it('reads unquoted values starting with @ ` * & ! % as text, one warning per line', async () => {
    const result = await parseCase('reserved-chars');
    expect(result.skill).toMatchObject({
      description: '@reviewer checks `git diff` output',
      category: '%done',
    });
    const repaired = result.diagnostics.filter((d) => d.code === 'reserved-character');
    expect(repaired.map((d) => d.line)).toEqual([3, 4, 5, 6, 7, 9]);
    expect(repaired.map((d) => d.message.match(/starts with "(.)"/)![1])).toEqual([
      '@',
      '*',
      '&',
      '!',
      '%',
      '@',
    ]);
    expect(result.diagnostics.filter((d) => d.level === 'error')).toEqual([]);
  });

  it('reads a file that is not UTF-8 as Windows-1252, with a warning', async () => {
    const result = await parseCase('windows-1252');
    expect(result.skill?.description).toBe('Café menus – written on Windows');
    expect(result.skill?.prompt_template).toBe('Use “smart quotes”.');
    expect(result.diagnostics).toEqual([expect.objectContaining({ code: 'encoding', level: 'warning' })]);
  });

  it.each([
    ['lowercase-file', 'skill.md'],
    ['uppercase-extension', 'SKILL.MD'],
  ])('reads %s (a file named %s), with a warning to rename it', async (name, file) => {
    const result = await parseCase(name);
    expect(result.skill).toMatchObject({ id: name, path: `${name}/${file}` });
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ code: 'file-name', message: matching(/spells it SKILL.md/) }),
    ]);
  });

  it('reads frontmatter that is never closed up to the first heading', async () => {
    const result = await parseCase('unclosed');
    expect(result.skill).toMatchObject({
      description: 'Frontmatter that is never closed',
      prompt_template: '# Unclosed\n\nThe body starts at the heading.',
    });
    expect(result.diagnostics).toEqual([
      expect.objectContaining({
        code: 'unclosed-frontmatter',
        line: 1,
        message: matching(/heading on line 5/),
      }),
    ]);
  });

  it("turns the YAML library's warnings into diagnostics and prints nothing", async () => {
    const spies = [
      vi.spyOn(console, 'warn').mockImplementation(() => undefined),
      vi.spyOn(console, 'error').mockImplementation(() => undefined),
      vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined),
    ];
    const result = parseSkillMd(
      '---\nname: tagged\ndescription: Tagged\ntags:\n  - !custom alpha\n---\n',
      'tagged/SKILL.md',
      'tagged',
    );
    for (const spy of spies) {
      expect(spy).not.toHaveBeenCalled();
      spy.mockRestore();
    }
    expect(result.skill?.tags).toEqual(['alpha']);
    expect(result.diagnostics).toEqual([
      expect.objectContaining({
        code: 'yaml-warning',
        line: 5,
        message: matching(/Unresolved tag: !custom/),
      }),
    ]);
  });

  // Shapes seen in public skill collections (Claude Code commands turned skills, the Agent Skills
  // reference layout, and files with `id`/`version` and a display name), written for this corpus.
  it('reads real-world shapes: Claude Code allowed-tools, the Agent Skills layout, a display name', async () => {
    const claude = await parseCase('sample-claude-code');
    expect(claude.skill).toMatchObject({ id: 'sample-claude-code', tools: ['bash', 'read_file'] });
    expect(claude.diagnostics).toEqual([]);

    const spec = await parseCase('sample-agent-skills');
    expect(spec.skill?.description).toMatch(/^Extracts tables .* tabular data exports\.$/);
    expect(spec.skill?.tools).toEqual(['read_file', 'grep_files', 'bash']);
    expect(spec.diagnostics).toEqual([
      expect.objectContaining({
        code: 'unknown-tool',
        line: 11,
        message: matching(/mcp__drive__search/),
      }),
    ]);

    const named = await parseCase('sample-display-name');
    expect(named.skill).toMatchObject({ id: 'sample-display-name', display_name: 'PDF Processing' });
  });

  it('covers every case in the corpus', async () => {
    const cases = await readdir(CORPUS);
    expect(cases).toHaveLength(29);
    for (const name of cases) expect((await parseCase(name)).diagnostics).toBeInstanceOf(Array);
  });
});
