import { readdir, readFile } from 'node:fs/promises';
import { Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';

/**
 * Runs and chat sessions in flight survive an upgrade of the workers: histories recorded with the
 * workflow code of an earlier version (test/fixtures/histories/record.ts) replay with today's bundle
 * without a nondeterminism error. A change to what the workflows schedule must go behind `patched()`.
 */
const HISTORIES = new URL('../fixtures/histories/', import.meta.url);
const versions = (await readdir(HISTORIES, { withFileTypes: true }))
  .filter((e) => e.isDirectory())
  .map((e) => e.name);

describe.each(versions)('histories recorded at %s replay with the current workflow code', (version) => {
  for (const [file, workflowId] of [
    ['agent-run.json', 'replay-agent-run'],
    ['chat-session.json', 'chat-replay-chat'],
    ['deep-agent-run.json', 'replay-deep-run'],
  ] as const) {
    it(file, async () => {
      const history: unknown = JSON.parse(await readFile(new URL(`${version}/${file}`, HISTORIES), 'utf8'));
      await expect(
        Worker.runReplayHistory(
          { workflowBundle: { codePath: inject('workflowBundlePath') } },
          history,
          workflowId,
        ),
      ).resolves.toBeUndefined();
    });
  }
});
