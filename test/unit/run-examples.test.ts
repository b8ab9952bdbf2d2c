import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exampleTags } from '../../scripts/run-examples.ts';

const RUNNER = new URL('../../scripts/run-examples.ts', import.meta.url).pathname;

describe('exampleTags', () => {
  it('reads @ci-stdin (with \\n), @ci-args and @ci-skip from the header, and nothing when absent', () => {
    const source = '/**\n * Shows a thing.\n *\n * @ci-stdin y\\nn\\n\n * @ci-args --self-test --fast\n */\n';
    expect(exampleTags(source)).toEqual({ stdin: 'y\nn\n', args: ['--self-test', '--fast'] });
    expect(exampleTags('/** @ci-skip run by npm start */')).toEqual({ args: [], skip: 'run by npm start' });
    expect(exampleTags('console.log(1);')).toEqual({ args: [] });
  });
});

describe('npm run examples', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('runs every top-level file without the provider keys, feeds stdin, and names each failure and hang', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'run-examples-'));
    dirs.push(dir);
    await writeFile(
      join(dir, 'a-keys.ts'),
      'if (process.env.ANTHROPIC_API_KEY || process.env.GOOGLE_CLIENT_SECRET) process.exit(5);\n',
    );
    await writeFile(
      join(dir, 'b-stdin.ts'),
      "/** @ci-stdin y\\n */\nlet s = '';\nprocess.stdin.on('data', (d) => (s += d)).on('end', () => process.exit(s === 'y\\n' ? 0 : 4));\n",
    );
    await writeFile(join(dir, 'c-fails.ts'), 'process.exit(3);\n');
    await writeFile(join(dir, 'd-hangs.ts'), 'setInterval(() => undefined, 1000);\n');
    await writeFile(join(dir, 'e-skipped.ts'), '/** @ci-skip another step runs it */\nprocess.exit(9);\n');
    await mkdir(join(dir, 'helpers'));
    await writeFile(join(dir, 'helpers', 'f-not-an-example.ts'), 'process.exit(8);\n');

    const child = spawn(process.execPath, [RUNNER], {
      env: {
        ...process.env,
        EXAMPLES_DIR: dir,
        EXAMPLES_TIMEOUT_MS: '3000',
        ANTHROPIC_API_KEY: 'sk-ant-set',
        GOOGLE_CLIENT_SECRET: 'set',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));

    expect(code, output).toBe(1);
    expect(output).toMatch(/✓ \S*a-keys\.ts/);
    expect(output).toMatch(/✓ \S*b-stdin\.ts/);
    expect(output).toMatch(/✗ \S*c-fails\.ts failed after [\d.]+ s: it exited with code 3/);
    expect(output).toMatch(/✗ \S*d-hangs\.ts failed after [\d.]+ s: it did not end within 3 s/);
    expect(output).toMatch(/- \S*e-skipped\.ts: skipped \(another step runs it\)/);
    expect(output).not.toContain('f-not-an-example');
    expect(output).toMatch(/2 of 5 examples failed/);
  }, 30_000);
});
