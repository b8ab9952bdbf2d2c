import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverProjectSkills } from '../../src/skills/project.ts';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'project-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function skill(path: string, id: string, description: string, extra = ''): Promise<void> {
  const file = join(root, path, 'SKILL.md');
  await mkdir(dirname(file), { recursive: true });
  await writeFile(
    file,
    `---\nname: ${id}\ndescription: ${description}\n${extra}---\nBody of ${description}.\n`,
  );
}

describe('discoverProjectSkills', () => {
  it('reads the four roots in priority order: the earliest root wins an id, and shadowing is reported', async () => {
    await skill('.codex/skills/deploy', 'deploy', 'from codex');
    await skill('.claude/skills/deploy', 'deploy', 'from claude');
    await skill('.agents/skills/deploy', 'deploy', 'from agents');
    await skill('.toolkit/skills/deploy', 'deploy', 'from toolkit');
    await skill('.claude/skills/review', 'review', 'only in claude');
    await skill('.codex/skills/review', 'review', 'shadowed codex review');

    const found = await discoverProjectSkills(root);
    expect(found.skills.map((s) => [s.id, s.description])).toEqual([
      ['deploy', 'from toolkit'],
      ['review', 'only in claude'],
    ]);
    expect(found.skills[0]).toMatchObject({ source: 'project', path: '.toolkit/skills/deploy/SKILL.md' });
    expect(found.shadowed).toEqual([
      { id: 'deploy', path: '.agents/skills/deploy/SKILL.md', shadowedBy: '.toolkit/skills/deploy/SKILL.md' },
      { id: 'deploy', path: '.claude/skills/deploy/SKILL.md', shadowedBy: '.toolkit/skills/deploy/SKILL.md' },
      { id: 'deploy', path: '.codex/skills/deploy/SKILL.md', shadowedBy: '.toolkit/skills/deploy/SKILL.md' },
      { id: 'review', path: '.codex/skills/review/SKILL.md', shadowedBy: '.claude/skills/review/SKILL.md' },
    ]);
  });

  it('reads .github/skills (Copilot) as the fifth root, after .codex/skills', async () => {
    await skill('.github/skills/triage', 'triage', 'from github');
    await skill('.github/skills/deploy', 'deploy', 'github deploy');
    await skill('.codex/skills/deploy', 'deploy', 'codex deploy');
    const found = await discoverProjectSkills(root);
    expect(found.skills.map((s) => [s.id, s.description])).toEqual([
      ['deploy', 'codex deploy'],
      ['triage', 'from github'],
    ]);
    expect(found.shadowed).toEqual([
      { id: 'deploy', path: '.github/skills/deploy/SKILL.md', shadowedBy: '.codex/skills/deploy/SKILL.md' },
    ]);
  });

  it('finds nested skills, skips node_modules, follows a symlinked folder once, and survives bad files', async () => {
    await skill('.agents/skills/group/inner', 'inner', 'nested one level down');
    await skill('.agents/skills/node_modules/pkg', 'pkg', 'must not be read');
    await skill('shared/linted', 'linted', 'shared through a symlink');
    await mkdir(join(root, '.agents/skills/links'), { recursive: true });
    await symlink(join(root, 'shared'), join(root, '.agents/skills/links/a'));
    await symlink(join(root, 'shared'), join(root, '.agents/skills/links/b'));
    await mkdir(join(root, '.agents/skills/broken'), { recursive: true });
    await writeFile(
      join(root, '.agents/skills/broken/SKILL.md'),
      '---\nname: broken\ndescription: [a\n  - : :\n---\n',
    );

    const found = await discoverProjectSkills(root);
    expect(found.skills.map((s) => s.id).sort()).toEqual(['inner', 'linted']);
    expect(found.diagnostics).toContainEqual(
      expect.objectContaining({ path: '.agents/skills/broken/SKILL.md', level: 'error' }),
    );
  });

  it('finds nothing, quietly, in a project without skill folders', async () => {
    expect(await discoverProjectSkills(root)).toEqual({ skills: [], shadowed: [], diagnostics: [] });
  });
});
