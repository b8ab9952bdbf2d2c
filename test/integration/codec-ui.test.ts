import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { chromium } from 'playwright-core';
import { Agent, fetch as fetchWithAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import { createCodecServer, type CodecRequest } from '../../src/codec/codec-server.ts';
import { freePort } from '../../src/embedded/free-port.ts';
import { makeCertificates } from '../support/tls-gateway.ts';
import { CLI_CONFIG, runCli, startCli } from '../support/cli.ts';
import { encodedBundlePath } from '../support/encoded-bundle.ts';
import { historyText } from './helpers.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const noChromium = !existsSync(CHROMIUM);
if (noChromium) {
  console.warn(
    'Skipping the Temporal UI codec test: no Chromium (Debian: apt-get install chromium; .ci/run installs it).',
  );
}

/** A `/decode` request as the UI sends it, with the given headers. */
async function decode(endpoint: string, headers: Record<string, string>, payloads: unknown[] = []) {
  return fetch(`${endpoint}/decode`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ payloads }),
  });
}

describe.skipIf(noChromium)('encrypted runs in the real Temporal UI', () => {
  it('`toolkit-agent server` with payload keys starts the UI on a codec server, and the UI shows a run decoded', async () => {
    const home = await mkdtemp(join(tmpdir(), 'cli-codec-'));
    const canary = `CANARY-${randomUUID()}`;
    const env = {
      TOOLKIT_AGENT_HOME: home,
      TOOLKIT_AGENT_WORKFLOW_BUNDLE: await encodedBundlePath(),
      TOOLKIT_PAYLOAD_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      CLI_TASK_QUEUE: `codec-${randomUUID()}`,
      TEMPORAL_ADDRESS: '',
    };
    const port = await freePort();
    const uiPort = await freePort();
    const server = startCli(['server', '--port', String(port), '--ui-port', String(uiPort), '--json'], {
      env,
    });
    try {
      const state = JSON.parse(await server.waitForLine(/"address"/)) as Record<string, string>;
      expect(state.uiUrl).toBe(`http://127.0.0.1:${uiPort}`);
      expect(state.codecEndpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const run = await runCli(['-c', CLI_CONFIG, 'run', `add 4 and 5 ${canary}`], { env });
      expect(run.code, run.stderr).toBe(0);
      const id = /(agent-helper-[\w-]+)/.exec(run.stderr)![1]!;

      // Without the codec, history holds no prompt: the payloads are encrypted.
      const connection = await Connection.connect({ address: state.address! });
      const handle = new Client({ connection }).workflow.getHandle(id);
      const raw = await historyText(handle);
      expect(raw.includes(canary)).toBe(false);
      const started = (await handle.fetchHistory()).events![0]!.workflowExecutionStartedEventAttributes!;
      const input = started.input!.payloads![0]!;
      expect(Buffer.from(input.metadata!.encoding!).toString()).toBe('binary/encrypted');
      const payload = {
        metadata: Object.fromEntries(
          Object.entries(input.metadata!).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
        ),
        data: Buffer.from(input.data!).toString('base64'),
      };
      await connection.close();

      // The real UI, in Chromium, decodes the run through the codec server the command started.
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--headless', '--no-sandbox'],
      });
      try {
        const page = await browser.newPage();
        const decodes: number[] = [];
        page.on('response', (response) => {
          if (response.url().startsWith(`${state.codecEndpoint}/decode`)) decodes.push(response.status());
        });
        await page.goto(`${state.uiUrl}/namespaces/default/workflows/${id}`);
        // The Input card shows the decoded workflow input: the prompt.
        await page.getByText(canary).first().waitFor({ timeout: 30_000 });
        expect(decodes.length).toBeGreaterThan(0);
        expect(decodes.every((status) => status === 200)).toBe(true);
        expect(await page.locator('body').innerText()).not.toMatch(/could not connect/i);
      } finally {
        await browser.close();
      }

      // What the UI sends is all the codec server accepts: its origin, for the server's namespace.
      const uiOrigin = { origin: state.uiUrl!, 'x-namespace': 'default' };
      const decoded = await decode(state.codecEndpoint!, uiOrigin, [payload]);
      expect(decoded.status).toBe(200);
      const [plain] = ((await decoded.json()) as { payloads: Array<{ data: string }> }).payloads;
      expect(Buffer.from(plain!.data, 'base64').toString()).toContain(canary);
      expect(
        (await decode(state.codecEndpoint!, { ...uiOrigin, origin: 'http://evil.example' })).status,
      ).toBe(403);
      expect((await decode(state.codecEndpoint!, { 'x-namespace': 'default' })).status).toBe(401);
      expect((await decode(state.codecEndpoint!, { ...uiOrigin, 'x-namespace': 'other' })).status).toBe(401);
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      await rm(home, { recursive: true, force: true });
    }
  }, 180_000);

  it('`toolkit-agent codec serve` serves the keys to the given UI origin and namespace only', async () => {
    const port = await freePort();
    const env = {
      TOOLKIT_PAYLOAD_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      TOOLKIT_AGENT_HOME: tmpdir(),
    };
    const serve = startCli(
      [
        'codec',
        'serve',
        '--port',
        String(port),
        '--origin',
        'https://ui.example',
        '--namespace',
        'prod',
        '--json',
      ],
      { env },
    );
    try {
      const info = JSON.parse(await serve.waitForLine(/codecEndpoint/)) as { codecEndpoint: string };
      expect(info.codecEndpoint).toBe(`http://127.0.0.1:${port}`);
      const preflight = await fetch(`${info.codecEndpoint}/decode`, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://ui.example',
          'access-control-request-headers': 'content-type,x-namespace',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('https://ui.example');
      expect(
        (await decode(info.codecEndpoint, { origin: 'https://ui.example', 'x-namespace': 'prod' })).status,
      ).toBe(200);
      expect(
        (await decode(info.codecEndpoint, { origin: 'https://ui.example', 'x-namespace': 'dev' })).status,
      ).toBe(401);
    } finally {
      serve.child.kill('SIGTERM');
      expect(await serve.exited).toBe(0);
    }
  });

  it('over https, `authorize` sees the access token a UI with logins passes, and the cookies it includes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'codec-tls-'));
    const certificates = await makeCertificates(dir);
    const seen: CodecRequest[] = [];
    const server = createCodecServer({
      keys: { k1: randomBytes(32).toString('base64') },
      allowedOrigins: ['https://temporal.example'],
      tls: { cert: certificates.cert, key: certificates.key },
      authorize: (request) => {
        seen.push(request);
        return request.authorization === 'Bearer user-token' && request.namespace === 'prod';
      },
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const dispatcher = new Agent({ connect: { ca: await readFile(certificates.caPath) } });
    try {
      const endpoint = `https://127.0.0.1:${(server.address() as AddressInfo).port}/decode`;
      const ask = (headers: Record<string, string>) =>
        fetchWithAgent(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: 'https://temporal.example', ...headers },
          body: '{"payloads":[]}',
          dispatcher,
        });
      const headers = { 'x-namespace': 'prod', cookie: 'session=abc%20def; theme=dark' };
      expect((await ask({ ...headers, authorization: 'Bearer user-token' })).status).toBe(200);
      expect((await ask({ ...headers, authorization: 'Bearer stolen' })).status).toBe(401);
      expect(seen[0]).toMatchObject({
        authorization: 'Bearer user-token',
        namespace: 'prod',
        origin: 'https://temporal.example',
        cookies: { session: 'abc def', theme: 'dark' },
      });
    } finally {
      server.close();
      await dispatcher.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('`toolkit-agent codec serve` without payload keys says where to set them', async () => {
    const result = await runCli(['codec', 'serve'], {
      env: { TOOLKIT_PAYLOAD_KEYS: '', TOOLKIT_AGENT_HOME: tmpdir() },
      cwd: tmpdir(),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /No payload keys: set `encryption` in toolkit-agent.config.ts or TOOLKIT_PAYLOAD_KEYS/,
    );
  });
});
