import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { findSkillFiles, readSkillFile, walkBudget } from '../../src/skills/project.ts';
import { parseSkillMd, type SkillDiagnostic } from '../../src/skills/skill-md.ts';
import type { Skill } from '../../src/skills/skill.ts';

/**
 * SKILL.md shapes as public collections hold them (written for this corpus after the groups an
 * acceptance run over 32,166 public files found): no frontmatter at all, no name or description,
 * quoted values that never close, `[WIP]` and `{{ template }}` values, tabs, keys that are
 * collections, and well-formed files for a realistic mix. Two files give no skill by any rule.
 */
const CORPUS = new URL('../fixtures/skill-corpus/', import.meta.url).pathname;

async function read(name: string): Promise<{ skill?: Skill; diagnostics: SkillDiagnostic[] }> {
  const found: SkillDiagnostic[] = [];
  const [file] = await findSkillFiles(join(CORPUS, name), walkBudget(), found);
  const { text, diagnostics } = await readSkillFile(file!, `${name}/SKILL.md`);
  if (text === undefined) return { diagnostics: [...found, ...diagnostics] };
  const parsed = parseSkillMd(text, `${name}/SKILL.md`, name);
  return { ...parsed, diagnostics: [...found, ...diagnostics, ...parsed.diagnostics] };
}

afterEach(() => vi.restoreAllMocks());

describe('SKILL.md files as the most used clients read them (Claude Code rules)', () => {
  it('reads at least 97% of the corpus, never throws, prints nothing, and gives each recovery a line', async () => {
    const printed: unknown[] = [];
    const record = (...args: unknown[]) => void printed.push(args);
    vi.spyOn(console, 'log').mockImplementation(record);
    vi.spyOn(console, 'warn').mockImplementation(record);
    vi.spyOn(console, 'error').mockImplementation(record);
    vi.spyOn(process, 'emitWarning').mockImplementation(record);
    const names = await readdir(CORPUS);
    expect(names.length).toBeGreaterThanOrEqual(50);
    const results = new Map<string, Awaited<ReturnType<typeof read>>>();
    for (const name of names) results.set(name, await read(name));
    vi.restoreAllMocks();

    const skipped = [...results].filter(([, result]) => !result.skill).map(([name]) => name);
    const rate = (names.length - skipped.length) / names.length;
    console.log(
      `SKILL.md corpus: ${names.length - skipped.length} of ${names.length} read (${(rate * 100).toFixed(1)}%)`,
    );
    expect(skipped.sort()).toEqual(['empty-file', 'frontmatter-only']);
    expect(rate).toBeGreaterThanOrEqual(0.97);
    expect(printed).toEqual([]);
    for (const [name, { diagnostics }] of results)
      for (const d of diagnostics) {
        expect(d.path, name).toBe(`${name}/SKILL.md`);
        expect(d.line, `${name}: ${d.code}`).toBeGreaterThanOrEqual(1);
      }
  });

  it('names a file without frontmatter after its folder and describes it with its first paragraph', async () => {
    const readme = await read('readme-style');
    expect(readme.skill).toMatchObject({
      id: 'readme-style',
      description: 'Walks through the production deploy checklist step by step.',
    });
    expect(readme.diagnostics.map((d) => d.code)).toEqual([
      'no-frontmatter',
      'missing-name',
      'description-from-body',
    ]);
    expect((await read('html-comment-first')).skill?.description).toBe(
      'Writes release notes for a tagged version.',
    );
    expect((await read('missing-name')).skill).toMatchObject({ id: 'missing-name', name: 'missing-name' });
    expect((await read('missing-both')).skill?.description).toBe(
      'Resizes images to the sizes a web page needs.',
    );
  });

  it('reads a quoted value that never closes to the end of the frontmatter, with a warning on its line', async () => {
    const last = await read('unclosed-double-last');
    expect(last.skill?.description).toBe('Plans database migrations with zero downtime');
    expect(last.diagnostics).toEqual([
      expect.objectContaining({ code: 'unclosed-quote', line: 3, level: 'warning' }),
    ]);
    const multiline = await read('unclosed-multiline');
    expect(multiline.skill?.description).toBe(
      'Writes onboarding guides for new engineers, covering setup, services and on-call',
    );
    // What follows the open quote is part of the value, as a reader that keeps going reads it.
    const followed = await read('unclosed-double');
    expect(followed.skill?.description).toBe(
      'Reviews pull requests for security issues allowed-tools: Read, Grep',
    );
    expect((await read('unclosed-single')).skill?.description).toBe(
      'Checks accessibility of web pages against WCAG 2.2',
    );
  });

  it('reads a closing fence with text joined to it, and a quoted value over several lines, as skills-ref does, each with a warning', async () => {
    const joined = await read('fence-joined-text');
    expect(joined.skill).toMatchObject({
      name: 'fence-joined-text',
      description: 'Calls the billing API for invoices and refunds.',
    });
    expect(joined.skill?.prompt_template).toMatch(/^\*\*Base URL:\*\* https:\/\/api\.example\.com\n/);
    expect(joined.diagnostics).toEqual([
      expect.objectContaining({ code: 'joined-fence', line: 4, level: 'warning' }),
    ]);
    const quoted = await read('quoted-over-lines');
    expect(quoted.skill?.description).toBe(
      'Reviews pull requests for style and tests. Use when: the user asks for a review, - or pastes a diff.',
    );
    expect(quoted.diagnostics).toEqual([
      expect.objectContaining({ code: 'quoted-lines', line: 3, level: 'warning' }),
    ]);
  });

  it('reads quotes inside quotes, unknown escapes, [WIP] values, unclosed lists and tabs as text', async () => {
    expect((await read('inner-apostrophe')).skill?.description).toBe("Use when the user's build fails on CI");
    expect((await read('inner-double')).skill?.description).toBe(
      'Answers "how do I" questions about the CLI',
    );
    expect((await read('windows-path')).skill?.description).toBe('Cleans C:\\Users\\build\\cache folders');
    const wip = await read('wip-bracket');
    expect(wip.skill?.description).toBe('[WIP] Drafts replies to customer emails');
    expect(wip.diagnostics).toEqual([expect.objectContaining({ code: 'flow-text', line: 3 })]);
    expect((await read('unclosed-flow-list')).skill?.tags).toEqual(['photos', 'places']);
    expect((await read('tab-indent')).skill?.tags).toEqual(['lists', 'tabs']);
  });

  it("turns the YAML library's warning about a key that is a collection into a diagnostic", async () => {
    const warned = vi.spyOn(process, 'emitWarning');
    const consoleWarn = vi.spyOn(console, 'warn');
    const result = await read('template-key');
    expect(result.skill?.description).toBe('Renders Jinja templates.');
    expect(result.diagnostics).toContainEqual(
      expect.objectContaining({ code: 'yaml-warning', line: 4, level: 'warning' }),
    );
    expect(warned).not.toHaveBeenCalled();
    expect(consoleWarn).not.toHaveBeenCalled();
  });
});
