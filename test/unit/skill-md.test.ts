import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSkillMd } from '../../src/skills/skill-md.ts';

const CORPUS = new URL('../fixtures/skill-md/', import.meta.url).pathname;

async function parseCase(name: string) {
  const text = await readFile(join(CORPUS, name, 'SKILL.md'), 'utf8');
  return parseSkillMd(text, `${name}/SKILL.md`, name);
}

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

  it.each([
    ['no-frontmatter', /No frontmatter/],
    ['broken-yaml', /not valid YAML/],
    ['no-description', /No description/],
  ])('skips %s with an error diagnostic instead of crashing', async (name, message) => {
    const result = await parseCase(name);
    expect(result.skill).toBeUndefined();
    expect(result.diagnostics.at(-1)).toMatchObject({ level: 'error', path: `${name}/SKILL.md` });
    expect(result.diagnostics.at(-1)!.message).toMatch(message);
  });

  it('covers every case in the corpus', async () => {
    const cases = await readdir(CORPUS);
    expect(cases).toHaveLength(19);
    for (const name of cases) expect((await parseCase(name)).diagnostics).toBeInstanceOf(Array);
  });
});
