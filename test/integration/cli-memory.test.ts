import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWorkingMemory, writeWorkingMemory } from '../../src/agent-memory/working-memory.ts';
import { SqliteMemoryStore } from '../../src/memory/sqlite.ts';
import { CLI_CONFIG, cliClusterEnv, ROOT, runCli } from '../support/cli.ts';

let home: string;
let config: string;
let env: Record<string, string>;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'cli-memory-'));
  // The CLI tests' config, with a `keeper` agent that remembers each tenant's runs (its resource: "owner").
  config = join(home, 'toolkit-agent.config.ts');
  await writeFile(
    config,
    `import base from ${JSON.stringify(CLI_CONFIG)};\n` +
      `import { SqliteLongTermStore } from ${JSON.stringify(`${ROOT}src/long-term-memory/index.ts`)};\n` +
      `import { z } from ${JSON.stringify(import.meta.resolve('zod'))};\n` +
      `const store = new SqliteLongTermStore({ path: ${JSON.stringify(join(home, 'long-term.sqlite'))} });\n` +
      'const answerer = { ...Object.values(base.agents)[0], tools: [] };\n' +
      'export default { ...base, agents: { ...base.agents, ' +
      "keeper: { ...answerer, memory: { store, resource: ({ tenant }) => (tenant ? 'owner' : undefined) } }, " +
      // `profiled` keeps a working memory too, in the CLI's default memory store.
      "profiled: { ...answerer, memory: { store, resource: () => 'pat', workingMemory: z.object({ pet: z.string() }) } } } };\n",
  );
  env = cliClusterEnv(home);
});
afterAll(() => rm(home, { recursive: true, force: true }));

describe('toolkit-agent memory', () => {
  it("recalls what a tenant's runs remembered, only for that tenant, and forgets it so that nothing is recalled", async () => {
    for (const [tenant, prompt] of [
      ['acme', 'my dog is named Biscuit'],
      ['acme', 'my cat is named Pepper'],
      ['globex', 'my dog is named Rex'],
    ] as const) {
      const run = await runCli(['-c', config, 'run', prompt, '--agent', 'keeper', '--tenant', tenant], {
        env,
      });
      expect(run.code, run.stderr).toBe(0);
    }
    const recall = (tenant: string, ...more: string[]) =>
      runCli(
        [
          '-c',
          config,
          'memory',
          'recall',
          'owner',
          'dog named',
          '--agent',
          'keeper',
          '--tenant',
          tenant,
          ...more,
        ],
        {
          env,
        },
      );
    const table = await recall('acme');
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^SCORE\s+WHEN\s+SESSION\s+TEXT$/);
    // The prompt and the echoed answer of acme's first run; nothing of globex's.
    expect(lines.slice(1).map((line) => line.split(/\s{2,}/).at(-1))).toEqual(
      expect.arrayContaining(['my dog is named Biscuit']),
    );
    expect(table.stdout).not.toContain('Rex');
    const json = await recall('globex', '--json');
    expect(json.code, json.stderr).toBe(0);
    const hits = JSON.parse(json.stdout) as Array<{ text: string; sessionId: string }>;
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((hit) => hit.text.includes('Rex'))).toBe(true);

    // One session (a run's conversation) of acme, then all of it.
    const session = (
      JSON.parse((await recall('acme', '--json')).stdout) as Array<{ sessionId: string; text: string }>
    ).find((hit) => hit.text === 'my dog is named Biscuit')!.sessionId;
    const one = await runCli(
      [
        '-c',
        config,
        'memory',
        'forget',
        'owner',
        '--session',
        session,
        '--agent',
        'keeper',
        '--tenant',
        'acme',
      ],
      { env },
    );
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toMatch(/^Forgot [12] message\(s\) of session .* of owner\.$/m);
    const afterOne = JSON.parse((await recall('acme', '--json')).stdout) as Array<{ sessionId: string }>;
    expect(afterOne.map((hit) => hit.sessionId)).not.toContain(session);
    const pepperBefore = await runCli(
      [
        '-c',
        config,
        'memory',
        'recall',
        'owner',
        'cat Pepper',
        '--agent',
        'keeper',
        '--tenant',
        'acme',
        '--json',
      ],
      { env },
    );
    expect(JSON.parse(pepperBefore.stdout)).not.toEqual([]);
    const all = await runCli(
      ['-c', config, 'memory', 'forget', 'owner', '--agent', 'keeper', '--tenant', 'acme'],
      {
        env,
      },
    );
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toMatch(/^Forgot [12] message\(s\) of owner\.$/m);
    const pepper = await runCli(
      ['-c', config, 'memory', 'recall', 'owner', 'cat Pepper', '--agent', 'keeper', '--tenant', 'acme'],
      { env },
    );
    expect(pepper.stdout).toBe('Nothing remembered of owner matches.\n');
    // globex's memory is untouched.
    expect(JSON.parse((await recall('globex', '--json')).stdout)).not.toEqual([]);
    // Twelve CLI processes, three of them with a worker: more than the default minute on a loaded machine.
  }, 180_000);

  it('forgets the working memory with the whole resource, and says so only when there was one', async () => {
    const run = await runCli(['-c', config, 'run', 'my parrot is Kiwi', '--agent', 'profiled'], { env });
    expect(run.code, run.stderr).toBe(0);
    // The profile the model would have written with update_working_memory, in the store the CLI's workers use.
    const store = new SqliteMemoryStore({ path: join(home, 'memory.sqlite') });
    try {
      await writeWorkingMemory(store, 'pat', { pet: 'a parrot' });
    } finally {
      await store.close();
    }
    const forget = (...more: string[]) =>
      runCli(['-c', config, 'memory', 'forget', 'pat', '--agent', 'profiled', ...more], { env });
    // One session: its messages only; the profile is the resource's and stays.
    const session = await forget('--session', 'no-such-session');
    expect(session.stdout).toBe('Forgot 0 message(s) of session no-such-session of pat.\n');
    const all = await forget();
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toMatch(/^Forgot [12] message\(s\) of pat, and its working memory\.$/m);
    const reopened = new SqliteMemoryStore({ path: join(home, 'memory.sqlite') });
    try {
      expect(await readWorkingMemory(reopened, 'pat')).toEqual({});
    } finally {
      await reopened.close();
    }
    // Nothing is left: no working memory to reset, and the message does not claim one.
    const again = await forget();
    expect(again.stdout).toBe('Forgot 0 message(s) of pat.\n');
  }, 120_000);

  it('refuses an agent without memory, and a limit it cannot read, saying what to do', async () => {
    const none = await runCli(['-c', config, 'memory', 'recall', 'owner', 'dog'], { env });
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(
      /keeps no long-term memory of its own: give it memory: \{ store, resource \}/,
    );
    const limit = await runCli(
      ['-c', config, 'memory', 'recall', 'owner', 'dog', '--agent', 'keeper', '--limit', 'x'],
      {
        env,
      },
    );
    expect(limit.code).toBe(2);
    expect(limit.stderr).toContain('--limit must be a whole number from 1 to 1000; got "x"');
  });
});
