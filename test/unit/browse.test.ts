import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exists } from '../../src/fs/probe.ts';
import { PlaywrightBrowseTool } from '../../src/tools/builtins/browse.ts';
import { startRecordingServer, type RecordingServer } from '../support/http-server.ts';
import { toolContext } from '../support/tool-context.ts';

const chromium = (await exists('/usr/bin/chromium')) || Boolean(process.env.CHROMIUM_PATH);
if (!chromium)
  console.warn(
    'Skipping playwright_browse tests: no Chromium (Debian: apt-get install chromium; .ci/run installs it).',
  );

const PAGE = `<!doctype html><html><head><title>Reveal</title></head><body>
<h1>Status page</h1>
<input id="name" placeholder="name"><button id="reveal" onclick="document.getElementById('out').textContent = 'Hello, ' + document.getElementById('name').value + '! The launch code is 0451.'">Reveal</button>
<p id="out"></p>
</body></html>`;

describe.skipIf(!chromium)('playwright_browse in a real Chromium', () => {
  let site: RecordingServer;
  let root: string;
  beforeAll(async () => {
    site = await startRecordingServer(
      (_request, response) => void response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE),
    );
    root = await mkdtemp(join(tmpdir(), 'browse-'));
  });
  afterAll(async () => {
    await site?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('fills, clicks, reads the text the click reveals, and saves a screenshot under the project root', async () => {
    const tool = new PlaywrightBrowseTool({ projectRoot: root, allowPrivateNetworks: true });
    const { text, metadata } = await tool.run(toolContext(), {
      url: `${site.url}/status`,
      steps: [
        { action: 'fill', selector: '#name', value: 'Ada' },
        { action: 'click', selector: '#reveal' },
        { action: 'wait_for', selector: 'text=launch code' },
      ],
      screenshot: true,
    });
    expect(text).toContain('Hello, Ada! The launch code is 0451.');
    expect(metadata).toMatchObject({ title: 'Reveal', url: `${site.url}/status` });
    expect((await stat(join(root, String(metadata.screenshot)))).size).toBeGreaterThan(1000);
  }, 60_000);

  it('refuses a loopback page by default', async () => {
    await expect(
      new PlaywrightBrowseTool({ projectRoot: root }).run(toolContext(), { url: `${site.url}/status` }),
    ).rejects.toThrow(/loopback or private address/);
  });
});
