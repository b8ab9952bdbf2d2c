import { realpathSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gpuOverrides, updatePackageJson } from '../../src/cli/init-package.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../support/cli.ts';

let home: string;
let env: Record<string, string>;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'cli-home-'));
  env = { TOOLKIT_AGENT_HOME: home };
});
afterAll(() => rm(home, { recursive: true, force: true }));

const COMMANDS = [
  [],
  ['init'],
  ['run'],
  ['chat'],
  ['server'],
  ['worker'],
  ['runs'],
  ['runs', 'show'],
  ['runs', 'events'],
  ['runs', 'cancel'],
  ['runs', 'approve'],
  ['runs', 'reject'],
  ['creds'],
  ['creds', 'set'],
  ['creds', 'list'],
  ['creds', 'rm'],
  ['auth'],
  ['auth', 'google'],
  ['auth', 'slack'],
  ['skills'],
  ['skills', 'list'],
  ['skills', 'search'],
  ['skills', 'show'],
  ['skills', 'new'],
  ['skills', 'lint'],
  ['runs', 'list'],
  ['mcp'],
  ['mcp', 'serve'],
  ['model'],
  ['model', 'pull'],
];

describe('toolkit-agent: help and exit codes', { timeout: 120_000 }, () => {
  it('--help works on every command: usage on standard output, exit 0', async () => {
    const results = await Promise.all(COMMANDS.map((command) => runCli([...command, '--help'], { env })));
    results.forEach((result, i) => {
      const name = COMMANDS[i]!.join(' ') || '(root)';
      expect(result.code, name).toBe(0);
      expect(result.stdout, name).toMatch(new RegExp(`^Usage: toolkit-agent ${COMMANDS[i]!.join(' ')}`));
    });
  });

  it('exits 2 on usage mistakes: no command, an unknown command or option, a missing argument', async () => {
    for (const args of [[], ['bogus'], ['creds', 'list', '--bogus'], ['creds', 'set'], ['runs']]) {
      const result = await runCli(args, { env });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.length, args.join(' ')).toBeGreaterThan(0);
    }
    expect((await runCli(['creds', 'set', 'x', '--type', 'magic'], { env })).code).toBe(2);
  });

  it('exits 1 on a failure, with one line that says what to do', async () => {
    const result = await runCli(['run', 'hello'], { env, cwd: home });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/No toolkit-agent.config.ts .* Run `toolkit-agent init`/);
  });
});

describe('toolkit-agent creds', { timeout: 60_000 }, () => {
  const SECRET = 'sk-test-0123456789abcdef';

  it('reads the secret from standard input, stores it, and never prints it', async () => {
    const set = await runCli(
      ['creds', 'set', 'custom_api', '--meta', 'base_url=https://api.example', '--json'],
      {
        env,
        input: `${SECRET}\n`,
      },
    );
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({
      name: 'custom_api',
      type: 'bearer',
      expires_at: null,
      status: 'ok',
    });
    const file = JSON.parse(await readFile(join(home, 'credentials.json'), 'utf8')) as {
      tenants: Record<string, Record<string, unknown>>;
    };
    expect(file.tenants['']?.custom_api).toMatchObject({
      token: SECRET,
      metadata: { base_url: 'https://api.example' },
    });

    await runCli(['creds', 'set', 'old', '--type', 'api_key', '--meta', 'expires_at=2020-01-01T00:00:00Z'], {
      env,
      input: 'another-secret-value',
    });
    const list = await runCli(['creds', 'list', '--json'], { env });
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([
      { name: 'custom_api', type: 'bearer', expires_at: null, status: 'ok' },
      { name: 'old', type: 'api_key', expires_at: '2020-01-01T00:00:00Z', status: 'expired' },
    ]);
    const table = await runCli(['creds', 'list'], { env });
    expect(table.stdout).toMatch(/custom_api\s+bearer\s+-\s+ok/);
    expect(table.stdout).toMatch(/old\s+api_key\s+2020-01-01T00:00:00Z\s+expired/);
    for (const output of [set, list, table]) {
      expect(output.stdout + output.stderr).not.toContain(SECRET);
      expect(output.stdout + output.stderr).not.toContain('another-secret-value');
    }
  });

  it('keeps tenants apart, refuses an empty secret, and removes by name (1 when absent)', async () => {
    expect(
      (await runCli(['creds', 'set', 'mail', '--tenant', 'ada'], { env, input: 'ada-token' })).code,
    ).toBe(0);
    expect(
      JSON.parse((await runCli(['creds', 'list', '--tenant', 'ada', '--json'], { env })).stdout),
    ).toEqual([expect.objectContaining({ name: 'mail' })]);
    const empty = await runCli(['creds', 'set', 'blank'], { env, input: '' });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/No secret was given/);
    expect((await runCli(['creds', 'rm', 'mail', '--tenant', 'ada'], { env })).code).toBe(0);
    const again = await runCli(['creds', 'rm', 'mail', '--tenant', 'ada'], { env });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/No credential named mail for tenant ada/);
  });
});

describe('toolkit-agent init and skills', { timeout: 90_000 }, () => {
  it("in a project of one's own (as `npm init -y` leaves it): updates package.json and says what it changed", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cli-init-own-'));
    try {
      const own = {
        name: 'mine',
        version: '1.0.0',
        main: 'index.js',
        scripts: { test: 'echo "Error: no test specified" && exit 1' },
        type: 'commonjs',
        dependencies: { 'toolkit-agent': '^0.1.0' },
      };
      await writeFile(join(dir, 'package.json'), `${JSON.stringify(own, null, 2)}\n`);
      const init = await runCli(['init', '--dir', dir], { env });
      expect(init.code, init.stderr).toBe(0);
      const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as typeof own;
      expect(manifest).toMatchObject({ name: 'mine', type: 'module', scripts: own.scripts });
      expect(Object.keys(manifest.dependencies).sort()).toEqual([
        'ai',
        'node-llama-cpp',
        'toolkit-agent',
        'zod',
      ]);
      expect(manifest.dependencies['toolkit-agent']).toBe('^0.1.0');
      expect(init.stdout).toContain(`updated ${join(dir, 'package.json')}`);
      expect(init.stdout).toContain('"type": "module" (was "commonjs")');
      expect(init.stdout).toContain('dependencies: node-llama-cpp');
      expect(init.stdout).toContain("overrides: node-llama-cpp's GPU builds point at ./no-gpu");
      expect(init.stderr).toMatch(/^ {2}npm install +# /m);
      expect(init.stderr).not.toContain('add "type"');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("a template in a project of one's own: adds its scripts and packages, keeps a script of the same name", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cli-init-own-template-'));
    try {
      await writeFile(
        join(dir, 'package.json'),
        `${JSON.stringify({ name: 'mine', scripts: { start: 'node app.js' } }, null, 2)}\n`,
      );
      const init = await runCli(['init', '--dir', dir, '--template', 'chat', '--json'], { env });
      expect(init.code, init.stderr).toBe(0);
      const { changes, next } = JSON.parse(init.stdout) as { changes: string[]; next: string[] };
      expect(next).toEqual(['npm install']);
      expect(changes).toContain('kept your script "start" (the template\'s would be: node src/server.ts)');
      const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
        dependencies: Record<string, string>;
        devDependencies: Record<string, string>;
      };
      expect(manifest.scripts).toEqual({ start: 'node app.js', typecheck: 'tsc' });
      expect(Object.keys(manifest.dependencies)).toEqual(
        expect.arrayContaining(['toolkit-agent', 'node-llama-cpp', 'zod', 'ai']),
      );
      expect(Object.keys(manifest.devDependencies)).toEqual(expect.arrayContaining(['typescript']));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names the provider package of a key that is set, so npm install brings it', () => {
    const own = {
      type: 'module',
      dependencies: { 'toolkit-agent': '^0.1.0', 'node-llama-cpp': '^3.0.0', zod: '^4.0.0', ai: '^7.0.0' },
      overrides: gpuOverrides(),
    };
    const { text, changes } = updatePackageJson(JSON.stringify(own), {
      env: { ANTHROPIC_API_KEY: 'sk-test' },
    });
    expect(changes).toEqual(['dependencies: @ai-sdk/anthropic']);
    const { dependencies } = JSON.parse(text) as { dependencies: Record<string, string> };
    expect(dependencies['@ai-sdk/anthropic']).toMatch(/\d/);
    expect(updatePackageJson(JSON.stringify(own), { env: {} }).changes).toEqual([]);
  });

  it('writes a config and an example skill that the skills commands find, and refuses to overwrite', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cli-init-'));
    try {
      const init = await runCli(['init', '--dir', dir, '--json'], { env });
      expect(init.code).toBe(0);
      // An empty folder gets a package.json that makes the config loadable once `npm install` ran.
      expect(JSON.parse(init.stdout)).toMatchObject({ next: ['npm install'] });
      const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as {
        private: boolean;
        type: string;
        dependencies: Record<string, string>;
      };
      expect(manifest).toMatchObject({ private: true, type: 'module' });
      // Run from this clone: the project depends on the clone (a registry install would give ^version).
      expect(manifest.dependencies['toolkit-agent']).toBe(`file:${realpathSync(ROOT)}`);
      expect(JSON.parse(await readFile(join(dir, 'no-gpu', 'package.json'), 'utf8'))).toMatchObject({
        name: 'no-gpu',
      });
      expect(Object.keys(manifest.dependencies).sort()).toEqual([
        'ai',
        'node-llama-cpp',
        'toolkit-agent',
        'zod',
      ]);
      const config = await readFile(join(dir, 'toolkit-agent.config.ts'), 'utf8');
      expect(config).toContain("from 'toolkit-agent'");
      expect(config).toContain("new LocalLlamaModel({ modelPath, toolChoice: 'required' })");
      expect(config).toMatch(/defineConfig\(\{\s+agents: \{\s+assistant:/);
      expect((await runCli(['init', '--dir', dir], { env })).code).toBe(1);
      expect((await runCli(['init', '--dir', dir, '--force'], { env })).code).toBe(0);
      expect(await readFile(join(dir, 'package.json'), 'utf8')).toBe(
        `${JSON.stringify(manifest, null, 2)}\n`,
      );

      const list = await runCli(['skills', 'list', '--project', dir, '--json'], { env });
      expect(list.code).toBe(0);
      const skills = JSON.parse(list.stdout) as Array<{ id: string; source: string; path?: string }>;
      expect(skills.find((s) => s.id === 'example')).toMatchObject({
        source: 'project',
        path: join('.agents', 'skills', 'example', 'SKILL.md'),
      });
      expect(skills.length).toBeGreaterThan(1); // and the packaged catalog

      const found = await runCli(['skills', 'search', 'what is this project', '--project', dir, '--json'], {
        env,
      });
      expect((JSON.parse(found.stdout) as Array<{ id: string }>)[0]!.id).toBe('example');
      const show = await runCli(['skills', 'show', 'example', '--project', dir], { env });
      expect(show.stdout).toContain('## Skill: example');
      const clean = await runCli(['skills', 'lint', join(dir, '.agents', 'skills')], { env });
      expect(clean, clean.stderr).toMatchObject({ code: 0 });
      expect(clean.stdout).toMatch(/^✓ no errors in the skills under \S+\n$/);
      expect((await runCli(['skills', 'show', 'no-such-skill', '--project', dir], { env })).code).toBe(1);

      expect((await runCli(['skills', 'new', 'Release Notes', '--project', dir], { env })).code).toBe(0);
      const made = await readFile(join(dir, '.agents', 'skills', 'release-notes', 'SKILL.md'), 'utf8');
      expect(made).toMatch(/^---\nname: release-notes\n/);
      expect((await runCli(['skills', 'new', 'Release Notes', '--project', dir], { env })).code).toBe(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('prints no escape codes when the output is not a terminal, with NO_COLOR unset', async () => {
    const outputs = await Promise.all([runCli(['creds', 'list'], { env }), runCli(['bogus'], { env })]);
    for (const output of outputs) expect(output.stdout + output.stderr).not.toContain('\u001b[');
  });
});

describe('skills lint', () => {
  const fixture = new URL('../fixtures/skill-lint/', import.meta.url).pathname;

  it('reports every diagnostic with file and line, and exits 1 when one is an error', async () => {
    const env = { ...process.env, NO_COLOR: '1' };
    const text = await runCli(['skills', 'lint', fixture], { env });
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/SKILL\.md:\d+: error name-folder-mismatch: /);
    expect(text.stdout).toMatch(/SKILL\.md:\d+: warning duplicate-id: /);
    expect(text.stderr).toMatch(/\d+ error\(s\) in the skills checked/);
    const json = await runCli(['skills', 'lint', fixture, '--json'], { env });
    const diagnostics = JSON.parse(json.stdout) as Array<{ file: string; line: number; code: string }>;
    expect(diagnostics.length).toBe(text.stdout.trim().split('\n').length);
    const missing = diagnostics.find((d) => d.code === 'missing-file')!;
    expect(missing.file.startsWith(fixture)).toBe(true);
    expect(missing.line).toBeGreaterThan(0);
  }, 30_000); // two CLI processes: over vitest's 5 s default on a loaded machine
});

describe('a config with a syntax error', () => {
  it('numbers the lines around the caret and says the mistake may be earlier', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cli-syntax-'));
    try {
      const config = join(dir, 'toolkit-agent.config.ts');
      // The bracket left open on line 2 is noticed on line 3.
      await writeFile(config, 'export default {\n  agents: { tools: [1,\n  },\n};\n');
      const run = await runCli(['run', 'Hello!', '--config', config], { env: { NO_COLOR: '1' } });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^error: Could not load /m);
      expect(run.stderr).toContain(`${config}:3`);
      expect(run.stderr).toMatch(/^2 \| {3}agents: \{ tools: \[1,\n3 \| {3}\},\n {6}\^\n4 \| \};$/m);
      expect(run.stderr).toContain('left open on an earlier line');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
