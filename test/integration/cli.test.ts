import { randomUUID } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { AgentEvent } from '../../src/common/events.ts';
import { freePort } from '../../src/embedded/free-port.ts';
import { CLI_CONFIG, cliClusterEnv, runCli, startCli } from '../support/cli.ts';
import { APPROVED_TOOL_CALL_RUN, ONE_TOOL_CALL_RUN } from './helpers.ts';

let home: string;
/**
 * One `toolkit-agent worker` for the file, on the task queue of `workerEnv`: the checks of what `run`
 * prints run on it with `--no-worker` (a worker of their own costs each run 1.6 s of CPU more). The
 * runs whose own worker matters (the first ones, a cancel, approvals and authorization decided from
 * another process) keep a queue and a worker of their own; the last test of the first group checks
 * the worker itself and stops it.
 */
let worker: ReturnType<typeof startCli>;
let workerEnv: Record<string, string>;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'cli-run-'));
  workerEnv = clusterEnv();
  worker = startCli(['-c', CLI_CONFIG, 'worker', '--json'], { env: workerEnv });
  await worker.waitForLine(/taskQueue/);
});
afterAll(async () => {
  if (worker?.child.exitCode === null) worker.child.kill('SIGTERM');
  await worker?.exited;
  await rm(home, { recursive: true, force: true });
});

/** The CLI on the test run's dev server, in this file's home folder. */
const clusterEnv = (taskQueue?: string) => cliClusterEnv(home, taskQueue);

const parseLines = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as AgentEvent);

describe('toolkit-agent run and runs', () => {
  it('run --json prints the events as NDJSON and exits 0', async () => {
    const result = await runCli(['-c', CLI_CONFIG, 'run', 'please add 2 and 3', '--json'], {
      env: clusterEnv(),
    });
    expect(result.code, result.stderr).toBe(0);
    const events = parseLines(result.stdout);
    expect(events.map((e) => e.type)).toEqual(ONE_TOOL_CALL_RUN);
    expect(events.at(-1)!.payload.output).toBe('The sum is 5.');
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    // The first line names the run's workflow, so a script can record or follow it.
    const workflowId = events[0]!.payload.workflow_id as string;
    expect(workflowId).toMatch(/^agent-helper-/);
    const shown = await runCli(['runs', 'show', workflowId, '--json'], { env: clusterEnv() });
    expect(shown.code, shown.stderr).toBe(0);
  });

  it('run --output-schema prints the object as JSON; with --json it is in the last line; a bad file is a usage error', async () => {
    const schema = join(home, 'sum.schema.json');
    await writeFile(
      schema,
      JSON.stringify({ type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] }),
    );
    const env = workerEnv;
    const human = await runCli(
      ['-c', CLI_CONFIG, 'run', 'please add 2 and 3', '--output-schema', schema, '--no-worker'],
      { env },
    );
    expect(human.code, human.stderr).toBe(0);
    expect(JSON.parse(human.stdout)).toEqual({ sum: 5 });
    const json = await runCli(
      ['-c', CLI_CONFIG, 'run', 'please add 4 and 3', '--output-schema', schema, '--json', '--no-worker'],
      { env },
    );
    expect(json.code, json.stderr).toBe(0);
    expect(parseLines(json.stdout).at(-1)).toMatchObject({
      type: 'run_completed',
      payload: { output: { sum: 7 }, stop_reason: 'completed' },
    });
    await writeFile(join(home, 'broken.json'), '{ not json');
    const broken = await runCli(
      ['-c', CLI_CONFIG, 'run', 'please add 1 and 1', '--output-schema', join(home, 'broken.json')],
      { env },
    );
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/broken\.json is not JSON .*--output-schema takes a JSON Schema file/);

    // A schema the model's answer never matches: the last answer on stdout, the error, exit 1.
    const strict = join(home, 'text-sum.schema.json');
    await writeFile(
      strict,
      JSON.stringify({ type: 'object', properties: { sum: { type: 'string' } }, required: ['sum'] }),
    );
    const invalid = await runCli(
      ['-c', CLI_CONFIG, 'run', 'please add 1 and 2', '--output-schema', strict, '--no-worker'],
      { env },
    );
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/no answer matching its output schema after 3 attempt\(s\)/);
    expect(invalid.stdout).toMatch(
      /^You said: Your answer does not match the required JSON schema \(repair 2 of 2\)/,
    );
  });

  it('run prints the answer alone on standard output, progress on standard error, no escape codes when piped', async () => {
    const env = clusterEnv();
    const result = await runCli(['-c', CLI_CONFIG, 'run', 'please add 20 and 22'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('The sum is 42.\n');
    expect(result.stderr).toMatch(/✓ add \d+ ms {2}42/);
    expect(result.stderr).toMatch(/completed in [\d.]+s · 2 steps · 30 tokens · agent-helper-/);
    expect(result.stdout + result.stderr).not.toContain('\u001b');
    const id = /(agent-helper-[\w-]+)/.exec(result.stderr)![1]!;

    // The finished run, read by id from another process (no agent worker running any more).
    const show = await runCli(['runs', 'show', id, '--json'], { env });
    expect(show.code, show.stderr).toBe(0);
    expect(JSON.parse(show.stdout)).toMatchObject({
      workflow_id: id,
      status: 'COMPLETED',
      type: 'agentRun',
      output: 'The sum is 42.',
      metadata: { stop_reason: 'completed', iterations: 2 },
    });
    // Read from the run's result: no worker is started (a bundle that cannot load would break one).
    const noWorker = { ...env, TOOLKIT_AGENT_WORKFLOW_BUNDLE: join(home, 'no-such-bundle.cjs') };
    const events = await runCli(['runs', 'events', id, '--json'], { env: noWorker });
    expect(events.code, events.stderr).toBe(0);
    expect(parseLines(events.stdout).map((e) => e.type)).toEqual(ONE_TOOL_CALL_RUN);
    // Listed by agent on the config's task queue (visibility is eventually consistent).
    await expect
      .poll(
        async () => {
          const list = await runCli(['-c', CLI_CONFIG, 'runs', 'list', '--agent', 'helper', '--json'], {
            env,
          });
          return (JSON.parse(list.stdout || '[]') as Array<{ workflowId: string; kind: string }>).find(
            (run) => run.workflowId === id,
          );
        },
        { timeout: 20_000, interval: 500 },
      )
      .toMatchObject({ workflowId: id, kind: 'run', status: 'completed', agent: 'helper' });
    const human = await runCli(['runs', 'events', id], { env: noWorker });
    expect(human.stdout).toMatch(/^ {3}1 run_started +Run started: agent "helper"$/m);
    expect(human.stdout).toMatch(/^ {3}6 run_completed +Run completed$/m);

    const missing = await runCli(['runs', 'show', 'no-such-run'], { env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/No run no-such-run/);
  });

  it('runs events --follow prints a running run as it goes; runs cancel ends it, and run exits 1', async () => {
    const env = clusterEnv();
    const id = `cli-slow-${randomUUID()}`;
    const run = startCli(['-c', CLI_CONFIG, 'run', 'slow answer please', '--json', '--id', id], { env });
    const started = JSON.parse(await run.waitForLine(/"run_started"/)) as AgentEvent;
    expect(started.seq).toBe(1);
    const follow = startCli(['runs', 'events', id, '--follow', '--json'], { env });
    await follow.waitForLine(/"step_started"/);
    const cancel = await runCli(['runs', 'cancel', id], { env });
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(await run.exited).toBe(1);
    expect(JSON.parse(run.lines.at(-1)!)).toMatchObject({
      type: 'run_cancelled',
      payload: { stop_reason: 'cancelled', reason: 'cancelled from the command line' },
    });
    await follow.exited;
    const show = await runCli(['runs', 'show', id, '--json'], { env });
    expect(JSON.parse(show.stdout)).toMatchObject({
      workflow_id: id,
      status: 'COMPLETED',
      metadata: { stop_reason: 'cancelled' },
    });
  });

  it('run and runs show say which MCP servers a run went without, and why', async () => {
    const env = workerEnv;
    const run = await runCli(['-c', CLI_CONFIG, 'run', 'hello there', '--agent', 'offline', '--no-worker'], {
      env,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('You said: hello there\n');
    expect(run.stderr).toMatch(
      /! MCP servers left out of this run: "crm" \(Could not reach the MCP server "crm"/,
    );
    const id = /(agent-offline-[\w-]+)/.exec(run.stderr)![1]!;
    const show = await runCli(['runs', 'show', id], { env });
    expect(show.stdout).toMatch(/^unavailable_mcps: crm: Could not reach the MCP server "crm"/m);
    const json = JSON.parse((await runCli(['runs', 'show', id, '--json'], { env })).stdout) as {
      metadata: { unavailable_mcps: Array<{ server: string }> };
    };
    expect(json.metadata.unavailable_mcps.map((mcp) => mcp.server)).toEqual(['crm']);
  });

  it('FORCE_COLOR colours the progress even when piped; NO_COLOR wins over it', async () => {
    const forced = await runCli(['-c', CLI_CONFIG, 'run', 'please add 1 and 1', '--no-worker'], {
      env: { ...workerEnv, FORCE_COLOR: '1' },
    });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toContain(`${String.fromCharCode(27)}[32m✓`);
    expect(forced.stdout).toBe('The sum is 2.\n');
    const plain = await runCli(['-c', CLI_CONFIG, 'run', 'please add 1 and 1', '--no-worker'], {
      env: { ...workerEnv, FORCE_COLOR: '1', NO_COLOR: '1' },
    });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout + plain.stderr).not.toContain('\u001b');
  });

  it('run --json streams the answer as text_delta events that add up to it', async () => {
    const result = await runCli(['-c', CLI_CONFIG, 'run', 'hello streaming world', '--json', '--no-worker'], {
      env: workerEnv,
    });
    expect(result.code, result.stderr).toBe(0);
    const events = parseLines(result.stdout);
    const deltas = events.filter((e) => e.type === 'text_delta').map((e) => e.payload.text as string);
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.join('')).toBe('You said: hello streaming world');
    expect(events.at(-1)).toMatchObject({
      type: 'run_completed',
      payload: { output: 'You said: hello streaming world' },
    });
  });

  it('approvals: --approve-all approves; without a terminal the call waits for runs approve / runs reject', async () => {
    const env = clusterEnv();
    const all = await runCli(
      [
        '-c',
        CLI_CONFIG,
        'run',
        'add 3 and 4',
        '--agent',
        'careful',
        '--approve-all',
        '--json',
        '--no-worker',
      ],
      { env: workerEnv },
    );
    expect(all.code, all.stderr).toBe(0);
    expect(parseLines(all.stdout).map((e) => e.type)).toEqual(APPROVED_TOOL_CALL_RUN);

    for (const decision of ['approve', 'reject'] as const) {
      const id = `cli-approval-${decision}-${randomUUID()}`;
      const run = startCli(
        ['-c', CLI_CONFIG, 'run', 'add 3 and 4', '--agent', 'careful', '--id', id, '--json'],
        {
          env,
        },
      );
      const requested = JSON.parse(await run.waitForLine(/"approval_requested"/)) as AgentEvent;
      const call = requested.payload.call_id as string;
      const show = await runCli(['runs', 'show', id, '--json'], { env });
      expect(JSON.parse(show.stdout)).toMatchObject({
        status: 'RUNNING',
        pending_approvals: [{ call_id: call, tool: 'add', args: { a: 3, b: 4 } }],
      });
      const decided = await runCli(['runs', decision, id, call, '--json'], { env });
      expect(decided.code, decided.stderr).toBe(0);
      expect(JSON.parse(decided.stdout)).toEqual({
        workflow_id: id,
        call_id: call,
        approved: decision === 'approve',
      });
      expect(await run.exited).toBe(0);
      const types = run.lines.map((line) => (JSON.parse(line) as AgentEvent).type);
      expect(types).toContain(decision === 'approve' ? 'approval_granted' : 'approval_rejected');
      expect(types.includes('tool_completed')).toBe(decision === 'approve');
      expect(run.stderr).toContain(`toolkit-agent runs approve ${id} ${call}`);
      // A second decision of the same call is refused by the run: exit 1.
      expect((await runCli(['runs', decision, id, call], { env })).code).toBe(1);
    }
  });

  it('authorization: the live view and runs show print the URL to open; runs list marks the waiting run', async () => {
    const env = clusterEnv();
    const id = `cli-authorize-${randomUUID()}`;
    // An hour's wait: the run still waits when the test reads it, however slow the machine.
    const run = startCli(
      ['-c', CLI_CONFIG, 'run', 'read my mail', '--agent', 'waiting', '--id', id, '--json'],
      {
        env,
      },
    );
    await run.waitForLine(/"authorization_required"/);
    const show = await runCli(['runs', 'show', id], { env });
    expect(show.stdout).toMatch(
      /pending_authorizations:? +mail \(inbox\): open https:\/\/auth\.example\/authorize\?/,
    );
    const list = await runCli(['-c', CLI_CONFIG, 'runs', 'list'], { env });
    expect(list.stdout).toMatch(new RegExp(`${id} .*running \\(authorize mail\\)`));
    expect((await runCli(['runs', 'cancel', id], { env })).code).toBe(0);
    expect(await run.exited).toBe(1); // a cancelled run gave no answer
    const types = run.lines.map((line) => (JSON.parse(line) as AgentEvent).type);
    expect(types).toContain('authorization_required');
    expect(types.at(-1)).toBe('run_cancelled');

    const human = await runCli(
      ['-c', CLI_CONFIG, 'run', 'read my mail', '--agent', 'locked', '--no-worker'],
      {
        env: workerEnv,
      },
    );
    // Its one call was never authorized: the answer rests on no tool result, so the run exits 1, saying so.
    expect(human.code, human.stderr).toBe(1);
    expect(human.stderr).toMatch(/^error: every tool call of this run failed \(1\)/m);
    expect(human.stderr).toMatch(
      /inbox needs authorization of mail: open https:\/\/auth\.example\/authorize\?/,
    );
    expect(human.stderr).toMatch(/Not authorized: nobody authorized "mail" within 3 s/);
  });

  it('worker serves the config on its task queue; run --no-worker uses it; SIGTERM stops it', async () => {
    const env = workerEnv;
    const info = JSON.parse(await worker.waitForLine(/taskQueue/)) as { taskQueue: string; agents: string[] };
    expect(info).toMatchObject({
      taskQueue: env.CLI_TASK_QUEUE,
      agents: ['helper', 'careful', 'offline', 'locked', 'waiting', 'guarded'],
    });
    const result = await runCli(['-c', CLI_CONFIG, 'run', 'add 1 and 1', '--no-worker'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('The sum is 2.\n');
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  });
});

describe('toolkit-agent mcp serve', () => {
  it("offers the config's agents as run_<agent> tools over HTTP with the token from the environment", async () => {
    const token = `mcp-${randomUUID()}`;
    const env = { ...clusterEnv(), TOOLKIT_AGENT_MCP_TOKEN: token };
    const missing = await runCli(['-c', CLI_CONFIG, 'mcp', 'serve'], {
      env: { ...env, TOOLKIT_AGENT_MCP_TOKEN: '' },
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/Set TOOLKIT_AGENT_MCP_TOKEN/);
    const serve = startCli(['-c', CLI_CONFIG, 'mcp', 'serve', '--agent', 'helper', '--port', '0', '--json'], {
      env,
    });
    const client = new McpClient({ name: 'cli-test', version: '1.0.0' });
    try {
      const { url, tools } = JSON.parse(await serve.waitForLine(/"url"/)) as { url: string; tools: string[] };
      expect(tools).toEqual(['run_helper']);
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['run_helper']);
      const result = await client.callTool({ name: 'run_helper', arguments: { prompt: 'add 8 and 9' } });
      expect(result.content).toEqual([{ type: 'text', text: 'The sum is 17.' }]);
      expect((await fetch(url, { method: 'POST' })).status).toBe(401);
    } finally {
      await client.close();
      serve.child.kill('SIGTERM');
      expect(await serve.exited).toBe(0);
    }
  });
});

describe('toolkit-agent server', () => {
  it('keeps a database under the home folder, prints its address and UI, and the other commands find it', async () => {
    const serverHome = await mkdtemp(join(tmpdir(), 'cli-server-'));
    const env = {
      TOOLKIT_AGENT_HOME: serverHome,
      TOOLKIT_AGENT_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      CLI_TASK_QUEUE: `cli-${randomUUID()}`,
      TEMPORAL_ADDRESS: '',
    };
    const port = await freePort();
    const uiPort = await freePort();
    const server = startCli(['server', '--port', String(port), '--ui-port', String(uiPort), '--json'], {
      env,
    });
    try {
      const state = JSON.parse(await server.waitForLine(/"address"/)) as Record<string, string>;
      expect(state).toMatchObject({
        address: `127.0.0.1:${port}`,
        namespace: 'default',
        uiUrl: `http://127.0.0.1:${uiPort}`,
        db: join(serverHome, 'temporal.db'),
      });
      expect(existsSync(join(serverHome, 'temporal.db'))).toBe(true);
      let ui: Response | undefined;
      for (let attempt = 0; attempt < 20 && !ui?.ok; attempt++) {
        ui = await fetch(state.uiUrl!).catch(() => undefined);
        if (!ui?.ok) await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(ui?.status).toBe(200);
      const run = await runCli(['-c', CLI_CONFIG, 'run', 'add 4 and 5'], { env });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe('The sum is 9.\n');
      const id = /(agent-helper-[\w-]+)/.exec(run.stderr)![1]!;
      const show = await runCli(['runs', 'show', id, '--json'], { env });
      expect(JSON.parse(show.stdout)).toMatchObject({ status: 'COMPLETED', output: 'The sum is 9.' });
      // The toolkit's folder and what it keeps there (histories, conversations) are the owner's alone.
      const modes = Object.fromEntries(
        ['', 'temporal.db', 'memory.sqlite', 'server.json'].map((file) => [
          file || 'folder',
          (statSync(join(serverHome, file)).mode & 0o777).toString(8),
        ]),
      );
      expect(modes).toEqual({
        folder: '700',
        'temporal.db': '600',
        'memory.sqlite': '600',
        'server.json': '600',
      });
      const second = await runCli(['server', '--port', String(await freePort())], { env });
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(/already runs at 127.0.0.1:\d+/);
    } catch (error) {
      // Said with the server's own output: the checks after the stop would hide why it failed.
      server.child.kill('SIGTERM');
      await server.exited;
      await rm(serverHome, { recursive: true, force: true });
      throw new Error(`${(error as Error).message}\ntoolkit-agent server said:\n${server.stderr}`, {
        cause: error,
      });
    }
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(existsSync(join(serverHome, 'server.json'))).toBe(false);
    const noServer = await runCli(['runs', 'show', 'x'], { env });
    expect(noServer.code).toBe(1);
    expect(noServer.stderr).toMatch(/start one with `toolkit-agent server`/);
    await rm(serverHome, { recursive: true, force: true });
  }, 180_000);
});
