import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installedNodeModules, pack } from '../../scripts/consumer-project.mjs';
import { exists } from '../../src/fs/probe.ts';
import { findTemporalCli } from '../../src/embedded/temporal-cli.ts';
import { findLocalModel, LOCAL_MODEL_FILE } from '../../src/models/local-model-file.ts';
import { ROOT } from '../support/cli.ts';
import { startCommand, startProgram, systemPath } from '../support/node-program.ts';

const model = await findLocalModel();
const temporal = await findTemporalCli({ install: false });
const skipped = !model
  ? 'no offline model (npm run model:local)'
  : !temporal
    ? 'no temporal CLI (npm run temporal:ensure)'
    : '';
if (skipped) console.warn(`Skipping the init templates from the packed package: ${skipped}.`);

/** An answer a person can read: words, not JSON, not an error, not cut off. */
function sensible(answer: unknown): boolean {
  return (
    typeof answer === 'string' &&
    /[a-z]{2,}/i.test(answer) &&
    !/[{}]|"(tool|answer)"|error|\[…\]/i.test(answer) &&
    answer.trim().length >= 3
  );
}

/**
 * Descriptions of the backend template's `Triage` fields, its own and those it once had: a summary
 * that repeats one says nothing about the ticket.
 */
const FIELD_DESCRIPTIONS = [
  'what the ticket says',
  'How urgent the ticket is',
  'The team that should handle it',
  'One sentence for the team',
];

/** A template's dependencies beyond toolkit-agent's own: linked from ours when missing, not downloaded again. */
const LINKED = ['node', 'node-llama-cpp', 'typescript', '@types/node', '@ai-sdk/anthropic', '@ai-sdk/openai'];

/** The system's Node first on PATH (Node 20 here): the templates' npm scripts must still run. */
const SYSTEM_PATH = systemPath();

/**
 * Each template as a user gets it: `toolkit-agent init --template <name>` from the packed package
 * (installed once in the parent folder, which the three projects resolve it from), the project
 * type-checked with its own tsconfig.json, then started with `npm start`'s command on the offline
 * model, used once the way its printed "Next:" says, and stopped with Ctrl-C.
 */
describe.skipIf(skipped)('toolkit-agent init --template (packed package, offline model)', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cli-init-templates-'));
    const tarball = pack(dir);
    await writeFile(join(dir, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
    // The package as `npm install <tarball>` installs it: check:consumer's, when CI kept it, else our own.
    const installed = installedNodeModules(tarball);
    if (installed) await symlink(installed, join(dir, 'node_modules'), 'dir');
    else {
      const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', tarball], {
        cwd: dir,
        encoding: 'utf8',
      });
      expect(install.status, install.stderr).toBe(0);
    }
    console.log(`toolkit-agent installed ${installed ? `by check:consumer (${installed})` : 'here'}.`);
    const systemNode = spawnSync('node', ['--version'], { encoding: 'utf8', env: { PATH: SYSTEM_PATH } });
    console.log(
      `The templates' npm scripts run with ${systemNode.stdout.trim() || 'no Node'} first on PATH.`,
    );
    env = { TOOLKIT_AGENT_HOME: join(dir, 'home'), ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', PORT: '0' };
  }, 300_000);
  afterAll(async () => {
    // check:consumer's project is left as it was: the package installed alone.
    for (const link of linked) await rm(link, { force: true });
    await rm(dir, { recursive: true, force: true });
  });

  /** The links {@link linkDependencies} made (in check:consumer's node_modules when CI kept it). */
  const linked: string[] = [];
  let linking: Promise<void> | undefined;

  /**
   * Links the templates' dependencies beyond toolkit-agent's own (LINKED) from ours, and the project's
   * Node as `npm install` makes of the templates' `node` devDependency: once, at the first init, so
   * that the test before it finds the package installed alone.
   */
  function linkDependencies(): Promise<void> {
    linking ??= (async () => {
      for (const name of LINKED) {
        const link = join(dir, 'node_modules', name);
        if (await exists(link)) continue;
        await symlink(join(ROOT, 'node_modules', name), link);
        linked.push(link);
      }
      const nodeBin = join(dir, 'node_modules', '.bin', 'node');
      if (!(await exists(nodeBin))) {
        await symlink('../node/bin/node', nodeBin);
        linked.push(nodeBin);
      }
    })();
    return linking;
  }

  it('model pull with the package installed alone: says to install node-llama-cpp, then finds the model', async () => {
    // A user cache holding the model (a link to the one CI fetched), as the first run's test has.
    const cache = join(dir, 'cache');
    await mkdir(join(cache, 'models'), { recursive: true });
    await symlink(model!, join(cache, 'models', LOCAL_MODEL_FILE));
    const pull = await startProgram(
      [join(dir, 'node_modules', 'toolkit-agent', 'dist', 'cli', 'main.js'), 'model', 'pull'],
      { ...env, TOOLKIT_AGENT_CACHE_DIR: cache },
      dir,
    ).exit(30_000);
    expect(pull.code, pull.output).toBe(0);
    // node-llama-cpp is an optional peer dependency: said before a 250 MB download, not at the first run.
    expect(pull.output).toContain('npm install node-llama-cpp');
    expect(pull.output).toContain(join(cache, 'models', LOCAL_MODEL_FILE));
    expect(pull.output).not.toMatch(/Fetching the local model/);
  });

  /**
   * `toolkit-agent init` of the installed package, then `tsc` in the project it wrote; answers the
   * program its `npm start` runs.
   */
  async function init(template: string): Promise<string> {
    await linkDependencies();
    const project = join(dir, template);
    const cli = join(dir, 'node_modules', 'toolkit-agent', 'dist', 'cli', 'main.js');
    const written = await startProgram(
      [cli, 'init', '--template', template, '--dir', project],
      env,
      dir,
    ).exit(30_000);
    expect(written.code, written.output).toBe(0);
    expect(written.output).toMatch(/npm install[\s\S]*npm start/);
    const manifest = JSON.parse(await readFile(join(project, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    // The project brings its own Node: npm runs its scripts on Node 24 whatever the system's is.
    expect(manifest.devDependencies.node).toMatch(/^\^24\./);
    const version = await npm(template, ['exec', '--', 'node', '--version']).exit(30_000);
    expect(version.output.trim()).toMatch(/^v24\./);
    const checked = await startProgram(
      [join(dir, 'node_modules', 'typescript', 'bin', 'tsc')],
      env,
      project,
    ).exit(120_000);
    expect(checked.code, checked.output).toBe(0);
    return manifest.scripts.start!.replace(/^node /, '');
  }

  /** `npm <args>` in a template's project, with the system's Node first on PATH. */
  function npm(template: string, args: string[]) {
    return startCommand('npm', args, { ...env, PATH: SYSTEM_PATH }, join(dir, template));
  }

  /**
   * Starts the project's `npm start` program (itself, so Ctrl-C reaches it as it would in a
   * terminal); answers it and the first match of `pattern`.
   */
  async function start(template: string, main: string, pattern: RegExp) {
    const program = startProgram([main], env, join(dir, template));
    await program.waitFor(pattern, 120_000);
    return { program, url: pattern.exec(program.output)![1]! };
  }

  async function stop(program: ReturnType<typeof startProgram>): Promise<void> {
    program.child.kill('SIGINT');
    const end = await program.exit(30_000);
    expect(end.hung, end.output).toBe(false);
    expect(end.code, end.output).toBe(0);
  }

  it('backend: the service answers 202 with a run id, then the run typed by the schema', async () => {
    const main = await init('backend');
    const { program, url } = await start('backend', main, /Service at (http:\S+?);/);
    const started = await fetch(`${url}/tickets/7/triage`, { method: 'POST' });
    expect(started.status).toBe(202);
    const { run } = (await started.json()) as { run: string };
    const result = await fetch(`${url}/runs/${run}`);
    const body = (await result.json()) as Record<string, unknown>;
    // The offline model reads the ticket, then answers with the object (in two steps, not out of iterations).
    expect(result.status, JSON.stringify(body)).toBe(200);
    expect(body.priority).toMatch(/^(low|medium|high)$/);
    expect(body.team).toMatch(/^(billing|search|accounts)$/);
    expect(sensible(body.summary), String(body.summary)).toBe(true);
    // A sentence about the ticket, not the schema's description of a field.
    for (const description of FIELD_DESCRIPTIONS)
      expect(String(body.summary).toLowerCase()).not.toContain(description.toLowerCase());
    expect(body.summary).not.toMatch(/no (such )?ticket/i);
    console.log(`backend summary: ${String(body.summary)}`);
    await stop(program);
  }, 300_000);

  it('chat: the page, then one message streamed over SSE to its answer', async () => {
    const main = await init('chat');
    const { program, url } = await start('chat', main, /Chat at (http:\S+)/);
    expect(await (await fetch(url)).text()).toContain('new EventSource');
    const stream = await (await fetch(`${url}chat?session=test&message=What%20time%20is%20it%3F`)).text();
    expect(stream).toMatch(/"type":"tool_called"[\s\S]*"type":"run_completed"[\s\S]*event: end/);
    const completed = stream
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)) as { type: string; payload: { output?: unknown } })
      .find((event) => event.type === 'run_completed');
    // The clock's answer, in words: the time it read (this year), not the model's JSON.
    expect(sensible(completed?.payload.output), String(completed?.payload.output)).toBe(true);
    expect(String(completed?.payload.output)).toContain(String(new Date().getUTCFullYear()));
    expect(program.output.match(/Using the offline model/g)).toHaveLength(1);
    await stop(program);
  }, 300_000);

  it('triggers: a signed event (npm run send-event) starts a run that calls its tool', async () => {
    const main = await init('triggers');
    const { program, url } = await start('triggers', main, /Webhooks at (http:\S+?);/);
    const sent = await npm('triggers', ['run', '--silent', 'send-event', '--', url]).exit(30_000);
    expect(sent.code, sent.output).toBe(0);
    expect(sent.output).toMatch(/^200 \{"started":"trigger-events-/);
    await program.waitFor(/\[notify\]/, 120_000);
    // What the team is told: a sentence of the model's, not the event's JSON echoed.
    const told = /\[notify\] (.*)/.exec(program.output)![1]!;
    expect(sensible(told), told).toBe(true);
    expect(told).not.toMatch(/^An event arrived/);
    console.log(`triggers notice: ${told}`);
    await stop(program);
  }, 300_000);

  it('an unknown template is refused with the valid names', async () => {
    const cli = join(dir, 'node_modules', 'toolkit-agent', 'dist', 'cli', 'main.js');
    const refused = await startProgram(
      [cli, 'init', '--template', 'web', '--dir', join(dir, 'web')],
      env,
      dir,
    ).exit(30_000);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain('There is no template "web"');
    for (const name of ['backend', 'chat', 'triggers']) expect(refused.output).toContain(name);
  });
});
