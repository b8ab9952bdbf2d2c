import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { ChatTool } from '../../src/tools/slack/chat.ts';
import { IssueTrackerTool } from '../../src/tools/linear/issue-tracker.ts';
import { NotesTool } from '../../src/tools/notion/notes.ts';
import { ProjectTrackerTool } from '../../src/tools/atlassian/project-tracker.ts';
import { WikiTool } from '../../src/tools/atlassian/wiki.ts';
import { json, startRecordingServer, type RecordingServer } from '../support/http-server.ts';
import { LINEAR_SCHEMA_AVAILABLE, startLinearServer } from '../support/providers/linear-server.ts';
import { collect, historyText, startTestWorker, type TestWorker } from './helpers.ts';

const TOKENS = {
  chat: 'xoxb-canary-chat-0001',
  issue_tracker: 'lin_api_canary_0002',
  project_tracker: 'jira-canary-0003',
  notes: 'ntn_canary_0004',
  wiki: 'conf-canary-0005',
};

describe.skipIf(!LINEAR_SCHEMA_AVAILABLE)('the five team connectors in one real agent run', () => {
  const servers: RecordingServer[] = [];
  let env: TestWorker;
  let linear: Awaited<ReturnType<typeof startLinearServer>>;
  let notion: RecordingServer;
  let confluence: RecordingServer;
  let notionLimited = true;

  beforeAll(async () => {
    const slack = await startRecordingServer((request, response) => {
      if (request.headers.authorization !== `Bearer ${TOKENS.chat}`)
        return json(response, 200, { ok: false, error: 'invalid_auth' });
      json(response, 200, { ok: true, channel: 'C0OPS', ts: '1795300001.000200' });
    });
    linear = await startLinearServer({ loseFirstCreateAnswer: true });
    const jira = await startRecordingServer((_request, response) =>
      json(response, 200, {
        issues: [{ id: '1', key: 'OPS-1', fields: { summary: 'Pager noise', status: { name: 'Open' } } }],
        isLast: true,
      }),
    );
    notion = await startRecordingServer((request, response) => {
      if (notionLimited) {
        notionLimited = false;
        return json(
          response,
          429,
          { object: 'error', status: 429, code: 'rate_limited', message: 'Rate limited' },
          { 'retry-after': '1' },
        );
      }
      const cursor = (JSON.parse(request.body) as { start_cursor?: string }).start_cursor;
      const page = (id: string, title: string) => ({
        object: 'page',
        id,
        properties: { title: { type: 'title', title: [{ plain_text: title }] } },
      });
      json(
        response,
        200,
        cursor
          ? { results: [page('n2', 'Postmortem 2')], has_more: false, next_cursor: null }
          : { results: [page('n1', 'Postmortem 1')], has_more: true, next_cursor: 'c2' },
      );
    });
    confluence = await startRecordingServer((request, response) => {
      const second = request.query.get('cursor') === 'next-1';
      json(response, 200, {
        results: [
          { content: { id: second ? '2' : '1', type: 'page', title: second ? 'Deploys II' : 'Deploys I' } },
        ],
        _links: second ? {} : { next: '/rest/api/search?cql=x&cursor=next-1' },
      });
    });
    servers.push(slack, linear, jira, notion, confluence);

    const store = new InMemoryCredentialStore();
    const base = (server: RecordingServer) => ({ base_url: server.url });
    await store.put({ name: 'chat', type: 'oauth2', token: TOKENS.chat, metadata: base(slack) });
    await store.put({
      name: 'issue_tracker',
      type: 'api_key',
      token: TOKENS.issue_tracker,
      metadata: base(linear),
    });
    await store.put({
      name: 'project_tracker',
      type: 'api_key',
      token: TOKENS.project_tracker,
      metadata: { ...base(jira), email: 'ada@example.com', edition: 'cloud' },
    });
    await store.put({ name: 'notes', type: 'api_key', token: TOKENS.notes, metadata: base(notion) });
    await store.put({
      name: 'wiki',
      type: 'api_key',
      token: TOKENS.wiki,
      metadata: { ...base(confluence), email: 'ada@example.com', edition: 'cloud' },
    });

    const llm = new ScriptedModel([
      {
        toolCalls: [
          { name: 'chat', args: { action: 'post', channel: 'C0OPS', text: 'Incident opened' }, id: 't_chat' },
          {
            name: 'issue_tracker',
            args: { action: 'create', team_id: 'team-eng', title: 'Pager noise' },
            id: 't_issue',
          },
          { name: 'project_tracker', args: { action: 'search', query: 'pager' }, id: 't_jira' },
          { name: 'notes', args: { action: 'search', query: 'postmortem' }, id: 't_notes' },
          { name: 'wiki', args: { action: 'search', query: 'deploys' }, id: 't_wiki' },
        ],
      },
      { text: 'All done.' },
    ]);
    env = await startTestWorker({
      team: {
        llm,
        credentialStore: store,
        tools: [
          new ChatTool(),
          new IssueTrackerTool(),
          new ProjectTrackerTool(),
          new NotesTool(),
          new WikiTool(),
        ],
        timeouts: { toolMaxAttempts: 3 },
      },
    });
  });
  afterAll(async () => {
    await env?.stop();
    for (const server of servers) await server.close();
  });

  it('runs every connector, retries safely, pages through results, and leaks no token', async () => {
    const handle = await env.agents.start('team', 'Open the incident everywhere');
    const events = await collect(handle.events());
    expect((await handle.result()).output).toBe('All done.');
    expect(events.filter((e) => e.type === 'tool_failed').map((e) => e.payload)).toEqual([]);
    const completed: Record<string, string> = Object.fromEntries(
      events
        .filter((e) => e.type === 'tool_completed')
        .map((e) => [String(e.payload.call_id), String(e.payload.output)]),
    );
    expect(Object.keys(completed).sort()).toEqual(['t_chat', 't_issue', 't_jira', 't_notes', 't_wiki']);
    expect(completed.t_issue).toMatch(/^Created ENG-3: Pager noise/);
    expect(linear.issues.filter((issue) => issue.title === 'Pager noise')).toHaveLength(1); // the retried create made no second one
    expect(completed.t_notes).toBe('Postmortem 1 (id n1)\nPostmortem 2 (id n2)');
    expect(notion.requests).toHaveLength(3);
    expect(notion.requests[1]!.receivedAt - notion.requests[0]!.receivedAt).toBeGreaterThanOrEqual(950); // Retry-After honoured
    expect(completed.t_wiki).toBe('Deploys I (id 1)\nDeploys II (id 2)');

    const seen = (await historyText(handle.workflow)) + JSON.stringify(events);
    for (const token of Object.values(TOKENS)) {
      expect(seen).not.toContain(token);
      expect(seen).not.toContain(Buffer.from(`ada@example.com:${token}`).toString('base64'));
    }
  });
});
