import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lintSkills } from '../../src/skills/lint.ts';

const FIXTURE = new URL('../fixtures/skill-lint/', import.meta.url).pathname;
const LONG = 'a' + '-long-name'.repeat(7);

type Row = [file: string, line: number, severity: 'error' | 'warning', code: string];
const byPlace = (a: Row, b: Row) => a[0].localeCompare(b[0]) || a[1] - b[1] || a[3].localeCompare(b[3]);

describe('lintSkills', () => {
  it('reports each problem of a project once, with its file and line', async () => {
    const diagnostics = await lintSkills(FIXTURE);
    const rows = diagnostics.map((d): Row => [relative(FIXTURE, d.file), d.line, d.severity, d.code]);
    const expected: Row[] = [
      [`.agents/skills/${LONG}/SKILL.md`, 2, 'error', 'name-too-long'],
      ['.agents/skills/bad_name/SKILL.md', 2, 'error', 'invalid-name'],
      ['.agents/skills/folder-a/SKILL.md', 2, 'error', 'name-folder-mismatch'],
      ['.agents/skills/long-description/SKILL.md', 3, 'error', 'description-too-long'],
      ['.agents/skills/long-compatibility/SKILL.md', 4, 'error', 'compatibility-too-long'],
      ['.agents/skills/long-body/SKILL.md', 505, 'warning', 'body-too-long'],
      ['.agents/skills/broken-link/SKILL.md', 8, 'error', 'missing-file'],
      ['.agents/skills/odd-tools/SKILL.md', 4, 'warning', 'unknown-tool'],
      ['.agents/skills/nameless/SKILL.md', 1, 'error', 'missing-name'],
      ['.claude/skills/deploy/SKILL.md', 2, 'warning', 'duplicate-id'],
      ['.claude/skills/release-b/SKILL.md', 4, 'warning', 'trigger-collision'],
    ];
    expect([...rows].sort(byPlace)).toEqual([...expected].sort(byPlace));
    expect(rows).toEqual([...rows].sort(byPlace)); // sorted by file and line as returned

    const message = (code: string) => diagnostics.find((d) => d.code === code)!.message;
    expect(message('missing-file')).toMatch(/references\/missing\.md#part, which does not exist/);
    expect(message('duplicate-id')).toMatch(
      /also the id of .*\.agents\/skills\/deploy\/SKILL\.md, which comes first/,
    );
    expect(message('trigger-collision')).toMatch(/"Ship {2}It" is also a trigger of "release-a"/);
    expect(message('unknown-tool')).toMatch(/NotebookEdit/);
  });

  it('lints single files and plain folders, and reports a path that does not exist', async () => {
    const one = await lintSkills(join(FIXTURE, '.agents/skills/folder-a/SKILL.md'));
    expect(one.map((d) => d.code)).toEqual(['name-folder-mismatch']);
    const folder = await lintSkills([join(FIXTURE, '.claude/skills')]);
    expect(folder).toEqual([]);
    const missing = await lintSkills([join(FIXTURE, 'nowhere')]);
    expect(missing).toEqual([
      {
        file: join(FIXTURE, 'nowhere'),
        line: 1,
        severity: 'error',
        code: 'not-found',
        message: 'No such file or folder.',
      },
    ]);
  });

  it('reports what the loader repairs and an unreadable file, without throwing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lint-'));
    try {
      await writeFile(join(dir, 'SKILL.md'), '---\nname: x\ndescription: one\ndescription: two\n---\n');
      const repaired = await lintSkills(join(dir, 'SKILL.md'));
      expect(repaired).toContainEqual(
        expect.objectContaining({ code: 'duplicate-key', line: 4, severity: 'warning' }),
      );
      // Read the way Claude Code reads it, and each recovery reported with its file and line.
      const notes = join(dir, 'notes', 'SKILL.md');
      await mkdir(join(dir, 'notes'));
      await writeFile(notes, '# Notes\n\nno frontmatter');
      const recovered = await lintSkills(notes);
      expect(recovered.map(({ code, severity, line }) => ({ code, severity, line }))).toEqual(
        expect.arrayContaining([
          { code: 'no-frontmatter', severity: 'error', line: 1 },
          { code: 'missing-name', severity: 'error', line: 1 },
          { code: 'description-from-body', severity: 'error', line: 1 },
        ]),
      );
      expect(recovered).toHaveLength(3);
      expect(recovered.every((d) => d.file === notes)).toBe(true);
      await writeFile(join(dir, 'SKILL.md'), '---\nname: x\ndescription: "never closed\nlicense: MIT\n---\n');
      expect(await lintSkills(join(dir, 'SKILL.md'))).toContainEqual(
        expect.objectContaining({ code: 'unclosed-quote', line: 3, severity: 'warning' }),
      );
      await writeFile(join(dir, 'SKILL.md'), '---\nname: x\ndescription: [unclosed\n  - : :\n---\n');
      expect(await lintSkills(join(dir, 'SKILL.md'))).toEqual([
        expect.objectContaining({ code: 'invalid-yaml', severity: 'error' }),
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
