import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { exists } from '../../src/fs/probe.ts';
import { parseSkillMd } from '../../src/skills/skill-md.ts';

const root = new URL('../../', import.meta.url).pathname;
const PYTHON = process.env.TOOLKIT_AGENT_PYTHON ?? `${root}node_modules/.cache/python/bin/python`;
const CORPUS = `${root}test/fixtures/skill-corpus`;
const skipped = (await exists(PYTHON))
  ? ''
  : `no Python with skills-ref at ${PYTHON} (npm run python:install; .ci/run runs it)`;
if (skipped) console.warn(`Skipping the side-by-side test with skills-ref: ${skipped}.`);

type Read = { name: string; description: string } | { error: string };

describe.skipIf(skipped)('SKILL.md side by side with the Agent Skills reference library (skills-ref)', () => {
  it('reads every file the reference reads, with the same name and description', async () => {
    const { stdout } = await promisify(execFile)(PYTHON, [`${root}test/python/skills_ref_read.py`, CORPUS]);
    const reference = JSON.parse(stdout) as Record<string, Read>;
    const names = await readdir(CORPUS);
    expect(Object.keys(reference).sort()).toEqual([...names].sort());
    const differing: string[] = [];
    let readByReference = 0;
    for (const name of names) {
      const theirs = reference[name]!;
      if ('error' in theirs) continue;
      readByReference += 1;
      const text = await readFile(join(CORPUS, name, 'SKILL.md'), 'utf8');
      const { skill } = parseSkillMd(text, `${name}/SKILL.md`, name);
      const ours = skill && { name: skill.name, description: skill.description };
      if (ours?.name !== theirs.name || ours.description !== theirs.description) {
        differing.push(`${name}: ours ${JSON.stringify(ours)}, skills-ref ${JSON.stringify(theirs)}`);
      }
    }
    console.log(
      `skills-ref reads ${readByReference} of ${names.length} corpus files; we read each the same.`,
    );
    expect(readByReference).toBeGreaterThanOrEqual(37);
    expect(differing).toEqual([]);
  });
});
