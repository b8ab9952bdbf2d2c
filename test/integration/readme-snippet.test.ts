import { access, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.ts';
import { startProgram } from '../support/node-program.ts';

const built = await access(join(ROOT, 'dist', 'index.js')).then(
  () => true,
  () => false,
);
if (!built) console.warn("Skipping the README's snippet: no build (npm run build).");

/** The README's first TypeScript block: "An agent in a few lines". */
async function readmeSnippet(): Promise<string> {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## An agent in a few lines'));
  const block = /```ts\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error('README.md has no TypeScript block under "An agent in a few lines"');
  return block[1]!;
}

/**
 * The README's snippet run the way the README says: `agent.ts` in a folder whose package.json has
 * `"type": "module"`, with toolkit-agent and zod installed (linked here: this build and our zod),
 * then `node agent.ts`. Its tool calls the stand-in and the run answers.
 */
describe.skipIf(!built)("the README's first example, run as the README says", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('runs, its tool succeeds, and it prints the answer', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'readme-snippet-'));
    dirs.push(dir);
    await writeFile(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    await mkdir(join(dir, 'node_modules'));
    await symlink(ROOT, join(dir, 'node_modules', 'toolkit-agent'));
    await symlink(join(ROOT, 'node_modules', 'zod'), join(dir, 'node_modules', 'zod'));
    await writeFile(join(dir, 'agent.ts'), await readmeSnippet());
    const end = await startProgram(['agent.ts'], {}, dir).exit(120_000);
    expect(end.hung, end.output).toBe(false);
    expect(end.code, end.output).toBe(0);
    expect(end.output).toMatch(/tool_completed .*service_status/);
    expect(end.output).not.toMatch(/tool_failed/);
    expect(end.output).toContain('Billing is up.');
  }, 180_000);
});
