import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgUiHandler } from '../../src/ag-ui/handler.ts';
import { exists } from '../../src/fs/probe.ts';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import {
  bundlePage,
  copilotKitProject,
  pageBlock,
  typeCheckPage,
  writePage,
} from '../support/copilotkit-page.ts';
import { serveFetch } from '../support/fetch-server.ts';
import { writes } from '../support/writing-model.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';
import { AddTool } from './tools.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const DOCS = new URL('../../docs/ag-ui.md', import.meta.url).pathname;
const skipped = (await exists(CHROMIUM))
  ? ''
  : 'no Chromium (Debian: apt-get install chromium; .ci/run installs it)';
if (skipped) console.warn(`Skipping the CopilotKit page test: ${skipped}.`);

const STORY = Array.from({ length: 40 }, (_, i) => `w${i + 1}`).join(' ');
// The page, and beside it what the test reads: every text the first answer shows, as it is drawn.
const HTML = `<!doctype html><html><head><link rel="icon" href="data:,"><link rel="stylesheet" href="/page.css">
<script>
window.shown = [];
new MutationObserver(() => {
  const answer = document.querySelector('[data-testid="copilot-assistant-message"]')?.textContent ?? '';
  if (answer && answer !== window.shown.at(-1)) window.shown.push(answer);
}).observe(document, { subtree: true, childList: true, characterData: true });
</script></head>
<body><div id="root"></div><script type="module" src="/page.js"></script></body></html>`;
const TYPES: Record<string, string> = {
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
};

/** The model's second turn: what the user said last, and how many user messages the session holds. */
const echo = (request: ModelRequest) => {
  const said = request.messages.filter((message) => message.role === 'user');
  return { text: `You said: ${String(said.at(-1)!.content)} (message ${said.length} of this session)` };
};
/** The model's answer after a tool call: what the tool said (its result, or that it was declined). */
const toolSaid = (request: ModelRequest) => ({
  text: `The tool said: ${String(request.messages.at(-1)!.content)}`,
});

describe.skipIf(skipped)("docs/ag-ui.md's CopilotKit page in Chromium, on a durable chat session", () => {
  let dir: string;
  let entry: string;
  let env: TestWorker;
  let site: { url: string; close(): Promise<void> };
  let browser: Browser;
  let page: Page;
  const failures: string[] = [];
  const threadIds = new Set<string>();
  const add = new AddTool();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'copilotkit-page-'));
    const { ms, from } = await copilotKitProject(dir);
    entry = await writePage(dir, await pageBlock(DOCS, 'CopilotKit'));
    const bundling = performance.now();
    const out = await bundlePage(entry);
    const seconds = (since: number) => (since / 1000).toFixed(1);
    console.log(
      `CopilotKit from ${from} in ${seconds(ms)} s, the page bundled in ${seconds(performance.now() - bundling)} s`,
    );
    const llm = new ScriptedModel([
      writes(40, 50),
      echo,
      { toolCalls: [{ name: 'add', args: { a: 2, b: 3 }, id: 'a1' }] },
      toolSaid,
      { toolCalls: [{ name: 'add', args: { a: 1, b: 1 }, id: 'a2' }] },
      toolSaid,
      writes(40, 50),
    ]);
    env = await startTestWorker({ assistant: { llm, tools: [add], approval: { tools: ['add'] } } });
    const agUi = createAgUiHandler({ client: env.agents, agent: 'assistant' });
    // The page and the handler on one origin, as the docs' server serves them.
    site = await serveFetch(async (request) => {
      const path = new URL(request.url).pathname;
      if (path.startsWith('/ag-ui')) {
        if (request.method === 'POST') {
          threadIds.add(((await request.clone().json()) as { threadId: string }).threadId);
        }
        return agUi(request);
      }
      if (path === '/') return new Response(HTML, { headers: { 'content-type': 'text/html' } });
      const file = join(out, path.slice(1));
      if (!(await exists(file))) return new Response('not found', { status: 404 });
      return new Response(await readFile(file), { headers: { 'content-type': TYPES[extname(file)] ?? '' } });
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox'] });
    page = await browser.newPage();
    page.on('response', (response) => {
      if (response.status() >= 400) failures.push(`${response.status()} ${response.url()}`);
    });
    page.on('pageerror', (error) => failures.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') failures.push(message.text());
    });
    await page.goto(site.url);
  }, 600_000);
  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await env?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function send(text: string): Promise<void> {
    const input = page.getByTestId('copilot-chat-textarea');
    await input.fill(text);
    await input.press('Enter');
  }
  /** The user messages of the one thread's durable session, from the session itself. */
  async function sessionPrompts(): Promise<unknown[]> {
    expect(threadIds.size).toBe(1);
    const [threadId] = threadIds;
    const session = env.agents.chatSession('assistant', {
      sessionId: threadId!,
      memoryStore: env.memoryStore,
    });
    const history = await session.history();
    return history.filter((message) => message.role === 'user').map((message) => message.content);
  }

  it("type-checks (strict) against CopilotKit's and React's own types", () => {
    expect(typeCheckPage(entry)).toEqual([]);
  });

  it('sends a message and shows the answer as it streams, then a second turn of the same session; no page errors', async () => {
    await send('Tell me a story');
    const answers = page.getByTestId('copilot-assistant-message');
    await answers.filter({ hasText: 'w40' }).waitFor({ timeout: 60_000 });
    expect((await answers.first().innerText()).trim()).toBe(STORY);
    // Streamed: the page showed the answer in parts before the whole of it.
    const shown = (await page.evaluate<string[]>('window.shown')).filter((text) => !text.includes('w40'));
    expect(shown.length).toBeGreaterThan(1);
    expect(shown.every((text) => STORY.startsWith(text.trim()))).toBe(true);

    await send('Thanks');
    await answers.filter({ hasText: 'You said: Thanks' }).waitFor({ timeout: 60_000 });
    expect((await answers.nth(1).innerText()).trim()).toBe('You said: Thanks (message 2 of this session)');
    expect(failures).toEqual([]);
    // One thread, one durable session: both messages are its turns.
    expect(await sessionPrompts()).toEqual(['Tell me a story', 'Thanks']);
    const [threadId] = threadIds;
    expect((await env.client.workflow.getHandle(`chat-${threadId}`).describe()).status.name).toBe('RUNNING');
  }, 180_000);

  it("approves a call with the interrupt's Approve (it runs once) and declines one with Decline (it never runs)", async () => {
    const answers = page.getByTestId('copilot-assistant-message');
    await send('Add 2 and 3');
    await page.getByText('Allow add to run with {"a":2,"b":3}?').waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Approve' }).click();
    await answers.filter({ hasText: 'The tool said: 5' }).waitFor({ timeout: 60_000 });
    expect(add.ran).toEqual([{ a: 2, b: 3 }]);

    await send('Add 1 and 1');
    await page.getByText('Allow add to run with {"a":1,"b":1}?').waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Decline' }).click();
    await answers.filter({ hasText: 'The tool said: declined: Not now' }).waitFor({ timeout: 60_000 });
    expect(add.ran).toEqual([{ a: 2, b: 3 }]);
    expect(failures).toEqual([]);
    // The answers resumed the waiting turns: the session holds each message once, as one turn.
    expect(await sessionPrompts()).toEqual(['Tell me a story', 'Thanks', 'Add 2 and 3', 'Add 1 and 1']);
  }, 180_000);

  it('joins the running turn after a reload mid-answer and shows its answer once', async () => {
    const answers = page.getByTestId('copilot-assistant-message');
    await send('Another story');
    await answers.filter({ hasText: 'w3 ' }).waitFor({ timeout: 60_000 });
    await page.reload();
    await answers.filter({ hasText: 'w40' }).waitFor({ timeout: 60_000 });
    expect((await answers.allInnerTexts()).map((text) => text.trim())).toEqual([STORY]);
    expect(failures).toEqual([]);
    expect(await sessionPrompts()).toEqual([
      'Tell me a story',
      'Thanks',
      'Add 2 and 3',
      'Add 1 and 1',
      'Another story',
    ]);
  }, 180_000);
});
