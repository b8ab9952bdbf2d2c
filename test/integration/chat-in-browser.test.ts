import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
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

describe.skipIf(skipped)('examples/chat-in-browser.ts in Chromium', () => {
  let example: { child: ChildProcess; url: string } | undefined;
  afterAll(() => {
    if (example?.child.exitCode === null) example.child.kill('SIGKILL');
  });

  it('a message sent from the page comes back as a streamed answer, twice in one session; Ctrl-C ends it with 0', async () => {
    example = await startExample();
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox'] });
    try {
      const page = await browser.newPage();
      await page.goto(example.url);
      for (const message of ['Hello from Chromium', 'And once more']) {
        await page.fill('#message', message);
        await page.press('#message', 'Enter');
        await page.locator('.answer', { hasText: `You said: ${message}` }).waitFor({ timeout: 30_000 });
      }
      // The tool calls streamed in before each answer, and nothing else was left hanging.
      expect(await page.locator('.tool').allTextContents()).toEqual(['clock…', 'clock…']);
      expect(await page.locator('.answer').allTextContents()).toEqual([
        'You said: Hello from Chromium',
        'You said: And once more',
      ]);
    } finally {
      await browser.close();
    }
    const exited = once(example.child, 'exit');
    example.child.kill('SIGINT');
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
  }, 90_000);
});
