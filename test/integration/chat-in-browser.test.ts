import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { chromium, type Page } from 'playwright-core';
import { exists } from '../../src/fs/probe.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const EXAMPLE = new URL('../../examples/chat-in-browser.ts', import.meta.url).pathname;
// The example imports 'toolkit-agent' as a user does: the built package.
const skipped = !(await exists(CHROMIUM))
  ? 'no Chromium (Debian: apt-get install chromium; .ci/run installs it)'
  : !(await exists(new URL('../../dist/index.js', import.meta.url).pathname))
    ? 'no build (npm run build)'
    : '';
if (skipped) console.warn(`Skipping the chat-in-browser example test: ${skipped}.`);
const STORY = Array.from({ length: 40 }, (_, i) => `word${i + 1}`).join(' ');

/** Starts the example as a user would and answers the URL it prints. */
async function startExample(): Promise<{ child: ChildProcess; url: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0' };
  for (const name of ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY']) delete env[name];
  const child = spawn(process.execPath, [EXAMPLE], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = /Chat at (http:\S+)/.exec(output);
      if (found) resolve(found[1]!);
    });
    child.once('exit', (code) =>
      reject(new Error(`The example exited (${code}) before serving:\n${output}`)),
    );
  });
  return { child, url };
}

async function send(page: Page, text: string): Promise<void> {
  await page.fill('#message', text);
  await page.press('#message', 'Enter');
}
const answers = (page: Page) => page.locator('.assistant .text').allTextContents();
const ready = (page: Page) => page.locator('main[data-status="ready"]').waitFor({ timeout: 30_000 });

describe.skipIf(skipped)(
  'examples/chat-in-browser.ts: useChat in Chromium over a durable chat session',
  () => {
    let example: { child: ChildProcess; url: string } | undefined;
    afterAll(() => {
      if (example?.child.exitCode === null) example.child.kill('SIGKILL');
    });

    it('streams answers with tool parts, approves and rejects with the buttons, resumes after a reload once, stops and goes on; Ctrl-C ends it with 0', async () => {
      example = await startExample();
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--headless', '--no-sandbox'],
      });
      try {
        const page = await browser.newPage();
        const failures: string[] = [];
        page.on('pageerror', (error) => failures.push(error.message));
        await page.goto(example.url);

        await send(page, 'Hello from Chromium');
        await page.locator('.assistant .text', { hasText: 'You said: Hello from Chromium' }).waitFor();
        await ready(page);
        expect(await page.locator('.tool').allTextContents()).toEqual(['clock: output-available']);

        // A booking waits for a person: Approve runs it, in the same answer.
        await send(page, 'Book a table for two');
        await page.getByRole('button', { name: 'Approve' }).click();
        await page.locator('.assistant .text', { hasText: 'Your table is booked.' }).waitFor();
        await ready(page);
        // Reject: the call shows as denied, and the model hears it.
        await send(page, 'Book another one');
        await page.getByRole('button', { name: 'Reject' }).click();
        await page.locator('.assistant .text', { hasText: 'I did not book it.' }).waitFor();
        await ready(page);
        expect(await page.locator('.tool').allTextContents()).toEqual([
          'clock: output-available',
          'book_table: output-available',
          'book_table: output-denied',
        ]);
        expect(await answers(page)).toEqual([
          'You said: Hello from Chromium',
          'Your table is booked.',
          'I did not book it.',
        ]);

        // A reload in the middle of an answer: the page resumes it and it finishes, once.
        await send(page, 'Tell me a story');
        await page.locator('.assistant .text', { hasText: 'word3 ' }).waitFor();
        await page.reload();
        await page.locator('.assistant .text', { hasText: 'word40' }).waitFor({ timeout: 30_000 });
        await ready(page);
        expect(await answers(page)).toEqual([STORY]);

        // Stop in the middle of an answer: it stops here and on the server; the next message works.
        await send(page, 'Another story please');
        // (The reloaded page shows the resumed story alone: this answer is its second.)
        await page.locator('.assistant').nth(1).locator('.text', { hasText: 'word3 ' }).waitFor();
        await page.click('#stop');
        await ready(page);
        const stoppedAt = (await answers(page)).at(-1)!;
        await page.waitForTimeout(1000);
        expect((await answers(page)).at(-1)).toBe(stoppedAt);
        expect(stoppedAt).not.toContain('word40');
        await send(page, 'Hello again');
        await page.locator('.assistant .text', { hasText: 'You said: Hello again' }).waitFor();
        await ready(page);
        expect(failures).toEqual([]);
      } finally {
        await browser.close();
      }
      const exited = once(example.child, 'exit');
      example.child.kill('SIGINT');
      const [code] = (await exited) as [number | null];
      expect(code).toBe(0);
    }, 120_000);
  },
);
