import { afterEach, describe, expect, it } from 'vitest';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { NotFoundError } from '../../src/errors.ts';
import { parseMarkdownBlocks } from '../../src/tools/markdown-blocks.ts';
import { NOTION_VERSION } from '../../src/tools/notion/blocks.ts';
import { NotesTool } from '../../src/tools/notion/notes.ts';
import { toStorage } from '../../src/tools/atlassian/storage-format.ts';
import { WikiTool } from '../../src/tools/atlassian/wiki.ts';
import { json, startRecordingServer, type RecordingServer } from '../support/http-server.ts';
import { toolContext } from '../support/tool-context.ts';

const MARKDOWN =
  '# Runbook\n\nRestart the **worker** when it stalls.\nThen check logs.\n\n- one\n- two\n\n1. first\n\n```bash\nnpm run worker\n```';
const servers: RecordingServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

describe('Markdown blocks', () => {
  it('reads headings, paragraphs, lists and fenced code', () => {
    expect(parseMarkdownBlocks(MARKDOWN)).toEqual([
      { type: 'heading', level: 1, text: 'Runbook' },
      { type: 'paragraph', text: 'Restart the **worker** when it stalls. Then check logs.' },
      { type: 'bullet', text: 'one' },
      { type: 'bullet', text: 'two' },
      { type: 'numbered', text: 'first' },
      { type: 'code', language: 'bash', text: 'npm run worker' },
    ]);
  });
});

describe('notes (Notion)', () => {
  async function setup() {
    const server = await startRecordingServer((request, response) => {
      const body = JSON.parse(request.body) as { parent?: { page_id: string } };
      if (request.path === '/v1/search') {
        return json(response, 200, {
          object: 'list',
          results: [
            {
              object: 'page',
              id: 'p-1',
              url: 'https://www.notion.so/Runbook-p1',
              properties: { Name: { type: 'title', title: [{ plain_text: 'Runbook' }] } },
            },
          ],
          next_cursor: null,
          has_more: false,
        });
      }
      if (body.parent?.page_id === 'unshared') {
        return json(response, 404, {
          object: 'error',
          status: 404,
          code: 'object_not_found',
          message: 'Could not find page with ID: unshared.',
        });
      }
      return json(response, 200, { object: 'page', id: 'p-new', url: 'https://www.notion.so/p-new' });
    });
    servers.push(server);
    const store = new InMemoryCredentialStore();
    await store.put({
      name: 'notes',
      type: 'api_key',
      token: 'ntn_canary_123',
      metadata: { base_url: server.url },
    });
    return { server, store };
  }

  it('searches pages with the Notion-Version header', async () => {
    const { server, store } = await setup();
    const { text } = await new NotesTool().run(toolContext(store), { action: 'search', query: 'runbook' });
    expect(text).toBe('Runbook (id p-1) https://www.notion.so/Runbook-p1');
    expect(server.requests[0]!.headers['notion-version']).toBe(NOTION_VERSION);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer ntn_canary_123');
    expect(JSON.parse(server.requests[0]!.body)).toEqual({
      query: 'runbook',
      filter: { property: 'object', value: 'page' },
      page_size: 10,
    });
  });

  it('creates a page whose Markdown becomes Notion blocks', async () => {
    const { server, store } = await setup();
    await new NotesTool().run(toolContext(store), {
      action: 'create',
      parent_id: 'p-1',
      title: 'On-call',
      content: MARKDOWN,
    });
    const body = JSON.parse(server.requests[0]!.body) as {
      children: Array<{ type: string }>;
      properties: unknown;
    };
    expect(body.properties).toEqual({ title: { title: [{ text: { content: 'On-call' } }] } });
    expect(body.children.map((b) => b.type)).toEqual([
      'heading_1',
      'paragraph',
      'bulleted_list_item',
      'bulleted_list_item',
      'numbered_list_item',
      'code',
    ]);
    expect(body.children[5]).toEqual({
      object: 'block',
      type: 'code',
      code: { rich_text: [{ type: 'text', text: { content: 'npm run worker' } }], language: 'bash' },
    });
  });

  it('explains object_not_found as a page not shared with the integration', async () => {
    const { store } = await setup();
    const error = await new NotesTool()
      .run(toolContext(store), { action: 'create', parent_id: 'unshared', title: 'x' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as Error).message).toMatch(/not shared with the integration.*Connections/);
  });
});

describe('wiki (Confluence Cloud)', () => {
  async function setup() {
    const server = await startRecordingServer((request, response) => {
      if (request.path === '/wiki/rest/api/search') {
        return json(response, 200, {
          results: [
            {
              content: { id: '123', type: 'page', title: 'Deploys' },
              title: 'Deploys',
              excerpt: 'How we deploy',
              url: '/spaces/ENG/pages/123/Deploys',
            },
          ],
          _links: { base: `${server.url}/wiki` },
        });
      }
      if (request.path === '/wiki/api/v2/spaces') {
        const keys = request.query.get('keys');
        return json(response, 200, {
          results: keys === 'ENG' ? [{ id: '98765', key: 'ENG', name: 'Engineering' }] : [],
        });
      }
      if (request.path === '/wiki/api/v2/pages') {
        return json(response, 200, {
          id: '555',
          title: (JSON.parse(request.body) as { title: string }).title,
          _links: { webui: '/spaces/ENG/pages/555' },
        });
      }
      json(response, 404, { message: 'not found' });
    });
    servers.push(server);
    const store = new InMemoryCredentialStore();
    await store.put({
      name: 'wiki',
      type: 'api_key',
      token: 'atl-token-123',
      metadata: { base_url: server.url, email: 'ada@example.com', edition: 'cloud' },
    });
    return { server, store };
  }

  it('searches with plain words turned into CQL, with Basic email:token', async () => {
    const { server, store } = await setup();
    const { text } = await new WikiTool().run(toolContext(store), {
      action: 'search',
      query: 'deploy "prod"',
    });
    expect(text).toBe(`Deploys (id 123) ${server.url}/wiki/spaces/ENG/pages/123/Deploys`);
    expect(server.requests[0]!.query.get('cql')).toBe(
      'type = page AND text ~ "deploy \\"prod\\"" ORDER BY lastmodified DESC',
    );
    expect(server.requests[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from('ada@example.com:atl-token-123').toString('base64')}`,
    );
  });

  it('creates a page: space key resolved to its id, Markdown as storage format', async () => {
    const { server, store } = await setup();
    const { text } = await new WikiTool().run(toolContext(store), {
      action: 'create',
      space_key: 'ENG',
      title: 'On-call',
      content: MARKDOWN,
      parent_id: '123',
    });
    expect(text).toBe(`Created "On-call" (id 555) ${server.url}/wiki/spaces/ENG/pages/555`);
    const body = JSON.parse(server.requests[1]!.body) as {
      spaceId: string;
      parentId: string;
      body: { representation: string; value: string };
    };
    expect(body).toMatchObject({
      spaceId: '98765',
      parentId: '123',
      status: 'current',
      body: { representation: 'storage' },
    });
    expect(body.body.value).toBe(toStorage(parseMarkdownBlocks(MARKDOWN)));
    expect(body.body.value).toContain(
      '<h1>Runbook</h1><p>Restart the **worker** when it stalls. Then check logs.</p><ul><li>one</li><li>two</li></ul><ol><li>first</li></ol>',
    );
    expect(body.body.value).toContain(
      '<ac:parameter ac:name="language">bash</ac:parameter><ac:plain-text-body><![CDATA[npm run worker]]>',
    );
    await expect(
      new WikiTool().run(toolContext(store), { action: 'create', space_key: 'NOPE', title: 'x' }),
    ).rejects.toThrow(/No Confluence space with key NOPE/);
  });
});
