import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { AgentEvent } from '../../src/common/events.ts';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import { ScriptedModel, type ScriptedStep } from '../../src/models/scripted.ts';
import { a2aClient } from '../support/a2a-client.ts';
import { historyText, startTestWorker, type TestWorker } from './helpers.ts';
import { startNodeProcess, type NodeProcess } from './processes.ts';

const TOKEN = `a2a-remote-token-${randomUUID()}`;

/** The remote task a tool call starts: its message id comes from the run and the call id. */
function remoteTaskId(workflowId: string, callId: string): string {
  return `a2a~weather~${createHash('sha256').update(`${workflowId}:${callId}`).digest('hex').slice(0, 32)}`;
}

describe('a remote A2A agent as a sub-agent, in another process', () => {
  let dir: string;
  let remote: NodeProcess;
  let url: string;
  let parent: TestWorker;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'a2a-remote-'));
    remote = startNodeProcess('test/fixtures/a2a-worker.ts', {
      MODE: 'serve',
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      TASK_QUEUE: `a2a-remote-${randomUUID()}`,
      MEMORY_DB: join(dir, 'memory.sqlite'),
      A2A_TOKEN: TOKEN,
    });
    url = (await remote.waitForLine(/^URL /)).slice('URL '.length);
    const credentialStore = new InMemoryCredentialStore();
    await credentialStore.put({ name: 'weather-a2a', type: 'bearer', token: TOKEN });
    // The planner asks `weather` for what its prompt names, then answers with what it was told.
    const step = (request: ModelRequest): ScriptedStep => {
      const last = request.messages.at(-1)!;
      if (last.role === 'tool') return { text: `Weather: ${last.content}` };
      return {
        toolCalls: [{ name: 'agent_weather', args: { task: String(last.content) }, id: 'weather-1' }],
      };
    };
    parent = await startTestWorker({
      planner: {
        llm: new ScriptedModel(Array.from({ length: 20 }, () => step)),
        credentialStore,
        subAgents: {
          weather: {
            a2a: { url, credentialKey: 'weather-a2a', pollIntervalMs: 200 },
            description: 'Knows the weather.',
          },
        },
        autoProjectSkills: false,
      },
    });
  });
  afterAll(async () => {
    await parent?.stop();
    remote?.child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('calls the remote agent as agent_weather, a child run that sends one A2A task; its events are woven in', async () => {
    const handle = await parent.agents.startRun('planner', 'Paris');
    const events: AgentEvent[] = [];
    for await (const event of handle.events()) events.push(event);
    const result = await handle.result();
    expect(result.output).toBe('Weather: Sunny in Paris');
    const call = events.find((e) => e.type === 'tool_called' && e.payload.tool === 'agent_weather')!;
    const child = String(call.payload.child_run);
    expect(child).toContain('weather-1');

    // The child's call of the remote agent, woven into the parent's stream between its call and result.
    const remoteCall = events.findIndex(
      (e) => e.type === 'tool_completed' && e.payload.sub_run === child && e.payload.tool === 'a2a_send',
    );
    const parentResult = events.findIndex(
      (e) =>
        e.type === 'tool_completed' && e.payload.tool === 'agent_weather' && e.payload.sub_run === undefined,
    );
    expect(remoteCall).toBeGreaterThan(events.indexOf(call));
    expect(parentResult).toBeGreaterThan(remoteCall);
    const id = remoteTaskId(child, 'a2a-send');
    expect(events[remoteCall]!.payload).toMatchObject({
      agent: 'planner.weather',
      metadata: { remote_task_id: id, state: 'TASK_STATE_COMPLETED' },
    });

    const client = await a2aClient(url, TOKEN);
    expect((await client.getTask({ tenant: '', id })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    for (const workflow of [handle.workflow, parent.client.workflow.getHandle(child)]) {
      expect(await historyText(workflow)).not.toContain(TOKEN);
    }
  });

  it('cancelling the parent run cancels the remote task', async () => {
    const handle = await parent.agents.startRun('planner', 'slow city');
    let child: string | undefined;
    for await (const event of handle.events()) {
      if (event.type === 'tool_called' && event.payload.tool === 'agent_weather') {
        child = String(event.payload.child_run);
        break;
      }
    }
    const client = await a2aClient(url, TOKEN);
    const id = remoteTaskId(child!, 'a2a-send');
    await expect
      .poll(async () => (await client.getTask({ tenant: '', id }).catch(() => undefined))?.status?.state, {
        timeout: 45_000,
      })
      .toBe(TaskState.TASK_STATE_WORKING);
    await handle.cancel('the user left');
    expect((await handle.result()).metadata.stop_reason).toBe('cancelled');
    await expect
      .poll(async () => (await client.getTask({ tenant: '', id })).status?.state, { timeout: 45_000 })
      .toBe(TaskState.TASK_STATE_CANCELED);
  }, 120_000);
});
