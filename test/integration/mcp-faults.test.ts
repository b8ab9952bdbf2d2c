import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSkill } from '../../src/skills/index.ts';
import { FAULT_SERVER } from '../support/mcp-servers.ts';
import { queuedModel } from '../support/queued-model.ts';
import { collect, startTestWorker, type TestWorker } from './helpers.ts';

/** Our fault-staging MCP server (test/support/mcp-fault-server.ts), a real child process. */
describe('MCP calls whose answer is lost, list changes and skills', () => {
  let dir: string;
  let env: TestWorker;
  const faults = queuedModel();
  const skilled = queuedModel();

  const calls = async (tool: string): Promise<number> => {
    const log = await readFile(join(dir, 'calls.log'), 'utf8').catch(() => '');
    return log
      .split('\n')
      .filter(Boolean)
      .filter((line) => (JSON.parse(line) as { tool: string }).tool === tool).length;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcp-faults-'));
    const server = { command: process.execPath, args: [FAULT_SERVER, dir] };
    env = await startTestWorker({
      faults: { llm: faults, mcpServers: { journal: server } },
      skilled: {
        llm: skilled,
        mcpServers: { files: { ...server, skillsOnly: true } },
        autoProjectSkills: false,
      },
    });
  });
  afterAll(async () => {
    await env?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('calls a tool that is neither read-only nor idempotent once when its answer is lost, and reports it', async () => {
    await writeFile(join(dir, 'drop-append_line'), '');
    faults.push(
      { toolCalls: [{ name: 'journal_append_line', args: { line: 'pay invoice 17' }, id: 'append' }] },
      { text: 'Could not confirm.' },
    );
    const handle = await env.agents.start('faults', 'Note that invoice 17 is paid.');
    const events = await collect(handle.events());
    await handle.result();
    const failed = events.find((e) => e.type === 'tool_failed');
    expect(failed?.payload.call_id).toBe('append');
    expect(String(failed?.payload.error)).toMatch(
      /may have run calling append_line, but its answer was lost/,
    );
    expect(await calls('append_line')).toBe(1);
  });

  it('retries a read-only tool whose answer was lost', async () => {
    await writeFile(join(dir, 'drop-read_lines'), '');
    faults.push({ toolCalls: [{ name: 'journal_read_lines', args: {}, id: 'read' }] }, { text: 'Read.' });
    const handle = await env.agents.start('faults', 'Read the journal.');
    const events = await collect(handle.events());
    await handle.result();
    expect(events.find((e) => e.type === 'tool_completed')?.payload.output).toBe('journal: 3 lines');
    expect(events.some((e) => e.type === 'tool_failed')).toBe(false);
    expect(await calls('read_lines')).toBe(2);
    // The dead server was started again and asked once more within the same call, not by a retry.
    const history = await handle.workflow.fetchHistory();
    const attempts = history.events!.flatMap((e) => e.activityTaskStartedEventAttributes?.attempt ?? []);
    expect(Math.max(...attempts)).toBe(1);
  });

  it('lists again after the server announces that its tools changed', async () => {
    faults.push({ toolCalls: [{ name: 'journal_unlock', args: {}, id: 'unlock' }] }, { text: 'Unlocked.' });
    await (await env.agents.start('faults', 'Unlock.')).result();
    const before = faults.calls.at(-1)!.tools.map((t) => t.function.name);
    expect(before).not.toContain('journal_secret_door');

    faults.push({ toolCalls: [{ name: 'journal_secret_door', args: {}, id: 'door' }] }, { text: 'Open.' });
    const handle = await env.agents.start('faults', 'Open the door.');
    const events = await collect(handle.events());
    expect(faults.calls.at(-1)!.tools.map((t) => t.function.name)).toContain('journal_secret_door');
    expect(events.find((e) => e.type === 'tool_completed')?.payload.output).toBe('The door is open.');
  });

  it('offers a skillsOnly server only when a selected skill names it, and reports names it does not have', async () => {
    const skill = {
      ...createSkill({ name: 'Journal keeper', description: 'Keeps the journal' }),
      mcps: ['files', 'calendar'],
    };
    skilled.push(
      { toolCalls: [{ name: 'files_read_lines', args: {}, id: 'without' }] },
      { text: 'No files.' },
      { toolCalls: [{ name: 'files_read_lines', args: {}, id: 'with' }] },
      { text: 'Read them.' },
    );
    const plain = await env.agents.start('skilled', 'Read the journal.');
    const plainEvents = await collect(plain.events());
    const plainResult = await plain.result();
    expect(skilled.calls[0]!.tools.map((t) => t.function.name)).toEqual([]);
    expect(plainEvents.find((e) => e.type === 'tool_failed')?.payload.error).toMatch(
      /There is no tool named "files_read_lines"/,
    );
    expect(plainResult.metadata.unavailable_skill_mcps).toEqual([]);

    const withSkill = await env.agents.start('skilled', 'Read the journal.', { skills: [skill] });
    const events = await collect(withSkill.events());
    const result = await withSkill.result();
    expect(skilled.calls[2]!.tools.map((t) => t.function.name).sort()).toEqual([
      'files_append_line',
      'files_read_lines',
      'files_unlock',
    ]);
    expect(events.find((e) => e.type === 'tool_completed')?.payload.output).toBe('journal: 3 lines');
    expect(result.metadata.used_skills).toEqual([skill.id]);
    expect(result.metadata.used_skill_tools).toContain('files_read_lines');
    expect(result.metadata.unavailable_skill_mcps).toEqual(['calendar']);
  });
});
