import { chmod, mkdir, mkdtemp, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ToolInputError } from '../../src/errors.ts';
import type { BaseConnectorTool } from '../../src/tools/connector-base.ts';
import { EditFileTool, ReadFileTool, WriteFileTool } from '../../src/tools/builtins/file-edit.ts';
import { GlobFilesTool, GrepFilesTool, WorkspaceFilesTool } from '../../src/tools/builtins/file-search.ts';
import { PlanTaskTool, VerifyOutputTool } from '../../src/tools/builtins/plan-verify.ts';
import { BashTool, RunCodeTool } from '../../src/tools/builtins/shell.ts';
import { toolContext } from '../support/tool-context.ts';

let base: string;
let root: string;
let outside: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'builtins-'));
  root = join(base, 'project');
  outside = join(base, 'outside');
  await mkdir(join(root, 'src'), { recursive: true });
  await mkdir(outside);
  await writeFile(join(outside, 'secret.txt'), 'outside secret');
  await writeFile(join(root, 'src', 'app.ts'), 'const a = 1;\nconst b = 2;\nexport const sum = a + b;\n');
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

/** Calls the tool as the activity does: the model's arguments parsed by the tool's schema first. */
const run = <P extends z.ZodType>(tool: BaseConnectorTool<P>, args: Record<string, unknown>) =>
  tool.run(toolContext(), tool.parameters.parse(args));

describe('the project-root sandbox', () => {
  it('refuses .., absolute paths outside, a symlink out and a path through a symlinked folder', async () => {
    await symlink(join(outside, 'secret.txt'), join(root, 'link.txt'));
    await symlink(outside, join(root, 'linked-dir'));
    const read = new ReadFileTool({ projectRoot: root });
    const write = new WriteFileTool({ projectRoot: root });
    for (const path of [
      '../outside/secret.txt',
      join(outside, 'secret.txt'),
      'link.txt',
      'linked-dir/secret.txt',
      'src/../../outside/secret.txt',
    ]) {
      await expect(run(read, { path })).rejects.toThrow(ToolInputError);
      await expect(run(read, { path })).rejects.toThrow(/outside the project root/);
    }
    await expect(run(write, { path: 'linked-dir/new.txt', content: 'x' })).rejects.toThrow(
      /outside the project root/,
    );
    await expect(run(write, { path: '../outside/new.txt', content: 'x' })).rejects.toThrow(
      /outside the project root/,
    );
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('outside secret');
    await expect(readFile(join(outside, 'new.txt'))).rejects.toThrow();
    expect((await run(read, { path: join(root, 'src/app.ts') })).text).toContain('const a = 1;');
  });
});

describe('file tools', () => {
  it('read_file numbers lines, takes a range, and describes binary files', async () => {
    const read = new ReadFileTool({ projectRoot: root });
    expect((await run(read, { path: 'src/app.ts', start: 2, end: 3 })).text).toBe(
      '2| const b = 2;\n3| export const sum = a + b;',
    );
    await writeFile(join(root, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]));
    expect((await run(read, { path: 'logo.png' })).text).toBe(
      'logo.png is a binary file (8 bytes); not shown.',
    );
    await expect(run(read, { path: 'missing.txt' })).rejects.toThrow(/not a file/);
  });

  it('write_file creates folders and replaces files atomically under a concurrent reader', async () => {
    const write = new WriteFileTool({ projectRoot: root });
    await run(write, { path: 'deep/er/notes.md', content: '# Notes\n' });
    expect(await readFile(join(root, 'deep/er/notes.md'), 'utf8')).toBe('# Notes\n');
    const versions = ['A'.repeat(300_000), 'B'.repeat(300_000)];
    let writing = true;
    const seen = new Set<string>();
    const reader = (async () => {
      while (writing) {
        const text = await readFile(join(root, 'deep/er/notes.md'), 'utf8');
        seen.add(`${text.slice(0, 1)}${text.length}`);
      }
    })();
    for (let i = 0; i < 20; i++) await run(write, { path: 'deep/er/notes.md', content: versions[i % 2] });
    writing = false;
    await reader;
    // Every read saw one whole version: never a mix, never a partly written file.
    for (const view of seen) expect(['#8', 'A300000', 'B300000']).toContain(view);
  });

  it("write_file and edit_file keep an existing file's mode; new files get 0644 whatever the umask", async () => {
    const write = new WriteFileTool({ projectRoot: root });
    await writeFile(join(root, 'deploy.sh'), '#!/bin/sh\necho one\n');
    await chmod(join(root, 'deploy.sh'), 0o750);
    await run(write, { path: 'deploy.sh', content: '#!/bin/sh\necho two\n' });
    expect((await stat(join(root, 'deploy.sh'))).mode & 0o7777).toBe(0o750);
    await run(new EditFileTool({ projectRoot: root }), {
      path: 'deploy.sh',
      old_text: 'two',
      new_text: 'three',
    });
    expect((await stat(join(root, 'deploy.sh'))).mode & 0o7777).toBe(0o750);
    const umask = process.umask(0o077);
    try {
      await run(write, { path: 'fresh.txt', content: 'new' });
    } finally {
      process.umask(umask);
    }
    expect((await stat(join(root, 'fresh.txt'))).mode & 0o7777).toBe(0o644);
  });

  it('edit_file replaces unique text, and says when the text is missing or ambiguous', async () => {
    const edit = new EditFileTool({ projectRoot: root });
    await run(edit, { path: 'src/app.ts', old_text: 'const b = 2;', new_text: 'const b = 40;' });
    expect(await readFile(join(root, 'src/app.ts'), 'utf8')).toContain('const b = 40;');
    await expect(run(edit, { path: 'src/app.ts', old_text: 'const c', new_text: 'x' })).rejects.toThrow(
      /was not found in src\/app.ts/,
    );
    await expect(run(edit, { path: 'src/app.ts', old_text: 'const', new_text: 'let' })).rejects.toThrow(
      /occurs 3 times.*replace_all/,
    );
    expect(
      (await run(edit, { path: 'src/app.ts', old_text: 'const', new_text: 'let', replace_all: true })).text,
    ).toMatch(/Replaced 3/);
  });

  it('glob_files lists newest first; grep_files finds lines, skipping node_modules; workspace_files shows the tree', async () => {
    await writeFile(join(root, 'src', 'old.ts'), 'TODO: old\n');
    await utimes(join(root, 'src', 'old.ts'), new Date('2020-01-01'), new Date('2020-01-01'));
    await mkdir(join(root, 'node_modules', 'pkg'), { recursive: true });
    await writeFile(join(root, 'node_modules', 'pkg', 'index.ts'), 'TODO: vendored\n');
    await writeFile(join(root, 'README.md'), 'todo: docs\n');
    expect((await run(new GlobFilesTool({ projectRoot: root }), { pattern: 'src/**/*.ts' })).text).toBe(
      'src/app.ts\nsrc/old.ts',
    );
    const grep = new GrepFilesTool({ projectRoot: root });
    expect((await run(grep, { pattern: 'TODO' })).text).toBe('src/old.ts:1: TODO: old');
    expect((await run(grep, { pattern: 'todo', ignore_case: true, glob: '*.md' })).text).toBe(
      'README.md:1: todo: docs',
    );
    await expect(run(grep, { pattern: '(' })).rejects.toThrow(/Invalid regular expression/);
    const tree = (await run(new WorkspaceFilesTool({ projectRoot: root }), {})).text;
    expect(tree).toContain('src/\n  app.ts (');
    expect(tree).not.toContain('node_modules');
  });
});

describe('shell and code', () => {
  it('bash runs in the project root without the worker secrets', async () => {
    process.env.TOOLKIT_TEST_CANARY = 'canary-in-worker-env';
    try {
      const result = await run(new BashTool({ projectRoot: root }), {
        command: 'pwd; echo "secret=[$TOOLKIT_TEST_CANARY]"; env | grep -c CANARY; exit 3',
      });
      expect(result.text).toContain('[exit code 3]');
      expect(result.text).toContain(root);
      expect(result.text).toContain('secret=[]');
      expect(result.text).not.toContain('canary-in-worker-env');
    } finally {
      delete process.env.TOOLKIT_TEST_CANARY;
    }
  });

  it('bash kills a command and its children at the timeout', async () => {
    const result = await run(new BashTool({ projectRoot: root }), {
      command: 'sleep 300 & echo $! > child.pid; sleep 300',
      timeout: 1,
    });
    expect(result.text).toContain('[killed after the 1 s timeout]');
    const pid = Number(await readFile(join(root, 'child.pid'), 'utf8'));
    // Gone, or a zombie waiting for its new parent to reap it: either way it no longer runs.
    const state = await readFile(`/proc/${pid}/stat`, 'utf8').then(
      (stat) => stat.split(' ')[2],
      () => 'gone',
    );
    expect(['gone', 'Z', 'X']).toContain(state);
  });

  it('caps long output', async () => {
    const result = await run(new BashTool({ projectRoot: root }), {
      command: 'head -c 100000 /dev/zero | tr "\\0" x',
    });
    expect(result.text).toMatch(/output truncated: showed 20000 of 100000 characters/);
  });

  it.each([
    ['javascript', 'console.log(6 * 7)'],
    ['typescript', 'const n: number = 42; console.log(n)'],
    ['python', 'print(6 * 7)'],
  ])('run_code runs %s', async (language, code) => {
    const result = await run(new RunCodeTool({ projectRoot: root }), { language, code });
    expect(result.text).toBe('[exit code 0]\nstdout:\n42\n');
  });
});

describe('plan and verify', () => {
  it('plan_task renders the plan and hands it on in metadata', async () => {
    const result = await run(new PlanTaskTool({ projectRoot: root }), {
      steps: [
        { title: 'Read the code', status: 'done' },
        { title: 'Fix the bug', status: 'in_progress' },
        { title: 'Run the tests', status: 'pending' },
      ],
    });
    expect(result.text).toBe(
      'Plan (1/3 done):\n1. [x] Read the code\n2. [~] Fix the bug\n3. [ ] Run the tests',
    );
    expect(result.metadata.plan).toHaveLength(3);
  });

  it('verify_output answers PASS or FAIL with the evidence', async () => {
    const verify = new VerifyOutputTool({ projectRoot: root });
    expect((await run(verify, { command: 'echo "3 passed"', expected_pattern: '\\d+ passed' })).text).toMatch(
      /^PASS\n\[exit code 0\]/,
    );
    expect((await run(verify, { command: 'echo nope; exit 1', expected_text: 'ok' })).text).toMatch(
      /^FAIL: the command did not exit 0; expected text "ok" not found/,
    );
    expect((await run(verify, { text: 'Total: 42', expected_text: 'Total: 42' })).metadata.pass).toBe(true);
    await expect(run(verify, {})).rejects.toThrow(/Give a command/);
  });
});

describe('verify_output with a model judgement', () => {
  it('asks the run model to judge the text against the criteria', async () => {
    const verify = new VerifyOutputTool({ projectRoot: root });
    const prompts: string[] = [];
    const ask = (answer: string) => async (prompt: string) => {
      prompts.push(prompt);
      return answer;
    };
    const pass = await verify.run(toolContext(undefined, { askModel: ask('PASS') }), {
      text: 'Dear Ada, thanks!',
      criteria: 'A polite greeting to Ada',
    });
    expect(pass.text).toBe('PASS\nmodel judgement: PASS');
    expect(prompts[0]).toMatch(/Task:\nA polite greeting to Ada\n\nAnswer:\nDear Ada, thanks!/);
    const fail = await verify.run(toolContext(undefined, { askModel: ask('FAIL\nIt never names Ada.') }), {
      text: 'Hi',
      criteria: 'Names Ada',
    });
    expect(fail.text).toBe(
      'FAIL: the model judged the criteria unmet: It never names Ada.\nmodel judgement: FAIL (It never names Ada.)',
    );
    await expect(verify.run(toolContext(), { text: 'Hi', criteria: 'Names Ada' })).rejects.toThrow(
      /needs a model to judge/,
    );
  });
});
