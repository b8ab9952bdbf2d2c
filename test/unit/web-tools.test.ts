import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { OpenUrlTool } from '../../src/tools/builtins/open-url.ts';
import { WebSearchTool } from '../../src/tools/builtins/web-search.ts';
import { json, startRecordingServer, type RecordingServer } from '../support/http-server.ts';
import { toolContext } from '../support/tool-context.ts';

const ARTICLE = `<!doctype html><html><head><title>Durable agents</title><script>trackEverything()</script></head>
<body>
  <nav><a href="/">Home</a> | <a href="/about">About</a> | <a href="/login">Log in</a></nav>
  <aside class="sidebar">Subscribe to our newsletter! Cookie settings.</aside>
  <article>
    <h1>Durable agents</h1>
    <p>An agent run is a workflow. When a worker crashes, another one resumes the run where it stopped,
    and the tool calls that already completed are not repeated.</p>
    <p>Conversations live in a memory store, so workflow history stays small however long the chat gets.
    This keeps every step cheap and the whole system easy to reason about.</p>
    <h2>Secrets</h2>
    <p>Credentials are read inside activities and never enter history. See <a href="https://example.com/docs">the docs</a>.</p>
  </article>
  <footer>© 2026 Example Corp. All rights reserved. Privacy. Terms.</footer>
</body></html>`;

describe('open_url', () => {
  let site: RecordingServer;
  beforeAll(async () => {
    site = await startRecordingServer((request, response) => {
      if (request.path === '/loop') return void response.writeHead(302, { location: '/loop' }).end();
      if (request.path === '/moved') return void response.writeHead(301, { location: '/article' }).end();
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE);
    });
  });
  afterAll(() => site?.close());

  const tool = new OpenUrlTool({ allowPrivateNetworks: true });

  it('keeps the article as Markdown and drops navigation, scripts and boilerplate', async () => {
    const { text, metadata } = await tool.run(toolContext(), { url: `${site.url}/moved` });
    expect(text).toMatch(/^# Durable agents/);
    expect(text).toContain('another one resumes the run where it stopped');
    expect(text).toContain('## Secrets');
    expect(text).toContain('[the docs](https://example.com/docs)');
    for (const boilerplate of ['trackEverything', 'Log in', 'newsletter', 'All rights reserved'])
      expect(text).not.toContain(boilerplate);
    expect(metadata.url).toBe(`${site.url}/article`);
  });

  it('refuses a redirect loop', async () => {
    await expect(tool.run(toolContext(), { url: `${site.url}/loop` })).rejects.toThrow(/Too many redirects/);
  });

  it('refuses loopback and private addresses by default', async () => {
    const strict = new OpenUrlTool();
    await expect(strict.run(toolContext(), { url: `${site.url}/article` })).rejects.toThrow(
      /loopback or private address \(127\.0\.0\.1\)/,
    );
    await expect(strict.run(toolContext(), { url: 'http://10.1.2.3/' })).rejects.toThrow(/private address/);
    await expect(strict.run(toolContext(), { url: 'http://[::1]:8080/' })).rejects.toThrow(/private address/);
    await expect(strict.run(toolContext(), { url: 'http://[::ffff:127.0.0.1]:8080/' })).rejects.toThrow(
      /private address/,
    );
    expect(site.requests.filter((r) => r.path === '/article')).toHaveLength(1);
  });

  it('refuses a name that resolves to a public address first and to 127.0.0.1 when connecting (DNS rebinding)', async () => {
    const answers: string[] = [];
    const rebinding = new OpenUrlTool({
      resolver: async (hostname) => {
        const address = answers.length === 0 ? '93.184.216.34' : '127.0.0.1';
        answers.push(`${hostname} ${address}`);
        return [{ address, family: 4 }];
      },
    });
    const port = new URL(site.url).port;
    const before = site.requests.length;
    await expect(rebinding.run(toolContext(), { url: `http://rebind.test:${port}/article` })).rejects.toThrow(
      /rebind\.test is a loopback or private address \(127\.0\.0\.1\)/,
    );
    // Checked before the request and again at connect time, where the rebinding showed.
    expect(answers).toEqual(['rebind.test 93.184.216.34', 'rebind.test 127.0.0.1']);
    expect(site.requests.length).toBe(before);
  });
});

describe('web_search against a SearXNG-shaped server', () => {
  let searx: RecordingServer;
  beforeAll(async () => {
    searx = await startRecordingServer((request, response) =>
      json(response, 200, {
        query: request.query.get('q'),
        number_of_results: 2,
        results: [
          {
            url: 'https://temporal.io/',
            title: 'Temporal',
            content: 'Durable execution platform',
            engine: 'duckduckgo',
            score: 3,
          },
          {
            url: 'https://docs.temporal.io/',
            title: 'Temporal Docs',
            content: 'Learn workflows',
            engine: 'brave',
            score: 2,
          },
          {
            url: 'https://example.com/',
            title: 'Example',
            content: 'Something else',
            engine: 'brave',
            score: 1,
          },
        ],
      }),
    );
  });
  afterAll(() => searx?.close());

  it('returns title, URL and snippet, capped to count', async () => {
    const store = new InMemoryCredentialStore();
    await store.put({
      name: 'web_search',
      type: 'none',
      token: '',
      metadata: { provider: 'searxng', base_url: searx.url },
    });
    const { text, metadata } = await new WebSearchTool().run(toolContext(store), {
      query: 'durable workflows',
      count: 2,
    });
    expect(text).toBe(
      '1. Temporal\n   https://temporal.io/\n   Durable execution platform\n2. Temporal Docs\n   https://docs.temporal.io/\n   Learn workflows',
    );
    expect(metadata.results).toHaveLength(2);
    expect(Object.fromEntries(searx.requests[0]!.query)).toEqual({ q: 'durable workflows', format: 'json' });
  });

  it('says what the credential needs', async () => {
    const store = new InMemoryCredentialStore();
    await store.put({ name: 'web_search', type: 'none', token: '', metadata: {} });
    await expect(new WebSearchTool().run(toolContext(store), { query: 'x' })).rejects.toThrow(
      /metadata.provider: one of searxng, brave, tavily/,
    );
  });
});
