import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/cli/config.ts';

describe('toolkit-agent.config.ts as the CLI loads it', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolkit-agent-config-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Writes a config file of its own and loads it: the error's message, or undefined when it loads. */
  async function loadError(name: string, text: string): Promise<string | undefined> {
    const path = join(dir, `${name}.config.mjs`);
    await writeFile(path, text);
    return loadConfig(path).then(
      () => undefined,
      (error: Error) => error.message,
    );
  }

  it('loads a config whose keys are all known', async () => {
    expect(
      await loadError(
        'good',
        "export default { agents: { assistant: { llm: {}, systemPrompt: 'Be brief.' } }, temporal: { address: 'localhost:7233' } };",
      ),
    ).toBeUndefined();
  });

  it('refuses an unknown key, naming where it is and the key meant', async () => {
    const typo = await loadError(
      'typo',
      "export default { agents: { assistant: { llm: {}, sytemPrompt: 'Be brief.' } } };",
    );
    expect(typo).toContain(
      'unknown key agents.assistant.sytemPrompt; did you mean agents.assistant.systemPrompt?',
    );
    const address = await loadError(
      'address',
      "export default { agents: {}, temporal: { adress: 'x:7233' } };",
    );
    expect(address).toContain('unknown key temporal.adress; did you mean temporal.address?');
    const top = await loadError('top', 'export default { agent: {} };');
    expect(top).toContain('unknown key agent; did you mean agents?');
  });

  it('keeps what Node says of a syntax error: the file and line, the line, and a caret under it', async () => {
    const path = join(dir, 'broken.config.ts');
    await writeFile(path, 'export default {\n  agents: {\n    a: { llm: 1 ,, }\n  },\n};\n');
    // In plain Node, as the CLI runs (the test runner's own loader reports syntax errors its way).
    const loader = new URL('../../src/cli/config.ts', import.meta.url).href;
    const script = `import { loadConfig } from '${loader}'; await loadConfig(${JSON.stringify(path)}).catch((e) => console.log(e.message));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
    // The file and line, the faulty line numbered among its neighbours, and the caret under the fault.
    expect(stdout.startsWith(`Could not load ${path}: \n${path}:3\n`)).toBe(true);
    expect(stdout).toMatch(/\n2 \| {3}agents: \{\n3 \| {5}a: \{ llm: 1 ,, \}\n {21}\^\n4 \| /);
    expect(stdout).toMatch(/SyntaxError.*Unexpected token `,`/);
  });
});
