import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ROOT } from '../support/cli.ts';
import { startProgram } from '../support/node-program.ts';

/** Packages only a command's work needs: the Temporal SDK, the model and schema libraries, the stores. */
const HEAVY = [
  '@temporalio/client',
  '@temporalio/worker',
  '@temporalio/proto',
  '@ai-sdk/provider',
  'ai',
  'zod',
  'undici',
  'yaml',
  'minisearch',
  'chrono-node',
];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cli-startup-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The packages of node_modules that `toolkit-agent <args>` loads. */
async function loadedBy(args: string[]): Promise<string[]> {
  const file = join(dir, `${args.join('-') || 'root'}.txt`);
  const preload = join(ROOT, 'test', 'fixtures', 'cli', 'loaded-packages.ts');
  const end = await startProgram(['--import', preload, CLI, ...args], {
    LOADED_PACKAGES_FILE: file,
    TOOLKIT_AGENT_HOME: dir,
  }).exit(60_000);
  expect(end.code, end.output).toBe(0);
  return (await readFile(file, 'utf8')).split('\n');
}

// Every command of the CLI is declared at start, for `--help` and for the parser; what a command
// does is loaded when it runs. A help, or a command that needs little, then starts in a fraction of
// the time (the tests start the CLI hundreds of times).
describe('toolkit-agent starts with what the command needs', { timeout: 120_000 }, () => {
  it.each([[['--help']], [['eval', '--help']], [['run', '--help']], [['creds', 'list']]])(
    '%j loads none of the packages of the commands that do work',
    async (args) => {
      const loaded = await loadedBy(args);
      expect(loaded).toContain('commander'); // the hook saw the CLI's packages
      expect(loaded.filter((name) => HEAVY.includes(name))).toEqual([]);
    },
  );
});
