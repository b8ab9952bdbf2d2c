import { access } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProgram } from '../support/node-program.ts';
import { json, startRecordingServer, type RecordingServer } from '../support/http-server.ts';

const BAD_KEY = 'sk-ant-quickstart-bad-7c2e';
const built = await access(new URL('../../dist/index.js', import.meta.url)).then(
  () => true,
  () => false,
);
if (!built) console.warn('Skipping the quickstart with a refused API key: no build (npm run build).');

/**
 * `npm start` (examples/quickstart.ts) with an API key the provider refuses: the program says so in
 * a few lines, as the CLI does, and exits 1; no worker log objects, no stack, no key.
 */
describe.skipIf(!built)('the quickstart when the model refuses the API key', () => {
  let provider: RecordingServer;
  beforeAll(async () => {
    // Anthropic's answer to a wrong key.
    provider = await startRecordingServer((_request, response) =>
      json(response, 401, {
        type: 'error',
        error: { type: 'authentication_error', message: 'invalid x-api-key' },
      }),
    );
  });
  afterAll(async () => provider?.close());

  it('prints what failed in a few lines and exits 1', async () => {
    const program = startProgram(['examples/quickstart.ts'], {
      ANTHROPIC_API_KEY: BAD_KEY,
      ANTHROPIC_BASE_URL: `${provider.url}/v1`,
      OPENAI_API_KEY: '',
    });
    const end = await program.exit(120_000);
    expect(end.hung, end.output).toBe(false);
    expect(end.code, end.output).toBe(1);
    expect(provider.requests.length).toBeGreaterThan(0);
    expect(end.output).toMatch(/The run failed: .*401.*invalid x-api-key/);
    // One line per log entry (no task tokens or metadata objects), and no stack of an uncaught error.
    expect(end.output).not.toMatch(/taskToken|sdkComponent|^\s+at /m);
    expect(end.output.trim().split('\n').length).toBeLessThan(30);
    expect(end.output).not.toContain(BAD_KEY);
  }, 180_000);
});
