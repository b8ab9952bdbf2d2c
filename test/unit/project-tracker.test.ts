import { afterEach, describe, expect, it } from 'vitest';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { ProjectTrackerTool } from '../../src/tools/atlassian/project-tracker.ts';
import { json, startRecordingServer, type RecordingServer } from '../support/http-server.ts';
import { toolContext } from '../support/tool-context.ts';

const issue = (n: number) => ({
  id: String(10000 + n),
  key: `OPS-${n}`,
  fields: { summary: `Issue ${n}`, status: { name: 'To Do' }, priority: { name: 'High' }, assignee: null },
});
const servers: RecordingServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** Jira Cloud (v3) and Server (v2), as their REST references describe them. */
async function jira(): Promise<RecordingServer> {
  const server = await startRecordingServer((request, response) => {
    if (request.path === '/rest/api/3/search/jql') {
      const body = JSON.parse(request.body) as { nextPageToken?: string };
      return json(
        response,
        200,
        body.nextPageToken
          ? { issues: [issue(3)], isLast: true }
          : { issues: [issue(1), issue(2)], nextPageToken: 'tok-2', isLast: false },
      );
    }
    if (request.path === '/rest/api/2/search') {
      const startAt = Number(request.query.get('startAt'));
      return json(response, 200, {
        startAt,
        maxResults: 2,
        total: 3,
        issues: startAt === 0 ? [issue(1), issue(2)] : [issue(3)],
      });
    }
    if (/^\/rest\/api\/[23]\/issue$/.test(request.path)) {
      const body = JSON.parse(request.body) as { fields: { summary?: string } };
      if (!body.fields.summary)
        return json(response, 400, {
          errorMessages: [],
          errors: { summary: 'You must specify a summary of the issue.' },
        });
      return json(response, 201, { id: '10042', key: 'OPS-42', self: `${request.path}/10042` });
    }
    if (request.path === '/rest/api/3/search') return json(response, 410, { errorMessages: ['Gone'] });
    json(response, 404, { errorMessages: ['Not found'] });
  });
  servers.push(server);
  return server;
}

async function credentials(server: RecordingServer, edition: 'cloud' | 'server') {
  const store = new InMemoryCredentialStore();
  await store.put({
    name: 'project_tracker',
    type: edition === 'cloud' ? 'api_key' : 'bearer',
    token: 'jira-token-123',
    metadata:
      edition === 'cloud'
        ? { base_url: server.url, email: 'ada@example.com', edition }
        : { base_url: server.url, edition },
  });
  return store;
}

describe('project_tracker (Jira)', () => {
  it('searches the hosted edition through /search/jql, following nextPageToken, with Basic email:token', async () => {
    const server = await jira();
    const { text, metadata } = await new ProjectTrackerTool().run(
      toolContext(await credentials(server, 'cloud')),
      {
        action: 'search',
        query: 'login "fails"',
        project_key: 'OPS',
      },
    );
    expect(text.split('\n')).toEqual([
      'OPS-1 [To Do, High] Issue 1',
      'OPS-2 [To Do, High] Issue 2',
      'OPS-3 [To Do, High] Issue 3',
    ]);
    expect(metadata.jql).toBe('project = "OPS" AND text ~ "login \\"fails\\"" ORDER BY updated DESC');
    expect(server.requests[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from('ada@example.com:jira-token-123').toString('base64')}`,
    );
    expect(JSON.parse(server.requests[1]!.body)).toMatchObject({ nextPageToken: 'tok-2' });
  });

  it('searches the self-hosted edition with startAt paging and a Bearer token, JQL passed through', async () => {
    const server = await jira();
    const { text } = await new ProjectTrackerTool().run(toolContext(await credentials(server, 'server')), {
      action: 'search',
      jql: 'assignee = currentUser()',
    });
    expect(text.split('\n')).toHaveLength(3);
    expect(server.requests.map((r) => r.query.get('startAt'))).toEqual(['0', '2']);
    expect(server.requests[0]!.query.get('jql')).toBe('assignee = currentUser()');
    expect(server.requests[0]!.headers.authorization).toBe('Bearer jira-token-123');
  });

  it('creates with an ADF description on the hosted edition and plain text on self-hosted', async () => {
    const server = await jira();
    const args = {
      action: 'create' as const,
      project_key: 'OPS',
      summary: 'Rotate keys',
      description: 'First paragraph.\n\nSecond one.',
    };
    expect(
      (await new ProjectTrackerTool().run(toolContext(await credentials(server, 'cloud')), args)).text,
    ).toBe(`Created OPS-42: Rotate keys ${server.url}/browse/OPS-42`);
    expect((JSON.parse(server.requests[0]!.body) as { fields: unknown }).fields).toEqual({
      project: { key: 'OPS' },
      issuetype: { name: 'Task' },
      summary: 'Rotate keys',
      description: {
        type: 'doc',
        version: 1,
        content: [
          { type: 'paragraph', content: [{ type: 'text', text: 'First paragraph.' }] },
          { type: 'paragraph', content: [{ type: 'text', text: 'Second one.' }] },
        ],
      },
    });
    await new ProjectTrackerTool().run(toolContext(await credentials(server, 'server')), args);
    expect(server.requests[1]!.path).toBe('/rest/api/2/issue');
    expect(
      (JSON.parse(server.requests[1]!.body) as { fields: { description: string } }).fields.description,
    ).toBe('First paragraph.\n\nSecond one.');
  });

  it('reports Jira field errors and what a create needs', async () => {
    const server = await jira();
    const store = await credentials(server, 'cloud');
    await expect(
      new ProjectTrackerTool().run(toolContext(store), { action: 'create', project_key: 'OPS' }),
    ).rejects.toThrow(/needs project_key and summary/);
    const noEmail = new InMemoryCredentialStore();
    await noEmail.put({
      name: 'project_tracker',
      type: 'api_key',
      token: 't-1234',
      metadata: { domain: 'acme' },
    });
    await expect(
      new ProjectTrackerTool().run(toolContext(noEmail), { action: 'search', query: 'x' }),
    ).rejects.toThrow(/needs metadata.email/);
  });
});
