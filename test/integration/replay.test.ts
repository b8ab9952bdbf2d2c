import { readdir, readFile } from 'node:fs/promises';
import { Worker } from '@temporalio/worker';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { workflowSpanSinks } from '../../src/telemetry/workflow-span-sink.ts';
import { buildAgentWorkflowBundle } from '../../src/workflow-bundle.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';
import { AddTool } from './tools.ts';

/**
 * Runs and chat sessions in flight survive an upgrade of the workers: histories recorded with the
 * workflow code of an earlier version (test/fixtures/histories/record.ts) replay with today's bundle
 * without a nondeterminism error. A change to what the workflows schedule must go behind `patched()`.
 */
/** The bundle the tests' workers run, with the span sink of its interceptors (dropping: a replay exports nothing). */
const replayOptions = () => ({
  workflowBundle: { codePath: inject('workflowBundlePath') },
  sinks: workflowSpanSinks(undefined, () => undefined),
});
const HISTORIES = new URL('../fixtures/histories/', import.meta.url);
const versions = (await readdir(HISTORIES, { withFileTypes: true }))
  .filter((e) => e.isDirectory())
  .map((e) => e.name);
/** Each kind of run test/fixtures/histories/record.ts records, by file, with its workflow id. */
const RUNS: Record<string, string> = {
  'agent-run.json': 'replay-agent-run',
  'chat-session.json': 'chat-replay-chat',
  'deep-agent-run.json': 'replay-deep-run',
  'plain.json': 'replay-plain',
  'sub-agents.json': 'replay-boss',
  'structured.json': 'replay-structured',
  'authorization-wait.json': 'replay-mailer',
  'rate-limited.json': 'replay-limited',
  'poller.json': 'poller-replay',
};
/** The histories of a folder: the older folders hold the first three kinds only. */
const recorded = async (version: string): Promise<Array<[string, string]>> =>
  (await readdir(new URL(`${version}/`, HISTORIES))).map((file) => {
    const workflowId = RUNS[file];
    if (!workflowId) throw new Error(`${version}/${file} is no kind of run record.ts records`);
    return [file, workflowId];
  });
const folders = await Promise.all(
  versions.map(async (version) => [version, await recorded(version)] as const),
);

it('keeps a history of every kind of run recorded by the current code (the compatibility floor)', () => {
  const kinds = folders.map(([, files]) => files.length);
  expect(Math.max(...kinds)).toBe(Object.keys(RUNS).length);
});

describe.each(folders)('histories recorded at %s replay with the current workflow code', (version, files) => {
  for (const [file, workflowId] of files) {
    it(file, async () => {
      const history: unknown = JSON.parse(await readFile(new URL(`${version}/${file}`, HISTORIES), 'utf8'));
      await expect(Worker.runReplayHistory(replayOptions(), history, workflowId)).resolves.toBeUndefined();
    });
  }
});

/**
 * Workers with telemetry off run the workflows without the tracing interceptors: the histories a
 * traced worker recorded replay there too (tracing adds headers and spans, never commands).
 */
describe('histories replay with the workflow bundle without tracing', () => {
  let untraced: { code: string } | undefined;
  const bundle = async () => (untraced ??= await buildAgentWorkflowBundle({ tracing: false }));
  for (const version of versions) {
    it(`${version}/agent-run.json and chat-session.json`, async () => {
      for (const [file, workflowId] of [
        ['agent-run.json', 'replay-agent-run'],
        ['chat-session.json', 'chat-replay-chat'],
      ] as const) {
        const history: unknown = JSON.parse(await readFile(new URL(`${version}/${file}`, HISTORIES), 'utf8'));
        await expect(
          Worker.runReplayHistory({ workflowBundle: await bundle() }, history, workflowId),
        ).resolves.toBeUndefined();
      }
    }, 120_000);
  }
});

/**
 * A run read by query before its first timer and refused an update in its validator: both check SDK
 * flags outside a workflow task that history keeps (src/workflows/sdk-flags.ts). Its history must
 * still replay, or a worker that rebuilds the run later fails it with a nondeterminism error.
 */
describe('a run queried and refused an update before it waited replays', () => {
  let env: TestWorker;
  afterAll(async () => env?.stop());

  it('replays the history of an approval that was read, refused once and then rejected', async () => {
    env = await startTestWorker({
      agent: {
        llm: new ScriptedModel([
          { toolCalls: [{ name: 'add', args: { a: 1, b: 2 }, id: 'add_1' }] },
          { text: 'I was not allowed to add.' },
        ]),
        tools: [new AddTool({ needsApproval: true })],
      },
    });
    const handle = await env.agents.start('agent', 'Add 1 and 2');
    for await (const event of handle.events()) if (event.type === 'approval_requested') break;
    await expect(handle.approve('nope')).rejects.toThrow(/No tool call "nope"/);
    await handle.reject('add_1', 'not today');
    expect((await handle.result()).output).toBe('I was not allowed to add.');
    const history = await env.client.workflow.getHandle(handle.workflowId).fetchHistory();
    await expect(Worker.runReplayHistory(replayOptions(), history)).resolves.toBeUndefined();
  });
});
