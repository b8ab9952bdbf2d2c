import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const SCRIPT = path.resolve(import.meta.dirname, '../../scripts/check-docs.ts');
const run = promisify(execFile);

/** Runs `npm run check:docs` on a project of the given files; resolves with its exit code and output. */
async function checkDocs(files: Record<string, string>): Promise<{ code: number; out: string }> {
  const root = await mkdtemp(path.join(tmpdir(), 'check-docs-'));
  roots.push(root);
  for (const [name, text] of Object.entries({ 'dist/index.d.ts': 'export {};\n', ...files })) {
    await mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await writeFile(path.join(root, name), text);
  }
  try {
    const { stdout, stderr } = await run(process.execPath, [SCRIPT, root]);
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((r) => rm(r, { recursive: true, force: true })));
});

const GOOD_PAGE = [
  '# Models',
  '',
  '## Local models',
  '',
  'Back to [the start](../README.md) or [local models](#local-models).',
  '',
  '```ts',
  'const answer = 21;',
  'const doubled: number = answer * 2;',
  'console.log(doubled);',
  '```',
  '',
  '```ts fragment',
  'this is not TypeScript at all',
  '```',
  '',
].join('\n');

describe('check:docs', () => {
  it('passes a project whose links, anchors, map and blocks hold, and lists the fragments it skipped', async () => {
    const { code, out } = await checkDocs({
      'README.md': '# Project\n\nSee [models](docs/models.md#local-models).\n',
      'docs/models.md': GOOD_PAGE,
    });
    expect(out).toContain(
      '2 pages, 3 links, 1 TypeScript blocks type-checked, 0 blocks in other languages matched to their examples.',
    );
    expect(out).toContain('skipped (marked fragment): docs/models.md:14');
    expect(code).toBe(0);
  });

  it('names every broken link, missing anchor, unmapped page and type error by file and line', async () => {
    const { code, out } = await checkDocs({
      'README.md': '# Project\n\nSee [models](docs/models.md#remote-models) and [gone](docs/gone.md).\n',
      'docs/models.md': GOOD_PAGE.replace('answer * 2', "answer + 'x'"),
      'docs/extra.md': '# Extra\n\n[up](#nowhere)\n',
    });
    expect(code).toBe(1);
    expect(out).toContain('README.md:3: the link docs/models.md#remote-models names #remote-models');
    expect(out).toContain('README.md:3: the link docs/gone.md points at docs/gone.md, which does not exist');
    expect(out).toContain('docs/extra.md:3: the link #nowhere names #nowhere');
    expect(out).toContain('README.md: the docs map does not link docs/extra.md');
    expect(out).toMatch(/docs\/models\.md:9: Type 'string' is not assignable to type 'number'/);
    expect(out).toContain('4 link problem(s), 1 code block problem(s).');
  });

  it('matches a block in another language to the example it follows, line by line, and names a line that drifted', async () => {
    const { code, out } = await checkDocs({
      'README.md': '# Project\n\n```python\nprint("no source")\n```\n\nSee [py](docs/py.md).\n',
      'examples/client.py':
        'import asyncio\n\nasync def main():\n    await run("a")  # the first\n    await run("b")\n',
      'docs/py.md': [
        '# Python',
        '',
        'From [the example](../examples/client.py):',
        '',
        '```python',
        'async def main():',
        '    ...',
        'await run("b")  # a comment of the page',
        '```',
        '',
        '```python',
        'await run("b")',
        'await run("a")',
        '```',
        '',
      ].join('\n'),
    });
    expect(code).toBe(1);
    expect(out).toContain('2 blocks in other languages matched to their examples.');
    expect(out).toContain('README.md:4: a block in another language must follow a link to the example');
    expect(out).toContain(
      'docs/py.md:13: "await run("a")" is not a line of examples/client.py (after the lines before it)',
    );
    expect(out).toContain('0 link problem(s), 2 code block problem(s).');
  });

  it('refuses a hidden prelude before a block, naming its file and line', async () => {
    const { code, out } = await checkDocs({
      'README.md': '# Project\n\nSee [models](docs/models.md).\n',
      'docs/models.md': [
        '# Models',
        '',
        '<!-- prelude',
        'declare const answer: number;',
        '-->',
        '',
        '```ts',
        'console.log(answer * 2);',
        '```',
        '',
      ].join('\n'),
    });
    expect(code).toBe(1);
    expect(out).toContain('docs/models.md:3: a <!-- prelude --> comment hides setup from the reader');
    expect(out).toContain('put its imports and setup lines in the block itself');
    expect(out).toMatch(/docs\/models\.md:8: Cannot find name 'answer'/);
  });

  it('refuses to check the blocks before the package is built', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'check-docs-'));
    roots.push(root);
    await writeFile(path.join(root, 'README.md'), '# Project\n');
    const failed = await run(process.execPath, [SCRIPT, root]).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('run `npm run build` first');
  });
});
