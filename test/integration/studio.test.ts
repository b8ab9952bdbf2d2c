import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.ts';
import { exists } from '../../src/fs/probe.ts';
import { writeWorkingMemory } from '../../src/agent-memory/working-memory.ts';
import { SqliteMemoryStore } from '../../src/memory/sqlite.ts';
import { createStudio } from '../../src/studio/index.ts';
import type { UsageReport } from '../../src/usage/summary.ts';
import { cliClusterEnv, ROOT, runCli, startCli } from '../support/cli.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CONFIG = `${ROOT}test/fixtures/studio/toolkit-agent.config.ts`;
const SCREENSHOTS = `${ROOT}docs/studio/`;
const skipped = !(await exists(CHROMIUM))
  ? 'no Chromium (Debian: apt-get install chromium; .ci/run installs it)'
  : !(await exists(`${ROOT}dist/studio/page.js`))
    ? 'no build of the studio page (npm run build)'
    : '';
if (skipped) console.warn(`Skipping the studio test: ${skipped}.`);

const TOKEN = `studio-${randomUUID()}`;
let home: string;
let env: Record<string, string>;
let studio: ReturnType<typeof startCli> | undefined;
let agents: AgentClient;
let browser: Browser | undefined;

beforeAll(async () => {
  if (skipped) return;
  home = await mkdtemp(join(tmpdir(), 'studio-'));
  env = { ...cliClusterEnv(home), TOOLKIT_AGENT_STUDIO_TOKEN: TOKEN };
  agents = await AgentClient.connect({ address: inject('temporalAddress'), taskQueue: env.CLI_TASK_QUEUE! });
});
afterAll(async () => {
  await browser?.close();
  if (studio?.child.exitCode === null) {
    studio.child.kill('SIGINT');
    await studio.exited;
  }
  await agents?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

/** Two eval reports of the same dataset's cases, as `toolkit-agent eval --json` saves them. */
async function saveEvalReports(folder: string): Promise<void> {
  await mkdir(folder);
  const dataset = (expected: string) =>
    [
      { name: 'five', prompt: 'add 2 and 3', expected: 'The sum is 5.' },
      { name: 'two', prompt: 'add 1 and 1', expected },
    ]
      .map((c) => JSON.stringify(c))
      .join('\n');
  await writeFile(join(home, 'before.jsonl'), dataset('The sum is 3.'));
  await writeFile(join(home, 'after.jsonl'), dataset('The sum is 2.'));
  const reports = await Promise.all(
    ['before', 'after'].map((name) =>
      runCli(
        [
          '-c',
          CONFIG,
          'eval',
          join(home, `${name}.jsonl`),
          '--agent',
          'helper',
          '--json',
          '--no-worker',
          '--threshold',
          '0',
        ],
        {
          env,
        },
      ),
    ),
  );
  for (const [i, name] of ['before', 'after'].entries()) {
    expect(reports[i]!.code, reports[i]!.stderr).toBe(0);
    await writeFile(join(folder, `${name}.json`), reports[i]!.stdout);
  }
}

async function view(page: Page, hash: string, ready: string, shot: string): Promise<void> {
  await page.goto(`${page.url().split('#')[0]}#/${hash}`);
  await page.locator(ready).first().waitFor();
  await page.screenshot({ path: `${SCREENSHOTS}${shot}.png`, fullPage: true });
}

describe.skipIf(skipped)('toolkit-agent studio in Chromium', () => {
  it('shows agents, runs, approvals, cost and evals, chats, decides an approval once, and refuses requests without its token', async () => {
    const evals = join(home, 'evals');
    // (No Temporal UI answers at that address: the test reads the links only.)
    const temporalUi = 'http://127.0.0.1:8233';
    studio = startCli(
      ['-c', CONFIG, 'studio', '--port', '0', '--evals', evals, '--temporal-ui', temporalUi],
      {
        env,
      },
    );
    const url = (await studio.waitForLine(/^Studio at /)).replace(/^Studio at /, '').trim();
    expect(url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/#token=${TOKEN}$`));
    const origin = new URL(url).origin;

    // Runs: an answer, a sub-agent, a guardrail trip, and one that waits for approval.
    const [answered, delegated, tripped] = await Promise.all([
      agents.startRun('helper', 'add 2 and 3', { tenant: 'acme' }),
      agents.startRun('manager', 'ask the helper', { tenant: 'globex' }),
      agents.startRun('guarded', 'something forbidden', { tenant: 'acme' }),
    ]);
    const waiting = await agents.startRun('careful', 'add 4 and 5', { tenant: 'acme' });
    const waitingToo = await agents.startRun('careful', 'add 10 and 11', { tenant: 'globex' });
    // Waits an hour for a user to authorize mail (cancelled at the end).
    const authorizing = await agents.startRun('waiting', 'read my mail', { tenant: 'acme' });
    const remembered = await agents.startRun('remembering', 'please add 6 and 7', { tenant: 'acme' });
    await Promise.all([
      remembered.result(),
      answered.result(),
      delegated.result(),
      expect(tripped.result()).rejects.toThrow(/guardrail/),
      saveEvalReports(evals),
    ]);

    // Without the token (or with another) the API answers 401; the page's shell has no data in it.
    for (const headers of [{}, { authorization: 'Bearer not-the-token-at-all' }]) {
      const refused = await fetch(`${origin}/api/runs`, { headers });
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { error: string }).error).toContain('token');
    }
    expect(
      (await fetch(`${origin}/api/runs`, { headers: { authorization: `Bearer ${TOKEN}` } })).status,
    ).toBe(200);

    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox'] });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    // Generous waits: the machine may be busy; nothing here is timed.
    page.setDefaultTimeout(60_000);
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error')
        failures.push(`${message.text()} ${JSON.stringify(message.location())}`);
    });
    page.on('response', (response) => {
      if (response.status() >= 400) failures.push(`${response.status()} ${response.url()}`);
    });
    await mkdir(SCREENSHOTS, { recursive: true });
    await page.goto(url);

    // Agents: the definition as the worker sees it, and a chat that answers.
    await view(page, 'agents/careful', '.definition[data-agent="careful"]', 'agents');
    expect(await page.locator('.definition .model').textContent()).toBe('rules');
    expect(await page.locator('.tool-definition summary').textContent()).toContain('needs approval');
    await view(page, 'agents/helper', '.definition[data-agent="helper"]', 'agents');
    await page.fill('#message', 'add 7 and 8');
    await page.press('#message', 'Enter');
    await page.locator('.chat .assistant .text', { hasText: 'The sum is 15.' }).waitFor();
    await page.locator('.chat[data-status="ready"]').waitFor();
    await page.screenshot({ path: `${SCREENSHOTS}agents.png`, fullPage: true });
    // A call that waits for approval in the chat is a button there.
    await view(page, 'agents/careful', '.definition[data-agent="careful"]', 'agents');
    await page.fill('#message', 'add 1 and 2');
    await page.press('#message', 'Enter');
    await page.locator('.chat').getByRole('button', { name: 'Approve' }).click();
    await page.locator('.chat .assistant .text', { hasText: 'The sum is 3.' }).waitFor();

    // The chats are durable chat sessions: listed as chats, each with its timeline.
    const authorized = { headers: { authorization: `Bearer ${TOKEN}` } };
    // (Visibility lists a new workflow a moment after it starts: asked again for up to 30 s.)
    let chats: Array<{ workflowId: string; agent: string }> = [];
    for (let asked = 0; asked < 60 && chats.length < 2; asked++) {
      if (asked) await new Promise((resolve) => setTimeout(resolve, 500));
      chats = (await (await fetch(`${origin}/api/runs?kind=chat`, authorized)).json()) as typeof chats;
    }
    expect(chats.map((chat) => chat.agent).sort()).toEqual(['careful', 'helper']);
    for (const chat of chats) {
      const timeline = (await (
        await fetch(`${origin}/api/runs/${encodeURIComponent(chat.workflowId)}`, authorized)
      ).json()) as { events: Array<{ type: string }> };
      expect(timeline.events.map((e) => e.type)).toContain('run_completed');
    }

    // Approvals: the calls waiting across runs; one approved from the page resumes its run, once.
    await page.goto(`${origin}/#/approvals`);
    const row = page.locator('tr[data-kind="approval"]', { hasText: waiting.workflowId });
    await row.waitFor();
    await page.locator('tr[data-kind="approval"]', { hasText: waitingToo.workflowId }).waitFor();
    await page.locator('tr[data-kind="authorization"]', { hasText: authorizing.workflowId }).waitFor();
    await page.screenshot({ path: `${SCREENSHOTS}approvals.png`, fullPage: true });
    await row.getByRole('button', { name: 'Approve' }).click();
    expect((await waiting.result()).output).toBe('The sum is 9.');
    await row.waitFor({ state: 'detached' });
    const decided = await waiting.listEvents();
    expect(decided.filter((e) => e.type === 'approval_granted')).toHaveLength(1);
    expect(decided.filter((e) => e.type === 'tool_completed')).toHaveLength(1);

    // A running run's timeline goes on live: approved from its page, it completes there, once.
    await view(page, `runs/${waitingToo.workflowId}`, '.run[data-status="running"] .waiting', 'run-waiting');
    await page.locator('.run .waiting').getByRole('button', { name: 'Approve' }).click();
    await page.locator('.run[data-status="completed"] tr[data-type="run_completed"]').waitFor();
    expect((await waitingToo.result()).output).toBe('The sum is 21.');
    const shownLive = await page.locator('.timeline tr').count();
    expect(shownLive - 1).toBe((await waitingToo.listEvents()).length); // less the header row
    expect((await waitingToo.listEvents()).filter((e) => e.type === 'approval_granted')).toHaveLength(1);

    // Runs: the list, and the sub-agent's run nested in the manager's timeline, event for event.
    await view(page, 'runs', `tr[data-workflow-id="${delegated.workflowId}"]`, 'runs');
    for (const run of [answered, delegated, tripped, waiting])
      await page.locator(`tr[data-workflow-id="${run.workflowId}"]`).waitFor();
    expect(await page.locator(`tr[data-workflow-id="${answered.workflowId}"] td`).nth(7).textContent()).toBe(
      '30',
    );
    await view(
      page,
      `runs/${delegated.workflowId}`,
      '.run[data-status="completed"] .timeline tr[data-seq]',
      'run',
    );
    expect(await page.getByRole('link', { name: 'Open in the Temporal UI' }).getAttribute('href')).toBe(
      `${temporalUi}/namespaces/default/workflows/${delegated.workflowId}`,
    );
    const own = await delegated.listEvents();
    const top = page.locator('.timeline tr[data-depth="0"]');
    const shownEvents = await top.evaluateAll((rows: Array<{ getAttribute(name: string): string | null }>) =>
      rows.map((row) => [Number(row.getAttribute('data-seq')), row.getAttribute('data-type')]),
    );
    expect(shownEvents).toEqual(own.map((e) => [e.seq, e.type]));
    const childId = own.find((e) => e.type === 'tool_called')!.payload.child_run as string;
    const child = await agents.getHandle(childId).listEvents();
    expect(await page.locator('.timeline tr[data-depth="1"]').count()).toBe(child.length);
    await view(
      page,
      `runs/${tripped.workflowId}`,
      '.timeline tr[data-type="guardrail_tripped"]',
      'run-guardrail',
    );

    // Cost: the totals and the charts' sums are what `toolkit-agent usage --json` says.
    const usage = await runCli(['-c', CONFIG, 'usage', '--since', '7d', '--json'], { env });
    expect(usage.code, usage.stderr).toBe(0);
    const totals = (JSON.parse(usage.stdout) as UsageReport).totals;
    await view(page, 'cost', '[data-chart="tokens-per-day"]', 'cost');
    const shown = async (name: string) => page.locator(`td[data-total="${name}"]`).textContent();
    expect(Number(await shown('runs'))).toBe(totals.runs);
    expect(Number(await shown('input_tokens'))).toBe(totals.input_tokens);
    expect(Number(await shown('output_tokens'))).toBe(totals.output_tokens);
    expect(await shown('cost')).toBe(`$${totals.cost!.toFixed(6)}`);
    const chartTotal = async (id: string) =>
      Number(await page.locator(`[data-chart="${id}"]`).getAttribute('data-total'));
    expect(await chartTotal('tokens-per-day')).toBe(totals.input_tokens + totals.output_tokens);
    expect(await chartTotal('tokens-per-tenant')).toBe(totals.input_tokens + totals.output_tokens);
    expect(await chartTotal('cost-per-agent')).toBeCloseTo(totals.cost!, 12);
    expect(await page.locator('.quotas tbody tr').count()).toBeGreaterThan(0);

    // Evals: both reports listed, one shown case by case, the two compared.
    await view(page, 'evals', 'tr[data-file="after.json"]', 'evals');
    expect(await page.locator('tr[data-file]').count()).toBe(2);
    await view(page, 'evals/before.json', 'tr[data-case="two"]', 'eval-report');
    await view(page, 'evals/compare/before.json..after.json', 'tr[data-case="two"]', 'eval-compare');
    expect(await page.locator('tr[data-case="two"]').getAttribute('data-change')).toBe('better');
    expect(await page.locator('tr[data-case="five"]').getAttribute('data-change')).toBe('same');

    // Memory: what `remembering` keeps of ada (acme's), found by its words, then forgotten. Its
    // profile, as update_working_memory would have written it, in the workers' memory store.
    const workers = new SqliteMemoryStore({ path: join(home, 'memory.sqlite') });
    try {
      await writeWorkingMemory(workers, 'tenant:acme/ada', { name: 'Ada' });
    } finally {
      await workers.close();
    }
    await view(page, 'memory', 'select[name="agent"]', 'memory');
    await page.selectOption('select[name="agent"]', 'remembering');
    await page.fill('input[name="resource"]', 'ada');
    await page.fill('input[name="tenant"]', 'acme');
    await page.fill('input[name="q"]', 'add 6 and 7');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('.hits tr[data-message-id]').first().waitFor();
    expect(await page.locator('.hits').textContent()).toContain('please add 6 and 7');
    expect(await page.locator('.working').textContent()).toContain('"name": "Ada"');
    await page.screenshot({ path: `${SCREENSHOTS}memory.png`, fullPage: true });
    await page.click('#forget-all');
    await page.locator('.note', { hasText: /Forgot [1-9]\d* message\(s\) and the working memory/ }).waitFor();
    await page.locator('.hits-empty').waitFor();
    await page.locator('.working', { hasText: 'none' }).waitFor();
    // Asked again: nothing left, and no working memory to reset, so the note does not claim one.
    await page.click('#forget-all');
    await page.locator('.note', { hasText: /^Forgot 0 message\(s\)\.$/ }).waitFor();

    await authorizing.cancel('The test is done.');
    expect(failures).toEqual([]);
  }, 240_000);

  it('answers only requests addressed to this machine when it has no token', async () => {
    const handler = createStudio({ client: agents });
    const local = await handler(new Request('http://127.0.0.1:4400/api/info'));
    expect(local.status).toBe(200);
    const rebound = await handler(new Request('http://studio.attacker.example:4400/api/info'));
    expect(rebound.status).toBe(403);
    expect(((await rebound.json()) as { error: string }).error).toContain('give it a token');
    // Another site's page in the same browser (its Origin another) may not act through the studio.
    const forged = await handler(
      new Request('http://127.0.0.1:4400/api/memory/remembering/forget?resource=ada', {
        method: 'POST',
        headers: { origin: 'https://elsewhere.example' },
      }),
    );
    expect(forged.status).toBe(403);
    expect(((await forged.json()) as { error: string }).error).toContain('https://elsewhere.example');
    expect(() => createStudio({ client: agents, token: 'short' })).toThrow(/at least 16 characters/);
    // A report's name is a file of the evals folder, never a path out of it.
    const withEvals = createStudio({ client: agents, evalsFolder: join(home, 'evals') });
    const outside = await withEvals(new Request('http://127.0.0.1/api/evals/..%2Fbefore.jsonl'));
    expect(outside.status).toBe(404);
    expect(((await outside.json()) as { error: string }).error).toContain('is not the file name of a report');
  });
});
